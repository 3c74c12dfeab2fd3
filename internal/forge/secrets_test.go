package forge

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
)

// Finding 11 (issue 11): an API error body that echoes the request was
// returned verbatim, token included; --forge http://admin:P4SSW0RD@host
// logged the password and quoted it in errors; ref ".." went out as
// /git/commits/...

// Every method of the client, against a forge that echoes each request
// (headers, URL, body) in its error bodies, whatever the status.
func TestEchoingForgeNeverLeaksTheToken(t *testing.T) {
	f := forgetest.New(t)
	c, err := New(context.Background(), f.URL, secretToken)
	if err != nil {
		t.Fatal(err)
	}
	m := newMirrorsIn(t, f, 0, t.TempDir(), Limits{})
	ctx := context.Background()
	for _, status := range []int32{400, 401, 403, 404, 409, 422, 429, 500, 502} {
		f.EchoAPI.Store(status)
		errs := map[string]error{}
		_, errs["Repo"] = c.Repo(ctx, "acme", "widgets")
		_, errs["PullDiff"] = c.PullDiff(ctx, "acme", "widgets", 1)
		_, errs["Contents"] = c.Contents(ctx, "acme", "widgets", "README.md", "main")
		_, errs["Raw"] = c.Raw(ctx, "acme", "widgets", "README.md", "main")
		_, _, errs["PullFiles"] = c.PullFiles(ctx, "acme", "widgets", 1, 1, 10)
		_, errs["Pull"] = c.Pull(ctx, "acme", "widgets", 1)
		_, errs["ResolveRef"] = c.ResolveRef(ctx, "acme", "widgets", "main")
		_, _, errs["ReposPage"] = c.ReposPage(ctx, 0, 1)
		_, errs["Repos"] = c.Repos(ctx)
		_, errs["Mirrors.Open"] = m.Open(ctx, "acme", "widgets", true)
		_, errs["Mirrors.List"] = m.List(ctx)
		_, errs["New"] = New(ctx, f.URL, secretToken) // /version answers; nothing to echo
		for what, err := range errs {
			if err != nil && strings.Contains(err.Error(), secretToken) {
				t.Errorf("%d: %s leaks the token: %v", status, what, err)
			}
		}
		// The echo did reach the message, scrubbed: the test tests something.
		if status != 429 && !strings.Contains(errs["Pull"].Error(), "token [token]") {
			t.Errorf("%d: the forge's echo is not quoted (scrubbed): %v", status, errs["Pull"])
		}
	}
}

// git's stderr on a fetch goes through the same scrubber.
func TestGitStderrOnFetchIsScrubbed(t *testing.T) {
	f := forgetest.New(t)
	m, _ := newMirrors(t, f, 0)
	f.EchoGit.Store(true)
	_, err := m.Open(context.Background(), "acme", "widgets", false)
	if err == nil || strings.Contains(err.Error(), secretToken) || !strings.Contains(err.Error(), "[token]") {
		t.Fatalf("a fetch whose remote echoes the request: %v", err)
	}
	// A stale copy's note too.
	f.EchoGit.Store(false)
	if _, err := m.Open(context.Background(), "acme", "widgets", false); err != nil {
		t.Fatal(err)
	}
	f.EchoGit.Store(true)
	m.MinRefresh = 0
	o, err := m.Open(context.Background(), "acme", "widgets", true)
	if err != nil || o.Stale == nil || strings.Contains(o.Stale.Error(), secretToken) || !strings.Contains(o.Stale.Error(), "[token]") {
		t.Fatalf("stale note: %v, %v", o.Stale, err)
	}
}

func TestScrubber(t *testing.T) {
	s := newScrubber("to ken/+&")
	for in, want := range map[string]string{
		"sent to ken/+&!":                           "sent [token]!",
		"sent to+ken%2F%2B%26":                      "sent [token]",
		"stderr cut at 8 KiB: to ken/":              "stderr cut at 8 KiB: [token]",
		"http://admin:P4SSW0RD@host/x and more":     "http://[credentials]@host/x and more",
		"clone https://user@host.example/a.git":     "clone https://[credentials]@host.example/a.git",
		"nothing secret in git@host:owner/repo.git": "nothing secret in git@host:owner/repo.git",
	} {
		if got := s.String(in); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
	err := s.Err(errcode.New(errcode.NotFound, "no to ken/+& here"))
	if errcode.Of(err) != errcode.NotFound || err.Error() != "NOT_FOUND: no [token] here" {
		t.Errorf("coded error: %v", err)
	}
	wrapped := s.Err(fmt.Errorf("the mirror is stale: %w", errcode.New(errcode.Unavailable, "git said to ken/+&")))
	if errcode.Of(wrapped) != errcode.Unavailable || wrapped.Error() != "the mirror is stale: UNAVAILABLE: git said [token]" ||
		errcode.Message(wrapped) != "UNAVAILABLE: git said [token]" {
		t.Errorf("wrapped coded error: %v / %s", wrapped, errcode.Message(wrapped))
	}
	plain := context.Canceled
	if s.Err(plain) != plain {
		t.Error("an error with nothing to scrub must stay itself")
	}
}

func TestForgeURLWithCredentialsIsRefused(t *testing.T) {
	var requests atomic.Int32
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) { requests.Add(1) })
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, u := range []string{
		"http://admin:P4SSW0RD@" + host,
		"http://P4SSW0RD@" + host,
		"http://" + host + "/?access_token=P4SSW0RD",
		"http://" + host + "/#P4SSW0RD",
	} {
		_, err := New(context.Background(), u, "")
		if err == nil || strings.Contains(err.Error(), "P4SSW0RD") || !strings.Contains(err.Error(), "--token") {
			t.Errorf("%s: %v", strings.ReplaceAll(u, "P4SSW0RD", "…"), err)
		}
		if err := CheckURL(u); err == nil || strings.Contains(err.Error(), "P4SSW0RD") {
			t.Errorf("CheckURL: %v", err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("%d requests went out with credentials in the URL", n)
	}
	if err := CheckURL("https://codeberg.org/"); err != nil {
		t.Fatal(err)
	}
}

func TestRefsArePathEscapedAndDotSegmentsRefused(t *testing.T) {
	var seen atomic.Value
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.RequestURI)
		fmt.Fprint(w, `{"sha":"0123456789abcdef0123456789abcdef01234567"}`)
	})
	c, err := New(context.Background(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"..", ".", "", "a//b", "a/../b", "../x", "x/.", "/main", "main/"} {
		seen.Store("")
		_, err := c.ResolveRef(context.Background(), "acme", "widgets", ref)
		if errcode.Of(err) != errcode.InvalidRef {
			t.Errorf("ref %q: %v", ref, err)
		}
		if uri := seen.Load().(string); uri != "" {
			t.Errorf("ref %q reached the forge as %s", ref, uri)
		}
	}
	for ref, want := range map[string]string{
		"feature/x":  "/api/v1/repos/acme/widgets/git/commits/feature%2Fx?",
		"v1.0":       "/api/v1/repos/acme/widgets/git/commits/v1.0?",
		"a?b#c %":    "/api/v1/repos/acme/widgets/git/commits/a%3Fb%23c%20%25?",
		"..foo":      "/api/v1/repos/acme/widgets/git/commits/..foo?",
		"HEAD~1^{/}": "/api/v1/repos/acme/widgets/git/commits/HEAD~1%5E%7B%2F%7D?",
	} {
		if _, err := c.ResolveRef(context.Background(), "acme", "widgets", ref); err != nil {
			t.Errorf("ref %q: %v", ref, err)
		}
		if uri := seen.Load().(string); !strings.HasPrefix(uri, want) {
			t.Errorf("ref %q went out as %s, want %s…", ref, uri, want)
		}
	}
	// Paths too: no dot segments in /contents or /raw.
	for _, p := range []string{"..", "a/../b", "a//b", "./x"} {
		seen.Store("")
		if _, err := c.Raw(context.Background(), "acme", "widgets", p, ""); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("raw %q: %v", p, err)
		}
		if _, err := c.Contents(context.Background(), "acme", "widgets", p, ""); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("contents %q: %v", p, err)
		}
		if uri := seen.Load().(string); uri != "" {
			t.Errorf("path %q reached the forge as %s", p, uri)
		}
	}
}
