//go:build unix

package load

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/httpserve"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// The hostile load: 16 clients that attack while 16 honest ones review a
// pull request, over the real HTTP stack, for hostileSeconds (20 s in CI;
// LOAD_SECONDS=60 for the measured run). Honest calls must all succeed; no
// call may outlive the deadline by more than a second; the server's memory
// and its git children's stay within their bounds; file descriptors and
// git processes return to idle afterwards.
const (
	hostileClients = 16
	honestClients  = 16
	hostileBudget  = 2 << 30   // --git-memory-budget here
	maxServerRSS   = 512 << 20 // the server's resident set, at most
)

// hostileTimeout is the server's per-call deadline here, and callSlack how
// long any call may take: the deadline and a second. The race detector
// makes Go code several times slower (honest calls included, and returning
// a reply past its deadline is Go code), so CI's race run allows more.
var hostileTimeout, callSlack = 5 * time.Second, 6 * time.Second

func init() {
	if raceEnabled {
		hostileTimeout, callSlack = 15*time.Second, 20*time.Second
	}
}

func hostileSeconds() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("LOAD_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 20 * time.Second
}

func TestHostileAndHonestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	root := t.TempDir()
	fx := newFixtureAt(t, filepath.Join(root, "acme", "widgets"))
	wide := testrepo.Init(t, filepath.Join(root, "acme", "wide"))
	wide.Write("README.md", "wide\n")
	base := wide.Commit("base")
	wide.Git("update-ref", "refs/heads/wide", wide.CommitWide(base, 20_000, 5, "20,000 files of 1 KB paths"))
	for name, file := range map[string]string{"head": "HEAD", "packed-refs": "packed-refs"} { // FIFOs where git reads a file whole
		r := testrepo.Init(t, filepath.Join(root, "fifo", name))
		r.Commit(name)
		p := filepath.Join(r.Dir, ".git", file)
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := startRootServer(t, root)

	ctx, cancel := context.WithTimeout(context.Background(), hostileSeconds()+2*time.Minute)
	defer cancel()
	warm, err := srv.connect(ctx, "warm-up")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range callKinds {
		if err := honestCall(fx, kind, rand.New(rand.NewPCG(0, 0))).run(ctx, warm); err != nil {
			t.Fatalf("warm-up: %v", err)
		}
	}
	warm.Close()
	srv.tr.CloseIdleConnections()
	idle := settle(2 * time.Second)
	t.Logf("idle: %v", idle)

	var (
		mu        sync.Mutex
		honest    latencies
		failures  []string
		overtime  []string
		hostileN  atomic.Int64
		peakRSS   uint64
		peakGit   uint64
		peakFDs   int
		stopAt    = time.Now().Add(hostileSeconds())
		stopWatch = make(chan struct{})
		watched   = make(chan struct{})
	)
	note := func(list *[]string, s string) {
		mu.Lock()
		defer mu.Unlock()
		if len(*list) < 20 {
			*list = append(*list, s)
		}
	}
	timed := func(what string, f func()) {
		start := time.Now()
		f()
		if d := time.Since(start); d > callSlack {
			note(&overtime, fmt.Sprintf("%s took %v", what, d.Round(time.Millisecond)))
		}
	}
	go func() {
		defer close(watched)
		for {
			rss, gitMem := residentSet(os.Getpid()), uint64(0)
			for _, c := range gitChildren() {
				gitMem += residentSet(c.pid)
			}
			_, fds, _, _ := countNow()
			mu.Lock()
			peakRSS, peakGit, peakFDs = max(peakRSS, rss), max(peakGit, gitMem), max(peakFDs, fds)
			mu.Unlock()
			select {
			case <-stopWatch:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()

	var wg sync.WaitGroup
	for i := range honestClients {
		wg.Go(func() {
			cs, err := srv.connect(ctx, fmt.Sprintf("honest-%d", i))
			if err != nil {
				note(&failures, "connect: "+err.Error())
				return
			}
			defer cs.Close()
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for k := 0; time.Now().Before(stopAt); k++ {
				c := honestCall(fx, callKinds[(i+k)%len(callKinds)], rng)
				start := time.Now()
				var err error
				timed(c.name, func() { err = c.run(ctx, cs) })
				mu.Lock()
				honest = append(honest, time.Since(start))
				mu.Unlock()
				if err != nil {
					note(&failures, err.Error())
				}
			}
		})
	}
	attacks := hostileAttacks(srv)
	for i := range hostileClients {
		wg.Go(func() {
			cs, err := srv.connect(ctx, fmt.Sprintf("hostile-%d", i))
			if err != nil {
				note(&failures, "hostile connect: "+err.Error())
				return
			}
			defer cs.Close()
			for k := 0; time.Now().Before(stopAt); k++ {
				a := attacks[(i+k)%len(attacks)]
				timed(a.name, func() { a.run(ctx, cs) })
				hostileN.Add(1)
			}
		})
	}
	wg.Wait()
	close(stopWatch)
	<-watched

	srv.tr.CloseIdleConnections()
	after := settle(10 * time.Second)
	summary := []string{
		fmt.Sprintf("hostile load for %v: %d honest calls (%s), %d hostile ones", hostileSeconds(), len(honest), honest.summary(), hostileN.Load()),
		fmt.Sprintf("peaks: server RSS %.0f MiB (at most %d), git children's RSS together %.0f MiB (budget %d MiB), fds %d", mib(peakRSS), maxServerRSS>>20, mib(peakGit), hostileBudget>>20, peakFDs),
		fmt.Sprintf("idle before: %v", idle),
		fmt.Sprintf("idle after: %v", after),
	}
	for _, l := range summary {
		t.Log(l)
	}
	report(t, false, summary...)
	if len(failures) > 0 {
		t.Errorf("honest calls failed:\n%s", strings.Join(failures, "\n"))
	}
	if len(overtime) > 0 {
		t.Errorf("calls took longer than %v (the deadline is %v):\n%s", callSlack, hostileTimeout, strings.Join(overtime, "\n"))
	}
	if peakRSS > maxServerRSS {
		t.Errorf("the server's RSS reached %.0f MiB", mib(peakRSS))
	}
	if peakGit > hostileBudget {
		t.Errorf("git children held %.0f MiB together, over the %d MiB budget", mib(peakGit), hostileBudget>>20)
	}
	if len(after.otherGit) > 0 || after.fds > idle.fds+4 {
		t.Errorf("not back to idle: %v (before: %v)", after, idle)
	}
}

// honestCall is a call of the pull-request review mix, named for the root.
func honestCall(fx *fixture, kind string, rng *rand.Rand) call {
	if kind == "list_repositories" {
		return call{name: "list_repositories", args: map[string]any{}}
	}
	c := fx.makeCall(kind, rng)
	c.args["owner"], c.args["repo"] = owner, name
	return c
}

// attack is one hostile move. It must not fail the test by itself: the
// server's answer to it is checked by the named tests of each finding.
type attack struct {
	name string
	run  func(ctx context.Context, cs *mcp.ClientSession)
}

func hostileAttacks(srv *httpServer) []attack {
	tool := func(name, tool string, args map[string]any) attack {
		return attack{name, func(ctx context.Context, cs *mcp.ClientSession) {
			cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		}}
	}
	widgets := func(kv ...any) map[string]any {
		m := map[string]any{"owner": owner, "repo": name}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	return []attack{
		tool("regex bomb", "search_code", widgets("query", "((a{1,100}){1,100}){1,100}", "regex", true)),
		tool("open count", "search_code", widgets("query", "(a{1,255}){,255}", "regex", true)),
		tool("backreferences", "search_code", widgets("query", `(a*)*(a*)*(a*)*\3\2\1b`, "regex", true)),
		tool("glob bomb", "search_code", widgets("query", "x", "pathGlobs", []string{"*a*a*a*a*a*a*a*a*b"})),
		tool("revision regex", "read_file", widgets("path", "README.md", "ref", "HEAD^{/((a{1,100}){1,100}){1,100}}")),
		tool("huge tree diff", "get_diff", map[string]any{"owner": owner, "repo": "wide", "base": "main", "head": "wide"}),
		tool("huge tree listing", "list_changed_files", map[string]any{"owner": owner, "repo": "wide", "base": "main", "head": "wide", "limit": 1}),
		tool("FIFO repository", "read_file", map[string]any{"owner": "fifo", "repo": "head", "path": "x"}),
		tool("FIFO listing", "list_repositories", map[string]any{}),
		tool("unknown name", "read_file", map[string]any{"owner": "nobody", "repo": "nothing", "path": "x"}),
		{"batch", func(ctx context.Context, _ *mcp.ClientSession) { srv.postBatch(ctx, 500) }},
		{"slowloris", func(ctx context.Context, _ *mcp.ClientSession) { srv.slowloris(ctx, 3*time.Second) }},
	}
}

// postBatch sends one JSON-RPC batch of n tools/call requests.
func (h *httpServer) postBatch(ctx context.Context, n int) {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_repositories","arguments":{}}}`, i)
	}
	b.WriteString("]")
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(b.String()))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if res, err := h.hc.Do(req); err == nil {
		res.Body.Close()
	}
}

// slowloris announces a large body and trickles it for d.
func (h *httpServer) slowloris(ctx context.Context, d time.Duration) {
	addr := strings.TrimPrefix(strings.TrimSuffix(h.url, httpserve.Endpoint), "http://")
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n", httpserve.Endpoint, addr)
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if _, err := conn.Write([]byte("{")); err != nil {
			return // the server cut it off
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// startRootServer serves every repository under root with a short
// per-call deadline and a small git memory budget.
func startRootServer(t *testing.T, root string) *httpServer {
	t.Helper()
	env := newEnv(t, 16)
	env.ShareMemory(hostileBudget, 4<<30)
	served, err := repo.ServeRoot(env, root, repo.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return serveHTTP(t, served, hostileTimeout, httpserve.Options{ReadTimeout: 2 * time.Second})
}

// residentSet is a process's resident memory (VmRSS), 0 if it is gone.
func residentSet(pid int) uint64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
