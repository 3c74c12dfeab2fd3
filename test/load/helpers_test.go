//go:build unix

package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/httpserve"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/server"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Repository name the server is started with.
const owner, name = "acme", "widgets"

// maxReaders is the bound on long-lived cat-file readers per repository.
const maxReaders = gitexec.MaxReaders

// ---------------------------------------------------------------------------
// The test repository.

// fixture is a repository of a few hundred files with a pull request
// (refs/pull/1/head, branch feature) that touches 30 of them.
type fixture struct {
	r     *testrepo.Repo
	files map[string]string // content on main (== the work tree)
	small []string          // small source files on main, sorted
	big   []string          // large files on main
	// The pull request: every path of its diff (new side), the modified
	// ones, and their content on the feature branch.
	prPaths    []string
	prModified []string
	feature    map[string]string
}

const (
	dirs        = 30
	filesPerDir = 10
	prModified  = 24 // small files modified by the pull request (plus one big file)
	prAdded     = 3
	prTotal     = prModified + 1 + prAdded + 2 // + big2 modified, + one deleted, + one renamed
)

func smallPath(d, f int) string { return fmt.Sprintf("pkg/d%02d/file%03d.go", d, f) }

func marker(d, f int) string { return fmt.Sprintf("marker-d%02d-f%03d", d, f) }

func smallContent(d, f int) string {
	idx := d*filesPerDir + f
	n := 30 + (idx*37)%150
	var b strings.Builder
	fmt.Fprintf(&b, "package d%02d\n\n", d)
	for k := 3; k <= n; k++ {
		switch k {
		case 5:
			fmt.Fprintf(&b, "// %s\n", marker(d, f))
		case 7:
			fmt.Fprintf(&b, "func Handler%03d(w int) int { return w + %d }\n", idx, idx)
		default:
			fmt.Fprintf(&b, "// file %03d line %d: the quick brown fox jumps over %d lazy dogs\n", idx, k, (k*idx)%97)
		}
	}
	return b.String()
}

func bigContent(tag string, lines int) string {
	var b strings.Builder
	for k := 1; k <= lines; k++ {
		fmt.Fprintf(&b, "%s line %06d abcdefghijklmnopqrstuvwxyz 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ %08x\n", tag, k, k*2654435761)
	}
	return b.String()
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureAt(t, filepath.Join(t.TempDir(), "repo"))
}

// newFixtureAt builds the fixture repository at dir.
func newFixtureAt(t *testing.T, dir string) *fixture {
	t.Helper()
	r := testrepo.Init(t, dir)
	fx := &fixture{r: r, files: map[string]string{}, feature: map[string]string{}}
	for d := range dirs {
		for f := range filesPerDir {
			p := smallPath(d, f)
			fx.files[p] = smallContent(d, f)
			fx.small = append(fx.small, p)
		}
	}
	fx.files["data/big1.txt"] = bigContent("big1", 12000) // ~1.1 MB
	fx.files["data/big2.txt"] = bigContent("big2", 4000)
	fx.files["data/big3.txt"] = bigContent("big3", 2500)
	fx.big = []string{"data/big1.txt", "data/big2.txt", "data/big3.txt"}
	fx.files["README.md"] = "# widgets\n\nA test repository for load tests.\n"
	for p, c := range fx.files {
		r.Write(p, c)
	}
	slices.Sort(fx.small)
	r.Commit("base")

	// The pull request, on branch feature.
	r.Git("checkout", "-q", "-b", "feature")
	for i := range prModified {
		d, f := (i*7)%dirs, (i*3)%filesPerDir
		p := smallPath(d, f)
		lines := strings.SplitAfter(fx.files[p], "\n")
		lines[9] = fmt.Sprintf("// changed in the pull request: %s line 10\n", p)
		lines[19] = fmt.Sprintf("// changed in the pull request: %s line 20\n", p)
		c := strings.Join(lines, "") + "// appended by the pull request\n"
		r.Write(p, c)
		fx.feature[p] = c
		fx.prModified = append(fx.prModified, p)
	}
	big2 := strings.Replace(fx.files["data/big2.txt"], "big2 line 002000", "big2 line 002000 (edited)", 1)
	r.Write("data/big2.txt", big2)
	fx.feature["data/big2.txt"] = big2
	fx.prModified = append(fx.prModified, "data/big2.txt")
	fx.prPaths = append(fx.prPaths, fx.prModified...)
	for i := range prAdded {
		p := fmt.Sprintf("pkg/added/new%d.go", i)
		c := fmt.Sprintf("package added\n\n// new file %d\nfunc New%d() int { return %d }\n", i, i, i)
		r.Write(p, c)
		fx.feature[p] = c
		fx.prPaths = append(fx.prPaths, p)
	}
	// Neither the deleted nor the renamed file is among the modified ones
	// (those use f = (i*3)%10 with d = (i*7)%30, never d = 29, f = 9 or 8).
	deleted := smallPath(29, 9)
	if err := os.Remove(filepath.Join(r.Dir, deleted)); err != nil {
		t.Fatal(err)
	}
	fx.prPaths = append(fx.prPaths, deleted)
	renamedFrom, renamedTo := smallPath(29, 8), "pkg/renamed/file298.go"
	r.Write(renamedTo, fx.files[renamedFrom])
	if err := os.Remove(filepath.Join(r.Dir, renamedFrom)); err != nil {
		t.Fatal(err)
	}
	fx.prPaths = append(fx.prPaths, renamedTo)
	r.Commit("the pull request")
	r.Git("update-ref", "refs/pull/1/head", "feature")

	// main moves on after the branch point, in a file the PR does not touch.
	r.Git("checkout", "-q", "main")
	later := smallPath(28, 9)
	fx.files[later] += "// main moved on\n"
	r.Write(later, fx.files[later])
	r.Commit("main moves on")
	if got := len(fx.prPaths); got != prTotal {
		t.Fatalf("fixture: %d paths in the pull request, want %d", got, prTotal)
	}
	return fx
}

// lineRange is lines s..e (1-based, inclusive) of content joined with "\n",
// the way get_file_content and read_file return a range.
func lineRange(content string, s, e int) string {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	return strings.Join(lines[s-1:e], "\n")
}

func lineCount(content string) int { return strings.Count(content, "\n") }

// ---------------------------------------------------------------------------
// The server under test, over streamable HTTP on a loopback listener.

type httpServer struct {
	url  string
	tr   *http.Transport // the clients' transport: its idle connections are closed before counting
	hc   *http.Client
	logs *syncBuffer
}

// startServer serves dir as acme/widgets with the default configuration,
// at most procs git processes at once, on 127.0.0.1, stateless.
func startServer(t *testing.T, dir string, procs int) *httpServer {
	t.Helper()
	env := newEnv(t, procs)
	served, err := repo.ServeOne(context.Background(), env, dir, owner+"/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return serveHTTP(t, served, 30*time.Second, httpserve.Options{})
}

// newEnv is a git environment with at most procs git processes at once.
func newEnv(t *testing.T, procs int) *git.Env {
	t.Helper()
	env, err := git.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	env.LimitProcesses(procs)
	t.Cleanup(func() { env.Close() })
	return env
}

// serveHTTP serves what is served through the real HTTP stack (httpserve:
// its connection cap and read deadlines included) on 127.0.0.1, with the
// given per-call deadline and HTTP options (Addr is set here).
func serveHTTP(t *testing.T, served *repo.Served, timeout time.Duration, o httpserve.Options) *httpServer {
	t.Helper()
	t.Cleanup(served.Close)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	policy, err := repo.NewPolicy(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(served, server.Config{
		// The load tests check what programmatic clients read.
		Structured: true,
		MaxBytes:   server.DefaultMaxBytes,
		Timeout:    timeout,
		Policy:     policy,
		Version:    "load-test",
		Logger:     logger,
	})
	o.Addr = "127.0.0.1:0"
	l, err := httpserve.Listen(srv.MCP(), o, logger)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	tr := &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512, IdleConnTimeout: time.Minute}
	t.Cleanup(tr.CloseIdleConnections)
	t.Cleanup(func() {
		if s := logs.String(); s != "" {
			t.Logf("server warnings and errors:\n%s", truncate(s, 4000))
		}
	})
	return &httpServer{url: "http://" + l.Addr() + httpserve.Endpoint, tr: tr, hc: &http.Client{Transport: tr}, logs: logs}
}

// connect opens a client session of its own, as one agent would.
func (h *httpServer) connect(ctx context.Context, who string) (*mcp.ClientSession, error) {
	return h.connectVersion(ctx, who, "")
}

// connectVersion connects asking for a protocol version ("" for the
// client's latest).
func (h *httpServer) connectVersion(ctx context.Context, who, version string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: who, Version: "1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: h.hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}

// ---------------------------------------------------------------------------
// Calls and their checks.

// call is one tool call with a cheap check of its answer.
type call struct {
	name  string
	args  map[string]any
	check func(text string, structured json.RawMessage) error
}

// run makes the call and checks it: a protocol error, isError or a failed
// check is an error.
func (c call) run(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args})
	if err != nil {
		return fmt.Errorf("%s %v: protocol error: %w", c.name, c.args, err)
	}
	text := textOf(res)
	if res.IsError {
		return fmt.Errorf("%s %v: isError: %s", c.name, c.args, truncate(text, 300))
	}
	var structured json.RawMessage
	if res.StructuredContent != nil {
		if structured, err = json.Marshal(res.StructuredContent); err != nil {
			return fmt.Errorf("%s %v: structured content: %w", c.name, c.args, err)
		}
	}
	if c.check != nil {
		if err := c.check(text, structured); err != nil {
			return fmt.Errorf("%s %v: %w", c.name, c.args, err)
		}
	}
	return nil
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func decode[T any](data json.RawMessage) (T, error) {
	var v T
	if data == nil {
		return v, fmt.Errorf("no structured content")
	}
	err := json.Unmarshal(data, &v)
	return v, err
}

func wantText(want string) func(string, json.RawMessage) error {
	return func(text string, _ json.RawMessage) error {
		if text != want {
			return fmt.Errorf("text %q, want %q", truncate(text, 200), truncate(want, 200))
		}
		return nil
	}
}

// callKinds is the mix every client cycles through: all eight tools,
// weighted the way an agent reviewing a pull request works (mostly reads of
// file slices, some diffs and searches). 8 of the 25 calls start a git
// process (get_diff starts two); the others are answered by the long-lived
// cat-file readers or from the work tree.
var callKinds = []string{
	"get_file_content", "read_file", "get_diff", "list_repositories", "get_file_content_big",
	"read_file_ref", "search_code", "get_file_content", "list_pull_request_files", "read_file",
	"get_pull_request_diff_file", "read_file_page", "get_file_content", "list_changed_files",
	"read_file", "search_code_regex", "list_repositories", "get_file_content_big", "read_file_ref",
	"get_pull_request_diff", "get_file_content", "read_file", "search_code", "read_file_page",
	"list_repositories",
}

// makeCall builds a call of the given kind with inputs drawn from rng.
func (fx *fixture) makeCall(kind string, rng *rand.Rand) call {
	switch kind {
	case "get_file_content":
		p := fx.small[rng.IntN(len(fx.small))]
		c := fx.files[p]
		n := lineCount(c)
		s := 1 + rng.IntN(n)
		e := s + rng.IntN(n-s+1)
		return call{"get_file_content", map[string]any{"owner": owner, "repo": name, "filePath": p, "start_line": s, "end_line": e}, wantText(lineRange(c, s, e))}
	case "get_file_content_big":
		p := fx.big[rng.IntN(len(fx.big))]
		c := fx.files[p]
		s := 1 + rng.IntN(lineCount(c)-300)
		e := s + rng.IntN(300)
		return call{"get_file_content", map[string]any{"owner": owner, "repo": name, "filePath": p, "start_line": s, "end_line": e}, wantText(lineRange(c, s, e))}
	case "read_file", "read_file_ref":
		p := fx.small[rng.IntN(len(fx.small))]
		c, ref := fx.files[p], ""
		if kind == "read_file_ref" {
			p = fx.prModified[rng.IntN(len(fx.prModified))]
			c, ref = fx.feature[p], "refs/pull/1/head"
		}
		n := lineCount(c)
		s := 1 + rng.IntN(n)
		e := min(n, s+rng.IntN(60))
		args := map[string]any{"path": p, "startLine": s, "endLine": e}
		if ref != "" {
			args["ref"] = ref
		}
		want := lineRange(c, s, e)
		return call{"read_file", args, func(_ string, st json.RawMessage) error {
			out, err := decode[struct {
				Path      string `json:"path"`
				Content   string `json:"content"`
				Truncated bool   `json:"truncated"`
			}](st)
			if err != nil {
				return err
			}
			if out.Path != p || out.Content != want || out.Truncated {
				return fmt.Errorf("got path %q truncated %v content %q, want %q", out.Path, out.Truncated, truncate(out.Content, 100), truncate(want, 100))
			}
			return nil
		}}
	case "read_file_page":
		// As much of a large file as fits in one reply.
		p := fx.big[rng.IntN(len(fx.big))]
		s := 1 + rng.IntN(lineCount(fx.files[p])/2)
		return call{"read_file", map[string]any{"path": p, "startLine": s}, func(_ string, st json.RawMessage) error {
			out, err := decode[struct {
				Path      string `json:"path"`
				StartLine int    `json:"startLine"`
				EndLine   int    `json:"endLine"`
				Content   string `json:"content"`
				Truncated bool   `json:"truncated"`
			}](st)
			if err != nil {
				return err
			}
			if out.Path != p || out.StartLine != s || out.EndLine < s || !out.Truncated || out.Content != lineRange(fx.files[p], s, out.EndLine) {
				return fmt.Errorf("got path %q lines %d-%d truncated %v", out.Path, out.StartLine, out.EndLine, out.Truncated)
			}
			return nil
		}}
	case "get_diff":
		maxBytes := []int{2048, 8192, 32768}[rng.IntN(3)]
		return call{"get_diff", map[string]any{"base": "main", "head": "refs/pull/1/head", "maxBytes": maxBytes}, func(_ string, st json.RawMessage) error {
			out, err := decode[struct {
				TotalFiles int `json:"totalFiles"`
				Files      []struct {
					Path  string  `json:"path"`
					Patch *string `json:"patch"`
				} `json:"files"`
			}](st)
			if err != nil {
				return err
			}
			bytes := 0
			for _, f := range out.Files {
				if f.Patch != nil {
					bytes += len(*f.Patch)
				}
			}
			if out.TotalFiles != prTotal || len(out.Files) == 0 || bytes > maxBytes {
				return fmt.Errorf("totalFiles %d (want %d), %d files, %d patch bytes (budget %d)", out.TotalFiles, prTotal, len(out.Files), bytes, maxBytes)
			}
			return nil
		}}
	case "list_changed_files":
		return call{"list_changed_files", map[string]any{"base": "main", "head": "feature"}, func(_ string, st json.RawMessage) error {
			out, err := decode[struct {
				TotalFiles int `json:"totalFiles"`
				Files      []struct {
					Path string `json:"path"`
				} `json:"files"`
			}](st)
			if err != nil {
				return err
			}
			if out.TotalFiles != prTotal || len(out.Files) != prTotal {
				return fmt.Errorf("totalFiles %d, %d files; want %d", out.TotalFiles, len(out.Files), prTotal)
			}
			return nil
		}}
	case "get_pull_request_diff":
		return call{"get_pull_request_diff", map[string]any{"owner": owner, "repo": name, "index": 1}, func(text string, _ json.RawMessage) error {
			if !strings.HasPrefix(text, "diff --git ") || strings.Count(text, "\ndiff --git ")+1 != prTotal {
				return fmt.Errorf("want a whole diff of %d files, got %q", prTotal, truncate(text, 200))
			}
			return nil
		}}
	case "get_pull_request_diff_file":
		p := fx.prModified[rng.IntN(len(fx.prModified))]
		return call{"get_pull_request_diff", map[string]any{"owner": owner, "repo": name, "index": 1, "file_path": p}, func(text string, _ json.RawMessage) error {
			if !strings.HasPrefix(text, "diff --git a/"+p+" b/"+p+"\n") || strings.Contains(text, "\ndiff --git ") {
				return fmt.Errorf("want the section of %s only, got %q", p, truncate(text, 200))
			}
			return nil
		}}
	case "list_pull_request_files":
		return call{"list_pull_request_files", map[string]any{"owner": owner, "repo": name, "index": 1}, func(_ string, st json.RawMessage) error {
			out, err := decode[struct {
				TotalCount int `json:"totalCount"`
				Files      []struct {
					Path string `json:"path"`
				} `json:"files"`
			}](st)
			if err != nil {
				return err
			}
			if out.TotalCount != prTotal || len(out.Files) != prTotal {
				return fmt.Errorf("totalCount %d, %d files; want %d", out.TotalCount, len(out.Files), prTotal)
			}
			return nil
		}}
	case "search_code":
		d, f := rng.IntN(dirs), rng.IntN(filesPerDir)
		if d == 29 && f >= 8 { // deleted or renamed on the PR branch, but still on main
			d = 28
		}
		p := smallPath(d, f)
		args := map[string]any{"query": marker(d, f)}
		if rng.IntN(2) == 0 {
			args["ref"] = "main"
		}
		return call{"search_code", args, func(_ string, st json.RawMessage) error {
			out, err := decode[struct {
				Matches []struct {
					Path string `json:"path"`
					Line int    `json:"line"`
				} `json:"matches"`
			}](st)
			if err != nil {
				return err
			}
			if len(out.Matches) != 1 || out.Matches[0].Path != p || out.Matches[0].Line != 5 {
				return fmt.Errorf("matches %+v, want %s:5", out.Matches, p)
			}
			return nil
		}}
	case "search_code_regex":
		return call{"search_code", map[string]any{"query": `func Handler[0-9]+\(w`, "regex": true, "caseSensitive": true, "maxResults": 20, "pathGlobs": []string{"pkg/**/*.go"}, "contextLines": 1}, func(_ string, st json.RawMessage) error {
			out, err := decode[struct {
				Matches   []struct{ Path string } `json:"matches"`
				Truncated bool                    `json:"truncated"`
			}](st)
			if err != nil {
				return err
			}
			if len(out.Matches) != 20 || !out.Truncated {
				return fmt.Errorf("%d matches (truncated %v), want 20 and truncated", len(out.Matches), out.Truncated)
			}
			return nil
		}}
	case "list_repositories":
		return call{"list_repositories", map[string]any{}, func(_ string, st json.RawMessage) error {
			out, err := decode[struct {
				Repositories []repo.Info `json:"repositories"`
				Total        int         `json:"total"`
			}](st)
			if err != nil {
				return err
			}
			if out.Total != 1 || len(out.Repositories) != 1 || out.Repositories[0].Owner != owner || out.Repositories[0].Name != name {
				return fmt.Errorf("got %+v", out)
			}
			return nil
		}}
	}
	panic("unknown call kind " + kind)
}

// ---------------------------------------------------------------------------
// What the process holds: goroutines, file descriptors, git children.

type gitChild struct {
	pid     int
	state   string // R, S, Z, ...
	cmdline string
	catFile bool // a long-lived cat-file --batch-command reader
}

// gitChildren lists this process's children named git.
func gitChildren() []gitChild {
	me := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []gitChild
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone
		}
		open, close := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
		if open < 0 || close < open {
			continue
		}
		comm := string(data[open+1 : close])
		fields := strings.Fields(string(data[close+1:]))
		if len(fields) < 2 || comm != "git" {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid != me {
			continue
		}
		raw, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		cmdline := strings.TrimSpace(strings.ReplaceAll(string(raw), "\x00", " "))
		out = append(out, gitChild{pid: pid, state: fields[0], cmdline: cmdline,
			catFile: strings.Contains(cmdline, " cat-file --batch-command")})
	}
	return out
}

func processGone(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return os.IsNotExist(err)
}

// snapshot is what the process holds at one moment.
type snapshot struct {
	goroutines   int // runtime.NumGoroutine
	execRoutines int // goroutines in os/exec (a cat-file reader keeps some)
	fds          int // open file descriptors, those held for cat-file readers excepted
	rawFDs       int // all open file descriptors
	catFile      int // cat-file readers
	otherGit     []gitChild
}

func (s snapshot) String() string {
	return fmt.Sprintf("goroutines %d (%d in os/exec), fds %d (%d counting the readers' pipes and pidfds), cat-file readers %d, other git children %d",
		s.goroutines, s.execRoutines, s.fds, s.rawFDs, s.catFile, len(s.otherGit))
}

// countNow is a cheap sample for peaks under load: goroutines, all open
// file descriptors, cat-file readers, other git children.
func countNow() (goroutines, fds, catFile, otherGit int) {
	if entries, err := os.ReadDir("/proc/self/fd"); err == nil {
		fds = len(entries)
	}
	for _, c := range gitChildren() {
		if c.catFile {
			catFile++
		} else if c.state != "Z" {
			otherGit++
		}
	}
	return runtime.NumGoroutine(), fds, catFile, otherGit
}

func takeSnapshot() snapshot {
	var s snapshot
	// A reader holds three pipes to its process and, since Go 1.23, a pidfd
	// for it (until Wait).
	readerPipes, readerPids := map[string]bool{}, map[string]bool{}
	for _, c := range gitChildren() {
		if !c.catFile {
			s.otherGit = append(s.otherGit, c)
			continue
		}
		s.catFile++
		readerPids[strconv.Itoa(c.pid)] = true
		for _, fd := range []string{"0", "1", "2"} {
			if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", c.pid, fd)); err == nil && strings.HasPrefix(l, "pipe:") {
				readerPipes[l] = true
			}
		}
	}
	s.goroutines = runtime.NumGoroutine()
	for _, g := range strings.Split(goroutineDump(), "\n\n") {
		if strings.Contains(g, "os/exec.") {
			s.execRoutines++
		}
	}
	if entries, err := os.ReadDir("/proc/self/fd"); err == nil {
		s.rawFDs = len(entries)
		for _, e := range entries {
			l, err := os.Readlink("/proc/self/fd/" + e.Name())
			if err == nil && readerPipes[l] {
				continue
			}
			if err == nil && l == "anon_inode:[pidfd]" && readerPids[pidfdPid(e.Name())] {
				continue
			}
			s.fds++
		}
	}
	return s
}

// pidfdPid is the process a pidfd of this process refers to.
func pidfdPid(fd string) string {
	info, err := os.ReadFile("/proc/self/fdinfo/" + fd)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(info)) {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func goroutineDump() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// settle waits until the goroutine count stops moving (connections and
// sessions closing), at most d.
func settle(d time.Duration) snapshot {
	deadline := time.Now().Add(d)
	last, stable := takeSnapshot(), 0
	for time.Now().Before(deadline) && stable < 4 {
		time.Sleep(50 * time.Millisecond)
		s := takeSnapshot()
		if s.goroutines == last.goroutines && s.fds == last.fds && len(s.otherGit) == 0 {
			stable++
		} else {
			stable = 0
		}
		last = s
	}
	return last
}

// ---------------------------------------------------------------------------
// Latency figures.

type latencies []time.Duration

func (l latencies) percentile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	return l[int(q*float64(len(l)-1)+0.5)]
}

func (l latencies) summary() string {
	slices.Sort(l)
	return fmt.Sprintf("p50 %v, p90 %v, p99 %v, max %v",
		l.percentile(0.50).Round(10*time.Microsecond), l.percentile(0.90).Round(10*time.Microsecond),
		l.percentile(0.99).Round(10*time.Microsecond), l.percentile(1).Round(10*time.Microsecond))
}

// report writes lines to the file named by LOAD_REPORT, if set: truncating
// it when fresh is true, else appending.
func report(t *testing.T, fresh bool, lines ...string) {
	t.Helper()
	path := os.Getenv("LOAD_REPORT")
	if path == "" {
		return
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fresh {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		t.Errorf("LOAD_REPORT: %v", err)
		return
	}
	defer f.Close()
	for _, l := range lines {
		fmt.Fprintln(f, l)
	}
}
