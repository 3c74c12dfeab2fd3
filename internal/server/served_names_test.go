package server

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// With one repository under --root, no tool needs owner or repo: the
// forge-compatible tools take the one served, as the others do; with two,
// they say that owner and repo are required and where the names are.
func TestOneServedRepositoryNeedsNoNames(t *testing.T) {
	pr := newPRRepo(t)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_pull_request", map[string]any{"index": 7}},
		{"get_pull_request_diff", map[string]any{"index": 7, "file_path": "cmd/main.go"}},
		{"list_pull_request_files", map[string]any{"index": 7}},
		{"get_file_content", map[string]any{"filePath": "cmd/main.go"}},
	}
	for _, n := range []int{1, 2} {
		root := t.TempDir()
		for _, name := range []string{"acme/widgets", "acme/gadgets"}[:n] {
			copyRepo(t, pr.Repo, filepath.Join(root, filepath.FromSlash(name)))
		}
		served, err := repo.ServeRoot(testEnv(t), root, repo.RootOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(served.Close)
		cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test"}
		h := connectClient(t, New(served, cfg), nil, cfg.MaxBytes)
		for _, c := range calls {
			res := h.call(c.tool, c.args)
			got := textOf(res)
			if n == 1 {
				named := map[string]any{"owner": "acme", "repo": "widgets"}
				for k, v := range c.args {
					named[k] = v
				}
				if want := h.ok(c.tool, named); res.IsError || got != want {
					t.Errorf("one repository: %s %v gives\n%.400s\nwith its names\n%.400s", c.tool, c.args, got, want)
				}
				continue
			}
			want := "INVALID_ARGUMENT: owner and repo are required: 2 repositories are served; list_repositories lists them"
			if !res.IsError || got != want {
				t.Errorf("two repositories: %s %v gives %q, want %q", c.tool, c.args, got, want)
			}
		}
	}
	// The schemas do not require them.
	for _, d := range registry {
		in, _, err := d.schemas()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range in.Required {
			if r == "owner" || r == "repo" {
				t.Errorf("%s requires %s", d.Name(), r)
			}
		}
	}
}

// A forge that holds one repository needs no names either: the tools that
// answer from its API take that one.
func TestOneForgeRepositoryNeedsNoNames(t *testing.T) {
	f := forgetest.New(t)
	f.API = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/repos/acme/widgets/raw/README.md" {
			_, _ = io.WriteString(w, "hello\n")
			return
		}
		http.NotFound(w, r)
	}
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	if got := h.ok("get_file_content", map[string]any{"filePath": "README.md"}); got != "hello\n" {
		t.Errorf("got %q", got)
	}
	f.Listed = []string{"acme/gadgets"}
	h, _ = serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	msg := h.fails("get_file_content", map[string]any{"filePath": "README.md"}, "INVALID_ARGUMENT")
	if !strings.Contains(msg, "owner and repo are required: 2 repositories are served; list_repositories lists them") {
		t.Errorf("two repositories on the forge: %q", msg)
	}
}
