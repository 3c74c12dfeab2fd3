package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// binary builds the command once per test run.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcp-repo-tools-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "mcp-repo-tools")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = &buildError{string(out), err}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// run runs the binary in dir with extra environment; it returns stdout,
// stderr and the exit code.
func runBinary(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

func project(t *testing.T) *testrepo.Repo {
	r := testrepo.New(t)
	r.Git("remote", "add", "origin", "git@example.com:acme/widgets.git")
	r.Write("main.go", "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")
	r.Write("sub/dir/file.txt", "a\nb\nc\n")
	r.Commit("initial")
	return r
}

// An MCP client (the go-sdk's) drives the built binary over stdio.
func TestServeStdioEndToEnd(t *testing.T) {
	r := project(t)
	ctx := context.Background()
	cmd := exec.Command(binary(t), "serve", "--max-bytes", "16384", "--structured")
	cmd.Dir = filepath.Join(r.Dir, "sub") // the repository is found from a subdirectory
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if a := tool.Annotations; a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s: annotations %+v, want read-only, idempotent, not destructive", tool.Name, a)
		}
	}
	for _, want := range []string{"get_file_content", "list_repositories", "read_file"} {
		if !contains(names, want) {
			t.Errorf("tool %s not listed (have %v)", want, names)
		}
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_file_content", Arguments: map[string]any{
		"owner": "acme", "repo": "widgets", "ref": "main", "filePath": "main.go", "start_line": 3, "end_line": 5,
	}})
	if err != nil || res.IsError {
		t.Fatalf("get_file_content: %v %+v", err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "func main() {\n\tprintln(\"hi\")\n}" {
		t.Fatalf("slice: %q", got)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "sub/dir/file.txt", "startLine": 2}})
	if err != nil || res.IsError {
		t.Fatalf("read_file: %v %+v", err, res)
	}
	var out struct {
		Content    string `json:"content"`
		TotalLines int    `json:"totalLines"`
	}
	data, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(data, &out)
	if out.Content != "b\nc" || out.TotalLines != 3 {
		t.Fatalf("read_file structured: %s", data)
	}

	// A failing call is a tool error, and the server keeps serving.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "../etc/passwd"}})
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "PATH_DENIED: ") {
		t.Fatalf("traversal: %v %+v", err, res)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("server stopped after a failing call: %v", err)
	}
}

func TestCallCommand(t *testing.T) {
	r := project(t)
	stdout, stderr, code := runBinary(t, r.Dir, nil, "call", "get_file_content", "owner=acme", "repo=widgets", "filePath=main.go", "end_line=1")
	if code != 0 || stdout != "package main\n" {
		t.Fatalf("call: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A tool error goes to stderr with exit code 1.
	stdout, stderr, code = runBinary(t, r.Dir, nil, "call", "read_file", "path=nope.go")
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "NOT_FOUND: ") {
		t.Fatalf("failing call: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Usage errors exit 2.
	if _, stderr, code = runBinary(t, r.Dir, nil, "call", "read_file", "nokey"); code != 2 || !strings.Contains(stderr, "key=value") {
		t.Fatalf("bad argument: code %d, stderr %q", code, stderr)
	}
	if _, stderr, code = runBinary(t, r.Dir, nil, "call", "no_such_tool"); code != 2 || !strings.Contains(stderr, "read_file") {
		t.Fatalf("unknown tool: code %d, stderr %q", code, stderr)
	}
	// A name the schema does not list goes to the server, which takes
	// another spelling of a parameter and suggests the closest name for
	// a mistake.
	if _, stderr, code = runBinary(t, r.Dir, nil, "call", "read_file", "pth=x"); code != 1 || !strings.Contains(stderr, `did you mean "path"?`) {
		t.Fatalf("unknown parameter: code %d, stderr %q", code, stderr)
	}
	if stdout, stderr, code = runBinary(t, r.Dir, nil, "call", "get_file_content", "path=main.go", "endLine=1"); code != 0 || stdout != "package main\n" {
		t.Fatalf("aliases: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// --json prints the whole result, structured content included with
	// --structured.
	stdout, _, code = runBinary(t, r.Dir, nil, "call", "--json", "--structured", "read_file", "path=main.go", "ref=main", "endLine=1")
	if code != 0 || !strings.Contains(stdout, `"structuredContent"`) || !strings.Contains(stdout, `"totalLines": 5`) {
		t.Fatalf("--json: code %d, %s", code, stdout)
	}
}

func TestFlagsFromEnvironment(t *testing.T) {
	r := project(t)
	other := t.TempDir()
	// --repo from the environment, run from a directory that is not a repository.
	stdout, stderr, code := runBinary(t, other, []string{"MCP_REPO_TOOLS_REPO=" + r.Dir, "MCP_REPO_TOOLS_NAME=team/tool"},
		"call", "get_file_content", "owner=team", "repo=tool", "filePath=sub/dir/file.txt")
	if code != 0 || stdout != "a\nb\nc\n" {
		t.Fatalf("env flags: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A flag on the command line wins over the environment.
	_, stderr, code = runBinary(t, other, []string{"MCP_REPO_TOOLS_MAX_BYTES=100"}, "call", "--repo", r.Dir, "--max-bytes", "8192", "read_file", "path=main.go")
	if code != 0 {
		t.Fatalf("command line over env: code %d, %s", code, stderr)
	}
	_, stderr, code = runBinary(t, other, []string{"MCP_REPO_TOOLS_MAX_BYTES=100"}, "call", "--repo", r.Dir, "read_file", "path=main.go")
	if code == 0 || !strings.Contains(stderr, "max-bytes") {
		t.Fatalf("invalid env value accepted: code %d, %s", code, stderr)
	}
	_, stderr, code = runBinary(t, other, []string{"MCP_REPO_TOOLS_DENY=*.go,sub/"}, "call", "--repo", r.Dir, "read_file", "path=main.go")
	if code != 1 || !strings.HasPrefix(stderr, "PATH_DENIED") {
		t.Fatalf("--deny from env: code %d, %s", code, stderr)
	}
}

func TestRootModeListRepositories(t *testing.T) {
	root := t.TempDir()
	a := testrepo.Init(t, filepath.Join(root, "acme", "widgets"))
	a.Write("x.txt", "widgets\n")
	a.Commit("w")
	a.CloneBare(filepath.Join(root, "acme", "gadgets.git"))
	stdout, stderr, code := runBinary(t, root, nil, "call", "--root", root, "list_repositories")
	if code != 0 || !strings.Contains(stdout, "acme/gadgets (bare") || !strings.Contains(stdout, "acme/widgets (work tree") {
		t.Fatalf("list_repositories: code %d, %q %q", code, stdout, stderr)
	}
	stdout, stderr, code = runBinary(t, root, nil, "call", "--root", root, "get_file_content", "owner=acme", "repo=gadgets", "filePath=x.txt")
	if code != 0 || stdout != "widgets\n" {
		t.Fatalf("bare under root: code %d, %q %q", code, stdout, stderr)
	}
	// Without owner/repo, a root server says where to find what it serves
	// (naming it would cost a scan of the root on every such call).
	_, stderr, code = runBinary(t, root, nil, "call", "--root", root, "read_file", "path=x.txt")
	if code != 1 || !strings.Contains(stderr, "list_repositories") {
		t.Fatalf("missing names in root mode: code %d, %q", code, stderr)
	}
}

func TestToolsAndVersion(t *testing.T) {
	r := project(t)
	stdout, _, code := runBinary(t, r.Dir, nil, "tools")
	if code != 0 || !strings.Contains(stdout, "get_file_content") || !strings.Contains(stdout, "start_line integer") {
		t.Fatalf("tools: %d %s", code, stdout)
	}
	stdout, _, code = runBinary(t, r.Dir, nil, "tools", "--json")
	var tools []map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &tools) != nil || len(tools) < 3 {
		t.Fatalf("tools --json: %d %s", code, stdout)
	}
	stdout, _, code = runBinary(t, r.Dir, nil, "version")
	if code != 0 || !strings.HasPrefix(stdout, "mcp-repo-tools ") {
		t.Fatalf("version: %d %q", code, stdout)
	}
	if _, _, code = runBinary(t, r.Dir, nil, "frobnicate"); code != 2 {
		t.Fatalf("unknown command exits %d, want 2", code)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The same client drives the binary over streamable HTTP.
func TestServeHTTPEndToEnd(t *testing.T) {
	r := project(t)
	cmd := exec.Command(binary(t), "serve", "--repo", r.Dir, "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("server did not stop cleanly on SIGINT: %v", err)
		}
	}()
	url := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "url="); ok {
			url = strings.Fields(after)[0]
			break
		}
	}
	if url == "" {
		t.Fatal("the server did not log its URL")
	}
	go io.Copy(io.Discard, stderr)

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-http"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_file_content", Arguments: map[string]any{
		"owner": "acme", "repo": "widgets", "filePath": "sub/dir/file.txt", "start_line": 2,
	}})
	if err != nil || res.IsError {
		t.Fatalf("get_file_content over HTTP: %v %+v", err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "b\nc" {
		t.Fatalf("got %q", got)
	}
}

// --sandbox: serve says at start whether it is on; required starts only
// where the kernel has Landlock; a bad value is refused.
func TestSandboxFlag(t *testing.T) {
	r := project(t)
	if _, stderr, code := runBinary(t, r.Dir, []string{"MCP_REPO_TOOLS_SANDBOX=sometimes"}, "call", "read_file", "path=main.go"); code == 0 || !strings.Contains(stderr, "--sandbox") {
		t.Fatalf("a bad --sandbox: code %d, %s", code, stderr)
	}
	for _, mode := range []string{"off", "required"} {
		stdout, stderr, code := runBinary(t, r.Dir, nil, "call", "--sandbox", mode, "read_file", "path=main.go", "ref=main", "endLine=1")
		if mode == "required" && code != 0 && strings.Contains(stderr, "Landlock") && os.Getenv("CI") == "" {
			t.Skipf("this kernel has no Landlock: %s", stderr)
		}
		if code != 0 || !strings.Contains(stdout, "package main") {
			t.Fatalf("--sandbox %s: code %d, stdout %q, stderr %q", mode, code, stdout, stderr)
		}
	}
	// serve logs the state at start; stdin at EOF ends it.
	_, stderr, _ := runBinary(t, r.Dir, nil, "serve")
	if !strings.Contains(stderr, `msg="git sandbox" state="on (Landlock`) && !strings.Contains(stderr, `state="off: `) {
		t.Fatalf("serve does not say whether the sandbox is on:\n%s", stderr)
	}
}

// TestPlainHTTPForgeWithTokenRefusedAtStart: review 3, finding 01 (#2): an
// http:// forge with a token off loopback started without a word.
func TestPlainHTTPForgeWithTokenRefusedAtStart(t *testing.T) {
	other := t.TempDir()
	_, stderr, code := runBinary(t, other, []string{"MCP_REPO_TOOLS_TOKEN=t0ken-in-clear"}, "call", "--forge", "http://192.0.2.1", "list_repositories")
	if code == 0 || !strings.Contains(stderr, "--insecure-forge") || strings.Contains(stderr, "t0ken-in-clear") {
		t.Fatalf("http forge with a token: code %d, %s", code, stderr)
	}
}
