package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// serveForge serves a forge's repositories, as serve --forge does; r holds
// the same history as the forge's acme/widgets.
func serveForge(t *testing.T, url, token string, r *testrepo.Repo, timeout, ttl time.Duration) (*harness, *forge.Mirrors) {
	t.Helper()
	env := testEnv(t)
	fc, err := forge.New(context.Background(), url, token)
	if err != nil {
		t.Fatal(err)
	}
	mirrors, err := forge.NewMirrors(fc, env, t.TempDir(), ttl)
	if err != nil {
		t.Fatal(err)
	}
	served := repo.ServeSource(env, mirrors)
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: timeout, Policy: mustPolicy(nil), Version: "test", Forge: fc}
	return connectClient(t, New(served, cfg), r, cfg.MaxBytes), mirrors
}

func TestForgeFaults(t *testing.T) {
	f := forgetest.New(t)
	release := make(chan struct{})
	defer close(release)
	f.API = func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/repos/acme/widgets/pulls/1.diff": // slow
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "/api/v1/repos/acme/widgets/pulls/2.diff":
			http.Error(w, `{"message":"boom"}`, http.StatusInternalServerError)
		case "/api/v1/repos/acme/widgets/pulls/3.diff":
			http.Error(w, `{"message":"slow down"}`, http.StatusTooManyRequests)
		case "/api/v1/repos/acme/widgets/pulls/4.diff":
			http.Error(w, `{"message":"token expired"}`, http.StatusUnauthorized)
		default:
			http.NotFound(w, r)
		}
	}
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 500*time.Millisecond, time.Hour)
	start := time.Now()
	h.fails("get_pull_request_diff", prArgs(1), "UNAVAILABLE")
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("a slow forge held the call for %v past its 500 ms deadline", d)
	}
	h.fails("get_pull_request_diff", prArgs(2), "UNAVAILABLE")
	h.fails("get_pull_request_diff", prArgs(3), "UNAVAILABLE")
	h.fails("get_pull_request_diff", prArgs(4), "PERMISSION_DENIED")
	h.fails("get_pull_request_diff", prArgs(5), "NOT_FOUND")
	f.Down.Store(true)
	h.fails("get_file_content", fileArgs("README.md"), "UNAVAILABLE")
}

// When the forge fails, a mirror fetched before still serves, and the
// reply says how stale it is.
func TestStaleMirrorIsServedWithANote(t *testing.T) {
	f := forgetest.New(t)
	h, mirrors := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Nanosecond) // every call refreshes
	mirrors.MinRefresh = 0
	if text := h.ok("read_file", args("owner", "acme", "repo", "widgets", "path", "README.md", "ref", "main")); strings.Contains(text, "[note:") {
		t.Fatalf("a fresh mirror is noted: %q", text)
	}
	f.Down.Store(true)
	text := h.ok("read_file", args("owner", "acme", "repo", "widgets", "path", "topic.txt", "ref", "topic"))
	if !strings.Contains(text, "topic") || !strings.Contains(text, "[note: the mirror of acme/widgets was last refreshed") {
		t.Fatalf("read through the stale mirror: %q", text)
	}
	// An error says the mirror is stale too: the ref may exist on the forge.
	msg := h.fails("read_file", args("owner", "acme", "repo", "widgets", "path", "README.md", "ref", "no-such"), "INVALID_REF")
	if !strings.Contains(msg, "(note: the mirror of acme/widgets was last refreshed") {
		t.Fatalf("error without the stale note: %s", msg)
	}
}

// What the secrets policy hides stays hidden when the forge answers:
// a rename from .env selected by its new name, and .env in a listing.
func TestForgeSecretsStayHidden(t *testing.T) {
	f := forgetest.New(t)
	f.API = func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/repos/acme/widgets/pulls/1.diff":
			io.WriteString(w, "diff --git a/.env b/config.txt\nsimilarity index 90%\nrename from .env\nrename to config.txt\n"+
				"--- a/.env\n+++ b/config.txt\n@@ -1 +1 @@\n-TOKEN=hunter2\n+TOKEN=hunter3\n"+
				"diff --git a/ok.txt b/ok.txt\n--- a/ok.txt\n+++ b/ok.txt\n@@ -1 +1 @@\n-a\n+b\n")
		case "/api/v1/repos/acme/widgets/contents":
			io.WriteString(w, `[{"name":".env","path":".env","type":"file"},{"name":"ok.txt","path":"ok.txt","type":"file","url":"http://x/?a=1&b=<2>"}]`)
		default:
			http.NotFound(w, r)
		}
	}
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	if msg := h.fails("get_pull_request_diff", prArgs(1, "file_path", "config.txt"), "PATH_DENIED"); strings.Contains(msg, "hunter") {
		t.Fatalf("secret in %q", msg)
	}
	h.fails("get_pull_request_diff", prArgs(1), "PATH_DENIED")
	if got := h.ok("get_pull_request_diff", prArgs(1, "file_path", "ok.txt")); !strings.Contains(got, "+b") {
		t.Fatalf("ok.txt: %q", got)
	}
	listing := h.ok("get_file_content", fileArgs("", "with_metadata", true))
	if listing != `[{"name":"ok.txt","path":"ok.txt","type":"file","url":"http://x/?a=1&b=<2>"}]` {
		t.Fatalf("listing: %s", listing)
	}
}
