package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// serveAnywhere starts a server as `serve` does outside any repository
// (started in dir) and connects a go-sdk client that declares roots.
func serveAnywhere(t *testing.T, dir string, roots ...string) (*harness, *mcp.Client) {
	t.Helper()
	served := repo.ServeNothingYet(testEnv(t), dir)
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test", Structured: true}
	s := New(served, cfg)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	for _, r := range roots {
		client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(r)})
	}
	// Roots are asked for over an initialized session, as the clients that
	// offer them connect (2026-07-28 deprecates them).
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &harness{server: s, t: t, cs: cs, maxBytes: DefaultMaxBytes, outSchemas: advertisedOutputSchemas(t, cs)}, client
}

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
