//go:build unix

package load

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Replicas behind a load balancer continue each other's cursors when they
// share one key file: three "serve --http" processes of the built binary,
// given one --cursor-key-file, behind a round-robin proxy (a stand-in for
// the balancer), drain paged replies part by part, each part from the
// replica after the one that made its cursor, to the very parts one
// replica alone gives. A replica of another key refuses the cursors,
// saying the key changed.
func TestReplicasShareCursorKey(t *testing.T) {
	fx := newFixture(t)
	bin := buildBinary(t)
	keyFile := filepath.Join(t.TempDir(), "cursor.key")
	if err := os.WriteFile(keyFile, []byte(strings.Repeat("5a", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var replicas []*url.URL
	for range 3 {
		replicas = append(replicas, startReplica(t, bin, fx.r.Dir, "--cursor-key-file", keyFile))
	}
	lb := newRoundRobin(replicas)
	proxy := httptest.NewServer(lb)
	t.Cleanup(proxy.Close)
	stranger := startReplica(t, bin, fx.r.Dir) // a key of its own, in its own cache

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	viaProxy := connectURL(ctx, t, proxy.URL+"/mcp")
	alone := connectURL(ctx, t, replicas[0].String())
	other := connectURL(ctx, t, stranger.String())
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_pull_request_diff", map[string]any{"owner": owner, "repo": name, "index": 1}},
		{"list_files", map[string]any{"recursive": true, "limit": 40}},
		{"list_changed_files", map[string]any{"base": "main", "head": "feature", "limit": 5}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			before := lb.served()
			got := drainParts(ctx, t, viaProxy, c.tool, c.args)
			want := drainParts(ctx, t, alone, c.tool, c.args)
			if len(got) < 3 {
				t.Fatalf("%d parts: the fixture must need at least one per replica", len(got))
			}
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Fatalf("the parts through the balancer differ from one replica's")
			}
			for i, n := range lb.served() {
				if n == before[i] {
					t.Errorf("replica %d answered no call of the drain", i)
				}
			}
			// A replica with another key: the first part's cursor is refused.
			res := callTool(ctx, t, alone, c.tool, c.args)
			msg := textOf(callTool(ctx, t, other, c.tool, nextArgs(t, res)))
			if !strings.HasPrefix(msg, "INVALID_ARGUMENT: ") || !strings.Contains(msg, "key changed") {
				t.Errorf("a replica of another key: %q", msg)
			}
		})
	}
}

// buildBinary builds the command into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcp-repo-tools")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/mcp-repo-tools/mcp-repo-tools/cmd/mcp-repo-tools").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startReplica starts "serve --http" on a loopback port, serving dir as
// acme/widgets at 8,192 bytes a reply, with a cache directory of its own;
// it returns the endpoint's URL.
func startReplica(t *testing.T, bin, dir string, flags ...string) *url.URL {
	t.Helper()
	args := append([]string{"serve", "--repo", dir, "--name", owner + "/" + name, "--http", "127.0.0.1:0", "--max-bytes", "8192"}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "url="); ok {
			go io.Copy(io.Discard, stderr)
			u, err := url.Parse(strings.Fields(after)[0])
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
	}
	t.Fatalf("the replica did not log its URL")
	return nil
}

// roundRobin sends each request to the next replica, as a balancer with
// no stickiness does.
type roundRobin struct {
	mu       sync.Mutex
	next     int
	counts   []int
	replicas []*httputil.ReverseProxy
}

func newRoundRobin(urls []*url.URL) *roundRobin {
	lb := &roundRobin{counts: make([]int, len(urls))}
	for _, u := range urls {
		lb.replicas = append(lb.replicas, &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
		}})
	}
	return lb
}

func (lb *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	lb.mu.Lock()
	i := lb.next
	lb.next = (lb.next + 1) % len(lb.replicas)
	if r.Method == http.MethodPost {
		lb.counts[i]++
	}
	lb.mu.Unlock()
	lb.replicas[i].ServeHTTP(w, r)
}

// served is how many POST requests each replica was sent.
func (lb *roundRobin) served() []int {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return append([]int(nil), lb.counts...)
}

func connectURL(ctx context.Context, t *testing.T, endpoint string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "replicas", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	return res
}

// nextArgs are the arguments of a partial reply's next call (nil at the
// end).
func nextArgs(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, ok := res.Meta["mcp-repo-tools/next"]
	if !ok {
		return nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	var n struct {
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.Unmarshal(data, &n); err != nil {
		t.Fatal(err)
	}
	return n.Arguments
}

// drainParts calls tool and its next calls to the end and returns the
// text of each part.
func drainParts(ctx context.Context, t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) []string {
	t.Helper()
	var parts []string
	for a := args; a != nil; {
		if len(parts) > 200 {
			t.Fatal("more than 200 parts")
		}
		res := callTool(ctx, t, cs, tool, a)
		if res.IsError {
			t.Fatalf("part %d of %s: %s", len(parts)+1, tool, textOf(res))
		}
		parts = append(parts, textOf(res))
		a = nextArgs(t, res)
	}
	return parts
}
