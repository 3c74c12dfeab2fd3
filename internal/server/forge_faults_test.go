package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	h, mirrors, _ := serveForgeWith(t, url, token, r, timeout, ttl, forge.Limits{}, nil)
	return h, mirrors
}

// serveForgeWith also bounds the mirror cache and logs to log (nil: not
// at all); it returns the cache directory too.
func serveForgeWith(t testing.TB, url, token string, r *testrepo.Repo, timeout, ttl time.Duration, limits forge.Limits, log io.Writer, opts ...option) (*harness, *forge.Mirrors, string) {
	t.Helper()
	return serveForgeTo(t, "test", url, token, r, timeout, ttl, limits, log, opts...)
}

// serveForgeTo is serveForgeWith to a client that calls itself name.
func serveForgeTo(t testing.TB, name, url, token string, r *testrepo.Repo, timeout, ttl time.Duration, limits forge.Limits, log io.Writer, opts ...option) (*harness, *forge.Mirrors, string) {
	t.Helper()
	env := testEnv(t)
	fc, err := forge.New(context.Background(), url, token)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mirrors, err := forge.NewMirrors(fc, env, dir, ttl, limits)
	if err != nil {
		t.Fatal(err)
	}
	served := repo.ServeSource(env, mirrors)
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: timeout, Policy: mustPolicy(nil), Version: "test", Forge: fc, Structured: true}
	if log != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	for _, o := range opts {
		o(&cfg)
	}
	return connectAs(t, New(served, cfg), r, cfg.MaxBytes, name), mirrors, dir
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
		case "/api/v1/repos/acme/widgets/pulls/1":
			io.WriteString(w, `{"head":{"sha":"`+strings.Repeat("b", 40)+`"},"base":{"sha":"`+strings.Repeat("a", 40)+`"},"merge_base":"`+strings.Repeat("c", 40)+`"}`)
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
	// The whole diff leaves the rename from .env out and says so.
	if whole := h.ok("get_pull_request_diff", prArgs(1)); strings.Contains(whole, "hunter") || !strings.Contains(whole, "[hidden by the server's secrets policy: config.txt (renamed from a hidden path)]") || !strings.Contains(whole, "+b") {
		t.Fatalf("whole diff: %q", whole)
	}
	if got := h.ok("get_pull_request_diff", prArgs(1, "file_path", "ok.txt")); !strings.Contains(got, "+b") {
		t.Fatalf("ok.txt: %q", got)
	}
	listing := h.ok("get_file_content", fileArgs("", "with_metadata", true))
	if listing != `[{"name":"ok.txt","path":"ok.txt","type":"file","url":"http://x/?a=1&b=<2>"}]` {
		t.Fatalf("listing: %s", listing)
	}
}

// Finding 11 (issue 11): secrets of the forge. A forge (or a proxy in
// front of it) that echoes each request, headers and all, in its error
// bodies: no reply, error, note or log line carries the token, whatever
// the tool and the status; the echo itself does arrive, scrubbed.
func TestForgeSecretsNeverLeakFromAnEchoingForge(t *testing.T) {
	const token = "TOPSECRETTOKEN"
	f := forgetest.New(t)
	var log bytes.Buffer
	h, mirrors, _ := serveForgeWith(t, f.URL, token, f.Repo, 30*time.Second, time.Nanosecond, forge.Limits{}, &log)
	mirrors.MinRefresh = 0 // every call refreshes its mirror
	h.ok("read_file", args("owner", "acme", "repo", "widgets", "path", "README.md", "ref", "main"))
	repoArgs := func(kv ...any) map[string]any {
		return args(append([]any{"owner", "acme", "repo", "widgets"}, kv...)...)
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"list_repositories", args("limit", 1)},
		{"get_pull_request_diff", prArgs(1)},
		{"get_pull_request_diff", prArgs(1, "file_path", "README.md")},
		{"list_pull_request_files", prArgs(1)},
		{"get_file_content", fileArgs("README.md")},
		{"get_file_content", fileArgs("README.md", "ref", "main")},
		{"get_file_content", fileArgs("", "with_metadata", true)},
		{"read_file", repoArgs("path", "README.md", "ref", "main")},
		{"get_diff", repoArgs("base", "main", "head", "topic")},
		{"list_changed_files", repoArgs("base", "main", "head", "topic")},
		{"search_code", repoArgs("query", "hello")},
		{"list_commits", repoArgs("index", 1)}, // the forge's pull request, read in the mirror
		{"read_file", args("owner", "acme", "repo", "nothere", "path", "README.md")},
		{"read_file", args("path", "README.md")}, // "owner and repo are required (what is served)"
	}
	echoed := 0
	check := func(when string) {
		for _, c := range calls {
			res := h.call(c.tool, c.args)
			data, _ := json.Marshal(res)
			if bytes.Contains(data, []byte(token)) {
				t.Errorf("%s: %s(%v) leaks the token: %s", when, c.tool, c.args, data)
			}
			echoed += bytes.Count(data, []byte("token [token]"))
		}
	}
	for _, status := range []int32{400, 401, 403, 404, 422, 500, 502} {
		f.EchoAPI.Store(status)
		check(fmt.Sprintf("API echoing with %d", status))
	}
	// git's stderr: the forge's API answers, its git server echoes.
	f.EchoAPI.Store(0)
	f.EchoGit.Store(true)
	check("git echoing")
	msg := h.fails("read_file", repoArgs("path", "README.md", "ref", "no-such-ref"), "INVALID_REF")
	if !strings.Contains(msg, "remote error: you sent") || !strings.Contains(msg, "token [token]") {
		t.Errorf("the stale note does not quote git's stderr, scrubbed: %s", msg)
	}
	if echoed == 0 {
		t.Fatal("no reply quoted the forge's echo: the test tests nothing")
	}
	if strings.Contains(log.String(), token) {
		t.Errorf("the log carries the token:\n%s", log.String())
	}
}

// Finding 11: credentials in the --forge URL were logged at info level and
// quoted in every "owner and repo are required (…)" error. They are refused
// before any request, pointing to --token.
func TestForgeURLCredentialsAreRefused(t *testing.T) {
	f := forgetest.New(t)
	withPassword := strings.Replace(f.URL, "http://", "http://admin:P4SSW0RD@", 1)
	_, err := forge.New(context.Background(), withPassword, "")
	if err == nil || strings.Contains(err.Error(), "P4SSW0RD") || !strings.Contains(err.Error(), "--token") {
		t.Fatalf("--forge with credentials: %v", err)
	}
	if n := f.APICalls("/api/v1/version"); n != 0 {
		t.Fatalf("%d requests were made with the credentials", n)
	}
	// Served without them, what errors say of the forge is clean.
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	// One repository needs no name; a name that is not served is an error
	// that names what is.
	h.ok("read_file", args("path", "README.md"))
	msg := h.fails("read_file", args("owner", "acme", "repo", "nope", "path", "README.md"), "NOT_FOUND")
	if strings.Contains(msg, "@") || strings.Contains(msg, "P4SSW0RD") {
		t.Fatalf("%s", msg)
	}
}

// Finding 11: a forge ref=".." was sent as the path segment /git/commits/..
// (which the forge resolves to another endpoint). Refs with an empty, "."
// or ".." segment are refused before any request; others are one escaped
// segment.
func TestForgeRefDotSegmentsAreRefused(t *testing.T) {
	f := forgetest.New(t)
	var commits []string
	var mu sync.Mutex
	f.API = func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		commits = append(commits, r.RequestURI)
		mu.Unlock()
		http.NotFound(w, r)
	}
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	for _, ref := range []string{"..", ".", "a/../b", "a//b", "main/", "../../../version"} {
		msg := h.fails("get_file_content", fileArgs("README.md", "ref", ref), "INVALID_REF")
		if !strings.Contains(msg, "segment") {
			t.Errorf("ref %q: %s", ref, msg)
		}
	}
	h.fails("get_file_content", fileArgs("README.md", "ref", "feature/x"), "INVALID_REF")
	mu.Lock()
	defer mu.Unlock()
	if len(commits) != 1 || !strings.HasPrefix(commits[0], "/api/v1/repos/acme/widgets/git/commits/feature%2Fx?") {
		t.Fatalf("requests: %q", commits)
	}
}

// Finding 12 (issue 11): one list_repositories limit=1 walked the forge's
// whole listing: 100 API calls for 5,000 repositories, on every call. Now
// a page costs the forge's pages that hold it, once per TTL.
func TestForgeListRepositoriesCostsItsPage(t *testing.T) {
	f := forgetest.New(t)
	for i := 0; i < 4999; i++ {
		f.Listed = append(f.Listed, fmt.Sprintf("many/r%04d", i))
	}
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	calls := func() int { return f.APICalls("/api/v1/repos/search") }
	var out listRepositoriesOut
	h.structured("list_repositories", args("limit", 1), &out)
	if out.Total != 5000 || len(out.Repositories) != 1 || out.Repositories[0].Owner != "acme" || out.NextOffset == nil || *out.NextOffset != 1 {
		t.Fatalf("%+v", out)
	}
	if n := calls(); n != 1 {
		t.Fatalf("list_repositories limit=1: %d API calls, want 1", n)
	}
	h.structured("list_repositories", args("limit", 1), &out)
	h.structured("list_repositories", args("offset", 10, "limit", 20), &out)
	if n := calls(); n != 1 {
		t.Fatalf("within the TTL, the same page: %d API calls, want 1", n)
	}
	h.structured("list_repositories", args("offset", 4990, "limit", 100), &out)
	if len(out.Repositories) != 10 || out.Repositories[9].Name != "r4998" || out.NextOffset != nil {
		t.Fatalf("last page: %+v", out)
	}
	if n := calls(); n != 2 {
		t.Fatalf("the last page: %d API calls in all, want 2", n)
	}
}

// Finding 12: mirrors had no cap and no eviction. With a cap of one
// mirror, reading a second repository evicts the first once its call has
// ended; reading the first again fetches it again and reads it (through
// the same sandboxed repository as before).
func TestForgeMirrorCacheIsBounded(t *testing.T) {
	f := forgetest.New(t)
	f.AddRepo("acme", "gadgets")
	h, _, dir := serveForgeWith(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour, forge.Limits{MaxRepos: 1}, nil)
	read := func(name string) {
		t.Helper()
		if text := h.ok("read_file", args("owner", "acme", "repo", name, "path", "README.md", "ref", "main")); !strings.Contains(text, "hello") {
			t.Fatalf("read_file %s: %q", name, text)
		}
	}
	host := strings.ReplaceAll(strings.TrimPrefix(f.URL, "http://"), ":", "_")
	mirror := func(name string) string { return filepath.Join(dir, host, "acme", name+".git") }
	mirrored := func(name string) bool { _, err := os.Stat(filepath.Join(mirror(name), "HEAD")); return err == nil }
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out: %s", what)
			}
		}
	}
	read("widgets")
	if !mirrored("widgets") {
		t.Fatalf("no mirror at %s", mirror("widgets"))
	}
	read("gadgets")
	waitFor("widgets evicted", func() bool { return !mirrored("widgets") })
	if !mirrored("gadgets") {
		t.Fatal("the mirror just read was evicted instead")
	}
	before := f.Fetches.Load()
	read("widgets")
	if f.Fetches.Load() == before {
		t.Fatal("the evicted mirror was read without being fetched again")
	}
	waitFor("gadgets evicted", func() bool { return !mirrored("gadgets") })
	read("widgets") // within the TTL: no fetch, still there
	if !mirrored("widgets") {
		t.Fatal("the mirror in use was evicted")
	}
}
