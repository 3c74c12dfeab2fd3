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
	dir := t.TempDir()
	return newMirrorsIn(t, f, ttl, dir, Limits{}), dir
}

func newMirrorsIn(t *testing.T, f *forgetest.Forge, ttl time.Duration, dir string, limits Limits) *Mirrors {
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
	m, err := NewMirrors(c, env, dir, ttl, limits)
	if err != nil {
		t.Fatal(err)
	}
	return m
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
	m.mirrors[o.GitDir].fetched = time.Now().Add(-time.Hour)
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

// Finding 12 (issue 11): every repository name got a full mirror, with no
// cap and no eviction. The cache now holds at most Limits.MaxRepos mirrors
// and Limits.MaxBytes bytes, removing the least recently used first.

// call opens a mirror for the length of one call, as a tool call does.
func call(t *testing.T, m *Mirrors, owner, name string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o, err := m.Open(ctx, owner, name, false)
	if err != nil {
		t.Fatalf("Open %s/%s: %v", owner, name, err)
	}
	gitOut(t, o.GitDir, "rev-parse", "--verify", "main")
	return o.GitDir
}

// eventually waits for cond: a pin is let go when its call's context ends,
// in a goroutine of its own.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
	}
}

// mirrored reports whether a mirror holds a repository (an evicted one is
// gone, or an empty directory).
func mirrored(gitDir string) bool {
	_, err := os.Stat(filepath.Join(gitDir, "HEAD"))
	return err == nil
}

func (m *Mirrors) unpinned() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.mirrors {
		if e.pins > 0 {
			return false
		}
	}
	return true
}

func TestMirrorCacheEvictsTheLeastRecentlyUsed(t *testing.T) {
	f := forgetest.New(t)
	f.AddRepo("acme", "gadgets")
	f.AddRepo("acme", "gizmos")
	m := newMirrorsIn(t, f, time.Hour, t.TempDir(), Limits{MaxRepos: 2})
	widgets := call(t, m, "acme", "widgets")
	gadgets := call(t, m, "acme", "gadgets")
	call(t, m, "acme", "widgets") // used again: gadgets is now the oldest
	eventually(t, "pins let go", m.unpinned)
	gizmos := call(t, m, "acme", "gizmos")
	eventually(t, "gadgets evicted", func() bool { return !mirrored(gadgets) })
	if !mirrored(widgets) || !mirrored(gizmos) {
		t.Fatalf("the two most recently used mirrors must stay: widgets %v, gizmos %v", mirrored(widgets), mirrored(gizmos))
	}
	// An evicted mirror is fetched again when asked for, and the cache
	// stays at two.
	before := f.Fetches.Load()
	call(t, m, "acme", "gadgets")
	if f.Fetches.Load() != before+1 {
		t.Fatalf("the evicted mirror was not fetched again (%d fetches)", f.Fetches.Load()-before)
	}
	eventually(t, "widgets evicted", func() bool { return !mirrored(widgets) })
	if !mirrored(gizmos) || !mirrored(gadgets) {
		t.Fatal("evicted a mirror more recently used than widgets")
	}
}

func TestMirrorInUseIsNeverEvicted(t *testing.T) {
	f := forgetest.New(t)
	f.AddRepo("acme", "gadgets")
	m := newMirrorsIn(t, f, time.Hour, t.TempDir(), Limits{MaxRepos: 1})
	// A long call holds widgets...
	ctx, endCall := context.WithCancel(context.Background())
	defer endCall()
	o, err := m.Open(ctx, "acme", "widgets", false)
	if err != nil {
		t.Fatal(err)
	}
	// ...while another call needs a second mirror, over the cap of one.
	gadgets := call(t, m, "acme", "gadgets")
	eventually(t, "gadgets unpinned", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.mirrors[gadgets] == nil || m.mirrors[gadgets].pins == 0
	})
	m.evict()
	if !mirrored(o.GitDir) {
		t.Fatal("the mirror a call is reading was evicted under it")
	}
	if out := gitOut(t, o.GitDir, "cat-file", "-p", "main:README.md"); out != "hello\n" {
		t.Fatalf("reading the pinned mirror: %q", out)
	}
	if mirrored(gadgets) {
		t.Fatal("over the cap of one, the mirror nobody reads stayed")
	}
	// Once the long call ends, widgets may go when room is needed.
	endCall()
	eventually(t, "pins let go", m.unpinned)
	call(t, m, "acme", "gadgets")
	eventually(t, "widgets evicted", func() bool { return !mirrored(o.GitDir) })
}

func TestMirrorCacheBoundsBytes(t *testing.T) {
	f := forgetest.New(t)
	f.AddRepo("acme", "gadgets")
	f.AddRepo("acme", "gizmos")
	// Measure one mirror, then allow a little over two.
	probe := newMirrorsIn(t, f, time.Hour, t.TempDir(), Limits{})
	one := diskSize(call(t, probe, "acme", "widgets"))
	m := newMirrorsIn(t, f, time.Hour, t.TempDir(), Limits{MaxBytes: one*2 + one/2})
	widgets := call(t, m, "acme", "widgets")
	gadgets := call(t, m, "acme", "gadgets")
	eventually(t, "pins let go", m.unpinned)
	gizmos := call(t, m, "acme", "gizmos")
	eventually(t, "the oldest evicted", func() bool { return !mirrored(widgets) })
	if !mirrored(gadgets) || !mirrored(gizmos) {
		t.Fatal("evicted more than needed")
	}
	if total := diskSize(m.dir); total > one*2+one/2+64<<10 {
		t.Fatalf("the cache takes %d bytes, over its %d-byte cap", total, one*2+one/2)
	}

	// A repository larger than the whole cache is refused, and its mirror
	// removed; the others stay.
	small := newMirrorsIn(t, f, time.Hour, t.TempDir(), Limits{MaxBytes: one / 2})
	_, err := small.Open(context.Background(), "acme", "widgets", false)
	if errcode.Of(err) != errcode.TooLarge || !strings.Contains(err.Error(), "--cache-max-bytes") {
		t.Fatalf("a mirror larger than the cache: %v", err)
	}
	eventually(t, "the oversized mirror removed", func() bool { return diskSize(small.dir) < one/2 })
}

func TestMirrorCacheTrimmedAtStart(t *testing.T) {
	f := forgetest.New(t)
	f.AddRepo("acme", "gadgets")
	dir := t.TempDir()
	first := newMirrorsIn(t, f, time.Hour, dir, Limits{})
	widgets := call(t, first, "acme", "widgets")
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{widgets, filepath.Join(widgets, "refs"), filepath.Join(widgets, "packed-refs"), filepath.Join(widgets, "objects", "pack")} {
		os.Chtimes(p, old, old)
	}
	gadgets := call(t, first, "acme", "gadgets")
	// A new run with a cap of one keeps the mirror written last.
	newMirrorsIn(t, f, time.Hour, dir, Limits{MaxRepos: 1})
	if mirrored(widgets) || !mirrored(gadgets) {
		t.Fatalf("after a restart with a cap of one: widgets %v (older), gadgets %v", mirrored(widgets), mirrored(gadgets))
	}
}
