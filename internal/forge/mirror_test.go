package forge

import (
	"context"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// gitForge is a fake forge whose API answers version and repository queries
// and which serves git over HTTP with git http-backend, as a forge does.
type gitForge struct {
	srv      *httptest.Server
	down     atomic.Bool  // answer 503 to everything
	fetches  atomic.Int32 // info/refs requests: one per fetch
	authSeen atomic.Value // Authorization header of the last git request
}

func newGitForge(t *testing.T) *gitForge {
	t.Helper()
	r := testrepo.New(t)
	r.Write("README.md", "hello\n")
	r.Commit("one")
	r.Git("checkout", "-q", "-b", "topic")
	r.Write("topic.txt", "topic\n")
	r.Git("update-ref", "refs/pull/1/head", r.Commit("topic"))
	r.Git("checkout", "-q", "main")
	root := t.TempDir()
	r.CloneBare(filepath.Join(root, "acme", "widgets.git"))
	// The bare clone has no refs/pull: push them as a forge keeps them.
	r.Git("push", "-q", filepath.Join(root, "acme", "widgets.git"), "refs/pull/*:refs/pull/*")

	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	f := &gitForge{}
	backend := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"}, Env: []string{
		"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if f.down.Load() {
			http.Error(w, `{"message":"down"}`, http.StatusServiceUnavailable)
			return
		}
		switch {
		case req.URL.Path == "/api/v1/version":
			io.WriteString(w, `{"version":"1.26.0"}`)
		case req.URL.Path == "/api/v1/repos/acme/widgets":
			io.WriteString(w, `{"full_name":"acme/widgets","clone_url":"`+f.srv.URL+`/git/acme/widgets.git","default_branch":"main"}`)
		case strings.HasPrefix(req.URL.Path, "/git/"):
			if strings.HasSuffix(req.URL.Path, "/info/refs") {
				f.fetches.Add(1)
			}
			f.authSeen.Store(req.Header.Get("Authorization"))
			http.StripPrefix("/git", backend).ServeHTTP(w, req)
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func newMirrors(t *testing.T, f *gitForge, ttl time.Duration) (*Mirrors, string) {
	t.Helper()
	c, err := New(context.Background(), f.srv.URL, secretToken)
	if err != nil {
		t.Fatal(err)
	}
	env, err := git.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	dir := t.TempDir()
	m, err := NewMirrors(c, env, dir, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return m, dir
}

func TestMirrorFetchesBranchesTagsAndPullRefs(t *testing.T) {
	f := newGitForge(t)
	m, dir := newMirrors(t, f, time.Hour)
	o, err := m.Open(context.Background(), "acme", "widgets", false)
	if err != nil || o.Stale != nil {
		t.Fatalf("Open: %+v, %v", o, err)
	}
	refs := gitOut(t, o.GitDir, "for-each-ref", "--format=%(refname)")
	for _, want := range []string{"refs/heads/main", "refs/heads/topic", "refs/pull/1/head"} {
		if !strings.Contains(refs, want+"\n") {
			t.Errorf("mirror lacks %s:\n%s", want, refs)
		}
	}
	if head := gitOut(t, o.GitDir, "symbolic-ref", "HEAD"); head != "refs/heads/main\n" {
		t.Errorf("HEAD = %q", head)
	}
	// The token went as a header, and is written nowhere on disk.
	if got, _ := f.authSeen.Load().(string); got != "token "+secretToken {
		t.Errorf("git sent Authorization %q", got)
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<20 {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), secretToken) {
				t.Errorf("the token is written in %s", p)
			}
		}
		return nil
	})
	// Within the TTL, no second fetch.
	before := f.fetches.Load()
	if _, err := m.Open(context.Background(), "acme", "widgets", false); err != nil || f.fetches.Load() != before {
		t.Fatalf("second Open fetched again (%d → %d), %v", before, f.fetches.Load(), err)
	}
}

func TestMirrorConcurrentCallsShareOneFetch(t *testing.T) {
	f := newGitForge(t)
	m, _ := newMirrors(t, f, time.Nanosecond)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := m.Open(context.Background(), "acme", "widgets", false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := f.fetches.Load(); n > 2 {
		t.Fatalf("16 concurrent calls made %d fetches", n)
	}
}

func TestStaleMirrorServesWhenTheForgeFails(t *testing.T) {
	f := newGitForge(t)
	m, _ := newMirrors(t, f, time.Hour)
	o, err := m.Open(context.Background(), "acme", "widgets", false)
	if err != nil {
		t.Fatal(err)
	}
	f.down.Store(true)
	// Past minRefresh, a refresh (a ref was missing) fails: the copy serves.
	m.mu.Lock()
	m.fetched[o.GitDir] = time.Now().Add(-time.Hour)
	m.mu.Unlock()
	stale, err := m.Open(context.Background(), "acme", "widgets", true)
	if err != nil || stale.Stale == nil || stale.GitDir != o.GitDir {
		t.Fatalf("stale: %+v, %v", stale, err)
	}
	if msg := stale.Stale.Error(); !strings.Contains(msg, "last refreshed") || strings.Contains(msg, secretToken) {
		t.Fatalf("stale message: %s", msg)
	}
	// A repository never fetched has no copy to fall back on.
	if _, err := m.Open(context.Background(), "acme", "other", false); errcode.Of(err) != errcode.Unavailable {
		t.Fatalf("new mirror with the forge down: %v", err)
	}
}

func gitOut(t *testing.T, gitDir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir}, args...)...)
	cmd.Env = testrepo.Env(t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
