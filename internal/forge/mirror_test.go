package forge

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func newMirrors(t *testing.T, f *forgetest.Forge, ttl time.Duration) (*Mirrors, string) {
	t.Helper()
	c, err := New(context.Background(), f.URL, secretToken)
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
	f := forgetest.New(t)
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
	if got, _ := f.AuthSeen.Load().(string); got != "token "+secretToken {
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
	before := f.Fetches.Load()
	if _, err := m.Open(context.Background(), "acme", "widgets", false); err != nil || f.Fetches.Load() != before {
		t.Fatalf("second Open fetched again (%d → %d), %v", before, f.Fetches.Load(), err)
	}
}

func TestMirrorConcurrentCallsShareOneFetch(t *testing.T) {
	f := forgetest.New(t)
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
	if n := f.Fetches.Load(); n > 2 {
		t.Fatalf("16 concurrent calls made %d fetches", n)
	}
}

func TestStaleMirrorServesWhenTheForgeFails(t *testing.T) {
	f := forgetest.New(t)
	m, _ := newMirrors(t, f, time.Hour)
	o, err := m.Open(context.Background(), "acme", "widgets", false)
	if err != nil {
		t.Fatal(err)
	}
	f.Down.Store(true)
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
