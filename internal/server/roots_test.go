package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// serveAnywhere starts a server as `serve` does outside any repository
// (started in dir) and connects a go-sdk client that declares roots, on
// protocol 2025-11-25: it is asked for them once initialized.
func serveAnywhere(t *testing.T, dir string, roots ...string) (*harness, *mcp.Client) {
	t.Helper()
	return serveAnywhereAs(t, dir, anywhereClient{version: "2025-11-25"}, roots...)
}

// anywhereClient is how the client of serveAnywhereAs connects.
type anywhereClient struct {
	version string // protocol revision; "": the SDK's newest, 2026-07-28
	name    string // clientInfo.name; "": "test"
	noRoots bool   // declare no roots capability
	// manual: the client does not answer an input-required result itself
	// (the SDK's multi round-trip middleware is off).
	manual bool
}

// serveAnywhereAs is serveAnywhere with the client as c says.
func serveAnywhereAs(t *testing.T, dir string, c anywhereClient, roots ...string) (*harness, *mcp.Client) {
	t.Helper()
	served := repo.ServeNothingYet(testEnv(t), dir, repo.ErrNoRepository)
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test", Structured: true}
	s := New(served, cfg)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	opts := &mcp.ClientOptions{}
	if c.noRoots {
		opts.Capabilities = &mcp.ClientCapabilities{}
	}
	if c.manual {
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: cmp.Or(c.name, "test")}, opts)
	for _, r := range roots {
		client.AddRoots(rootOf(r))
	}
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: c.version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &harness{server: s, t: t, cs: cs, maxBytes: DefaultMaxBytes, outSchemas: advertisedOutputSchemas(t, cs)}, client
}

// rootOf is the MCP root of directory dir.
func rootOf(dir string) *mcp.Root { return &mcp.Root{URI: "file://" + filepath.ToSlash(dir)} }

// withOrigin is a repository with one commit and an origin remote that
// names it owner/name.
func withOrigin(t *testing.T, dir, url string) *testrepo.Repo {
	r := testrepo.Init(t, dir)
	r.Write("README", "hello from "+url+"\n")
	r.Commit("first")
	r.Git("remote", "add", "origin", url)
	return r
}

// Started outside any repository, with a client that gives no roots, the
// server runs, its instructions say nothing is served and how to serve
// something, and every tool answers with an error naming --repo, --root
// and the directory it was started in.
func TestStartedOutsideARepositoryEveryToolSaysHow(t *testing.T) {
	dir := t.TempDir()
	h, _ := serveAnywhere(t, dir)
	inst := h.cs.InitializeResult().Instructions
	for _, want := range []string{"Nothing is served yet", dir, "--repo", "--root", "MCP roots"} {
		if !strings.Contains(inst, want) {
			t.Errorf("instructions do not say %q:\n%s", want, inst)
		}
	}
	n := 0
	for tool, err := range h.cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		msg := h.fails(tool.Name, plausibleArgs(t, tool), "NOT_FOUND")
		for _, want := range []string{"no repository is served", "--repo", "--root", dir} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the error does not say %q: %s", tool.Name, want, msg)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d tools listed", n)
	}
}

// plausibleArgs fills a tool's required arguments with values that pass
// its checks, so that the call gets as far as the repository.
func plausibleArgs(t *testing.T, tool *mcp.Tool) map[string]any {
	t.Helper()
	data, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name]
		switch {
		case p == nil:
		case p.Type == "integer" || p.Type == "number":
			out[name] = 1
		case p.Type == "array":
			out[name] = []string{"main"}
		default:
			out[name] = "main"
		}
	}
	return out
}

// A client root that is a git repository is served as --repo serves one:
// the tools need no owner and repo.
func TestOneRootIsServedAsRepo(t *testing.T) {
	r := withOrigin(t, filepath.Join(t.TempDir(), "widgets"), "https://github.com/acme/widgets.git")
	h, _ := serveAnywhere(t, t.TempDir(), r.Dir)
	if got := h.ok("list_repositories", nil); !strings.Contains(got, "acme/widgets (work tree") {
		t.Fatalf("list_repositories:\n%s", got)
	}
	if got, want := h.ok("read_file", args("path", "README", "ref", "main")), r.Show("main", "README"); !strings.Contains(got, strings.TrimSpace(want)) {
		t.Fatalf("read_file README without owner and repo:\n%s\nwant %q", got, want)
	}
}

// Several roots that are repositories are served as --root serves them,
// each by its remote's name; a root that is no repository is skipped.
func TestSeveralRootsAreServedByRemoteName(t *testing.T) {
	base := t.TempDir()
	a := withOrigin(t, filepath.Join(base, "one"), "git@github.com:acme/alpha.git")
	b := withOrigin(t, filepath.Join(base, "two"), "https://gitlab.example.org/group/beta")
	h, _ := serveAnywhere(t, t.TempDir(), a.Dir, b.Dir, t.TempDir())
	got := h.ok("list_repositories", nil)
	if !strings.Contains(got, "2 repositories served") || !strings.Contains(got, "acme/alpha") || !strings.Contains(got, "group/beta") {
		t.Fatalf("list_repositories:\n%s", got)
	}
	for _, c := range []struct {
		owner, name string
		r           *testrepo.Repo
	}{{"acme", "alpha", a}, {"group", "beta", b}} {
		text := h.ok("read_file", args("owner", c.owner, "repo", c.name, "path", "README", "ref", "main"))
		if want := strings.TrimSpace(c.r.Show("main", "README")); !strings.Contains(text, want) {
			t.Errorf("%s/%s README:\n%s\nwant %q", c.owner, c.name, text, want)
		}
	}
	if msg := h.fails("read_file", args("path", "README"), "INVALID_ARGUMENT"); !strings.Contains(msg, "owner and repo are required") {
		t.Fatalf("no names with two repositories served: %s", msg)
	}
}

// When the client's roots change, the server serves the new ones: the
// call after the notification sees them.
func TestRootsChangedServesTheNewRoots(t *testing.T) {
	h, client := serveAnywhere(t, t.TempDir())
	h.fails("list_repositories", nil, "NOT_FOUND")
	r := withOrigin(t, filepath.Join(t.TempDir(), "widgets"), "https://github.com/acme/widgets.git")
	client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(r.Dir)})
	if got := h.ok("list_repositories", nil); !strings.Contains(got, "acme/widgets") {
		t.Fatalf("after roots/list_changed:\n%s", got)
	}
	client.RemoveRoots("file://" + filepath.ToSlash(r.Dir))
	if msg := h.fails("list_repositories", nil, "NOT_FOUND"); !strings.Contains(msg, "--repo") {
		t.Fatalf("after the root was removed: %s", msg)
	}
}

// A client on protocol 2026-07-28 (server/discover, no initialize) that
// declares roots has its repository served on its first tool call: the
// call is answered with an input-required result asking for roots/list,
// the SDK's client answers it and calls again, as Claude Code 2.1.332
// connects.
func TestRootsOfA20260728ClientServedOnItsFirstCall(t *testing.T) {
	r := withOrigin(t, filepath.Join(t.TempDir(), "widgets"), "https://github.com/acme/widgets.git")
	h, _ := serveAnywhereAs(t, t.TempDir(), anywhereClient{name: "claude-code"}, r.Dir)
	if v := h.cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("connected on %s, want 2026-07-28", v)
	}
	if got, want := h.ok("read_file", args("path", "README", "ref", "main")), r.Show("main", "README"); !strings.Contains(got, strings.TrimSpace(want)) {
		t.Fatalf("first call, read_file README:\n%s\nwant %q", got, want)
	}
	if got := h.ok("list_repositories", nil); !strings.Contains(got, "acme/widgets (work tree") {
		t.Fatalf("list_repositories:\n%s", got)
	}
}

// On the wire: the first call's result is input_required with one
// roots/list request and no content; the call again with the roots in
// inputResponses is answered; a later call is not asked again.
func TestRootsAskedInAToolResultOnTheWire(t *testing.T) {
	r := withOrigin(t, filepath.Join(t.TempDir(), "widgets"), "https://github.com/acme/widgets.git")
	h, _ := serveAnywhereAs(t, t.TempDir(), anywhereClient{manual: true})
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "read_file", Arguments: args("path", "README", "ref", "main")}
	res, err := h.cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || len(res.InputRequests) != 1 || len(res.Content) != 0 || res.IsError {
		t.Fatalf("first call: want input_required with one input request and no content, got %+v", res)
	}
	if _, ok := res.InputRequests[rootsKey].(*mcp.ListRootsParams); !ok {
		t.Fatalf("first call asks for %#v, want roots/list", res.InputRequests)
	}
	retry := *params
	retry.InputResponses = mcp.InputResponseMap{rootsKey: &mcp.ListRootsResult{Roots: []*mcp.Root{rootOf(r.Dir)}}}
	res, err = h.cs.CallTool(ctx, &retry)
	if err != nil {
		t.Fatal(err)
	}
	if res.NeedsInput() || res.IsError || !strings.Contains(textOf(res), "hello from") {
		t.Fatalf("called again with the roots: %+v %q", res, textOf(res))
	}
	if got := h.ok("list_repositories", nil); !strings.Contains(got, "acme/widgets") {
		t.Fatalf("a later call:\n%s", got)
	}
}

// Calls made while the roots are asked for wait for the answer: two first
// calls at once both see the repository.
func TestRootsCallsMeanwhileWaitForTheAnswer(t *testing.T) {
	r := withOrigin(t, filepath.Join(t.TempDir(), "widgets"), "https://github.com/acme/widgets.git")
	h, _ := serveAnywhereAs(t, t.TempDir(), anywhereClient{}, r.Dir)
	var wg sync.WaitGroup
	errs := make([]string, 4)
	for i := range errs {
		wg.Go(func() {
			res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_repositories"})
			switch {
			case err != nil:
				errs[i] = err.Error()
			case res.IsError || !strings.Contains(textOf(res), "acme/widgets"):
				errs[i] = textOf(res)
			}
		})
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("call %d: %s", i, e)
		}
	}
}

// Roots given on 2026-07-28 are held to the same rules: a root that is no
// repository, or not a local file:// directory, serves nothing, and the
// error names the roots given, why each is not served, and the fix.
func TestRootsOfA20260728ClientAreCheckedAsAny(t *testing.T) {
	dir := t.TempDir()
	plain := t.TempDir()
	h, client := serveAnywhereAs(t, dir, anywhereClient{})
	client.AddRoots(rootOf(plain), &mcp.Root{URI: "file://example.org/srv/repo"}, &mcp.Root{URI: "https://github.com/acme/widgets"})
	msg := h.fails("list_repositories", nil, "NOT_FOUND")
	for _, want := range []string{"none of the client's MCP roots is served: " + plain + ": not inside a git repository",
		`"file://example.org/srv/repo": not looked at: only a local file:// URI`, `"https://github.com/acme/widgets": not looked at`, "--repo", "--root", dir} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q: %s", want, msg)
		}
	}
}

// A client that does not answer is not asked again: the call again
// without the roots, and every later call, gets the error naming the fix;
// calls never wait longer than the wait for the answer.
func TestRootsUnansweredAreNotAskedAgain(t *testing.T) {
	ctx := context.Background()
	t.Run("called again without them", func(t *testing.T) {
		h, _ := serveAnywhereAs(t, t.TempDir(), anywhereClient{manual: true})
		params := &mcp.CallToolParams{Name: "list_repositories"}
		if res, err := h.cs.CallTool(ctx, params); err != nil || !res.NeedsInput() {
			t.Fatalf("first call: %v %+v", err, res)
		}
		retry := *params
		retry.InputResponses = mcp.InputResponseMap{"other": &mcp.ElicitResult{Action: "decline"}}
		res, err := h.cs.CallTool(ctx, &retry)
		if err != nil || res.NeedsInput() || !res.IsError || !strings.Contains(textOf(res), "no repository is served") {
			t.Fatalf("called again without roots: %v %+v", err, res)
		}
		h.fails("list_repositories", nil, "NOT_FOUND")
	})
	t.Run("never called again", func(t *testing.T) {
		h, _ := serveAnywhereAs(t, t.TempDir(), anywhereClient{manual: true})
		h.server.ask.wait = 200 * time.Millisecond
		if res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_repositories"}); err != nil || !res.NeedsInput() {
			t.Fatalf("first call: %v %+v", err, res)
		}
		start := time.Now()
		h.fails("list_repositories", nil, "NOT_FOUND") // waits for the answer, then gives up
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("the call waited %s", d)
		}
		h.fails("list_repositories", nil, "NOT_FOUND")
	})
}

// On 2026-07-28 a change of roots (notifications/roots/list_changed) is
// followed: the next call asks again.
func TestRootsChangedOn20260728AskAgain(t *testing.T) {
	h, client := serveAnywhereAs(t, t.TempDir(), anywhereClient{})
	h.fails("list_repositories", nil, "NOT_FOUND")
	r := withOrigin(t, filepath.Join(t.TempDir(), "widgets"), "https://github.com/acme/widgets.git")
	client.AddRoots(rootOf(r.Dir))
	// The notification is handled in order, before the next call.
	if got := h.ok("list_repositories", nil); !strings.Contains(got, "acme/widgets") {
		t.Fatalf("after roots/list_changed:\n%s", got)
	}
}

// A client without roots, on either protocol, gets the error naming the
// fix in that client, by its clientInfo.name; an unknown client gets
// --repo and --root.
func TestRootsNothingServedNamesTheClientsFix(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"claude-code", []string{"In Claude Code", "start claude inside the repository", "claude mcp add -s user repo-tools -- mcp-repo-tools serve --repo /path/to/repo", "--root"}},
		{"Visual Studio Code", []string{"In VS Code", "workspace folder", `"--repo", "/path/to/repo"`, "--root"}},
		{"cursor-vscode", []string{"In Cursor", "workspace", ".cursor/mcp.json", "--root"}},
		{"some-agent", []string{"Start it with --repo PATH", "--root DIR", "from inside a clone"}},
	} {
		for _, version := range []string{"", "2025-11-25"} {
			t.Run(c.name+" "+cmp.Or(version, "2026-07-28"), func(t *testing.T) {
				dir := t.TempDir()
				h, _ := serveAnywhereAs(t, dir, anywhereClient{version: version, name: c.name, noRoots: true})
				msg := h.fails("read_file", args("path", "README"), "NOT_FOUND")
				for _, want := range append(c.want, "no repository is served", dir) {
					if !strings.Contains(msg, want) {
						t.Errorf("the error does not say %q: %s", want, msg)
					}
				}
			})
		}
	}
}

// At most maxRoots roots of one answer are looked at: a repository named
// after them is not served.
func TestRootsPastTheMostLookedAtAreLeftOut(t *testing.T) {
	base := t.TempDir()
	var roots []string
	for i := range maxRoots {
		roots = append(roots, filepath.Join(base, fmt.Sprint(i)))
	}
	r := withOrigin(t, filepath.Join(t.TempDir(), "widgets"), "https://github.com/acme/widgets.git")
	h, _ := serveAnywhereAs(t, t.TempDir(), anywhereClient{}, append(roots, r.Dir)...)
	h.fails("list_repositories", nil, "NOT_FOUND")

	h, _ = serveAnywhereAs(t, t.TempDir(), anywhereClient{}, append(roots[1:], r.Dir)...)
	if got := h.ok("list_repositories", nil); !strings.Contains(got, "acme/widgets") {
		t.Fatalf("the %dth root:\n%s", maxRoots, got)
	}
}
