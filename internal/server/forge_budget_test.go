package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// A pull request's diff costs the same calls and bytes through a forge as
// from git, as every client: the forge's diff is a stream that can be read
// only from its start, and its parts were once read with room kept for
// the longest notes any part could have (15,000 bytes), which at an
// 8,000-byte client left a part 256 bytes of patch: the acceptance
// fixture's 1,458-byte pull request came in 10 parts, one locally.
func TestForgeDiffSizedAsLocal(t *testing.T) {
	f := forgetest.New(t)
	r := f.Repo
	var long strings.Builder
	for i := range 400 {
		fmt.Fprintf(&long, "line %d \"quoted\"\ttab 日本語\n", i)
	}
	r.Write("long.txt", long.String())
	for i := range 6 {
		r.Write(fmt.Sprintf("cmd/f%d.go", i), fmt.Sprintf("package main\n\n// f%d\nfunc f%d() int { return %d }\n", i, i, i))
	}
	r.Commit("base of seven")
	base := strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	r.Git("checkout", "-q", "-b", "seven")
	r.Write("long.txt", strings.ReplaceAll(long.String(), "tab", "TAB"))
	for i := range 6 {
		r.Write(fmt.Sprintf("cmd/f%d.go", i), fmt.Sprintf("package main\n\n// f%d, changed\nfunc f%d() int { return %d }\n", i, i, i+1))
	}
	head := r.Commit("seven")
	r.Git("update-ref", "refs/pull/7/head", head)
	r.Git("checkout", "-q", "main")
	r.Git("push", "-q", "-f", f.Bare, "main", "seven", "refs/pull/*:refs/pull/*")
	// The forge serves git's diff of the pull request, as Gitea does.
	diffCalls := 0
	f.API = func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/api/v1/repos/acme/widgets/pulls/7":
			fmt.Fprintf(w, `{"number":7,"title":"Seven","state":"open","base":{"ref":"main","sha":%q},"head":{"ref":"seven","sha":%q},"merge_base":%q}`, base, head, base)
		case "/api/v1/repos/acme/widgets/pulls/7.diff":
			diffCalls++
			_, _ = io.WriteString(w, r.Git("diff", "-M", base, head))
		default:
			http.NotFound(w, req)
		}
	}
	local := func(name string) *harness {
		served, err := repo.ServeOne(context.Background(), testEnv(t), r.Dir, "acme/widgets")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(served.Close)
		cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test", Structured: true}
		cfg.Clients = clients.NewTable(cfg.MaxBytes, nil)
		return connectAs(t, New(served, cfg), r, cfg.MaxBytes, name)
	}
	fc, err := forge.New(context.Background(), f.URL, "tok")
	if err != nil {
		t.Fatal(err)
	}
	mirrors, err := forge.NewMirrors(fc, testEnv(t), t.TempDir(), time.Hour, forge.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	forged := repo.ServeSource(testEnv(t), mirrors)
	t.Cleanup(forged.Close)
	remote := func(name string) *harness {
		cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test", Forge: fc, Structured: true}
		cfg.Clients = clients.NewTable(cfg.MaxBytes, nil)
		return connectAs(t, New(forged, cfg), r, cfg.MaxBytes, name)
	}
	names := []string{"a client nobody knows"}
	for _, rule := range clients.Known {
		names = append(names, rule.Names[0])
	}
	want := r.Git("diff", "-M", base, head)
	for _, name := range names {
		for _, a := range []map[string]any{prArgs(7), prArgs(7, "file_path", "long.txt")} {
			here := drainResults(t, local(name), "get_pull_request_diff", a)
			calls := diffCalls
			there := drainResults(t, remote(name), "get_pull_request_diff", a)
			calls = diffCalls - calls
			if len(here) != len(there) {
				t.Errorf("%s, %v: %d parts locally, %d through the forge", name, a, len(here), len(there))
				continue
			}
			var patches []string
			for i := range here {
				h, f := withoutNextCall(textOf(here[i])), withoutNextCall(textOf(there[i]))
				if h != f {
					t.Errorf("%s, %v, part %d differs:\nlocally:\n%s\nthrough the forge:\n%s", name, a, i+1, h, f)
				}
				patches = append(patches, patchOf(textOf(there[i])))
			}
			if a["file_path"] == nil {
				checkJoined(t, patches, asShown(want))
			}
			// Each part reads the forge's diff once, or again only
			// past what the call keeps of it.
			if calls > 2*len(there) {
				t.Errorf("%s, %v: %d parts read the forge's diff %d times", name, a, len(there), calls)
			}
		}
	}
}

// withoutNextCall is a part's text without its last line when that says
// the next call: the cursors of two servers differ.
func withoutNextCall(s string) string {
	if i := strings.LastIndex(strings.TrimSuffix(s, "\n"), "\n"); i >= 0 && strings.HasPrefix(s[i+1:], "[partial reply]") {
		return s[:i+1]
	}
	return s
}
