//go:build unix

package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// testSettle stands in for refSettle in these tests, so that an answer is
// kept once its files are 20 ms old rather than 2 s: still above the
// coarsest timestamp tick of a local filesystem (10 ms at HZ=100).
const testSettle = 20 * time.Millisecond

// cached is our runner on r with the test's settle window.
func cached(t *testing.T, r *testrepo.Repo) *Repo {
	t.Helper()
	g := open(t, r)
	g.refs.window = testSettle
	return g
}

// checkRef waits until the files a change touched are old enough to be
// kept, then resolves name twice and compares both answers with git's
// (rev-parse name^{commit}); the second must come from the cache when the
// name is one it keeps and git resolves it. The first is where a cache that
// missed the change would answer wrong.
func checkRef(t *testing.T, g *Repo, r *testrepo.Repo, name string) {
	t.Helper()
	if resolveTwice(t, g, r, name) {
		t.Fatalf("CommitID(%q) asked git again with nothing changed", name)
	}
}

// resolveTwice is checkRef's comparison with git; it reports whether the
// second call asked git although the name is one the cache keeps and git
// resolves it.
func resolveTwice(t *testing.T, g *Repo, r *testrepo.Repo, name string) (askedAgain bool) {
	t.Helper()
	time.Sleep(testSettle + 5*time.Millisecond)
	out, gitErr := r.TryGit("rev-parse", "--verify", "--quiet", "--end-of-options", name+"^{commit}")
	want := strings.TrimSpace(out)
	for i := range 2 {
		before := g.objects.requests.Load()
		got, err := g.CommitID(context.Background(), name)
		switch {
		case gitErr != nil && !errors.Is(err, ErrMissing):
			t.Fatalf("CommitID(%q) = %s, %v; git finds nothing", name, got, err)
		case gitErr == nil && (err != nil || got != want):
			t.Fatalf("CommitID(%q) = %s, %v; git says %s", name, got, err, want)
		}
		askedAgain = i == 1 && gitErr == nil && cacheableName(name) && g.objects.requests.Load() != before
	}
	return askedAgain
}

func TestRefCacheBranchMoves(t *testing.T) {
	r, c1, _ := twoCommits(t)
	g := cached(t, r)
	loose := filepath.Join(r.Dir, ".git", "refs", "heads", "main")
	for _, name := range []string{"main", "HEAD", "refs/heads/main", "heads/main"} {
		checkRef(t, g, r, name)
	}
	commitFile(r, "a.txt", "three\n", "three")
	checkRef(t, g, r, "main")
	checkRef(t, g, r, "HEAD")
	r.Git("update-ref", "refs/heads/main", c1)
	checkRef(t, g, r, "main")
	r.Git("reset", "-q", "--hard", "HEAD@{1}")
	checkRef(t, g, r, "main")
	checkRef(t, g, r, "HEAD")

	r.Git("pack-refs", "--all")
	if _, err := os.Lstat(loose); !os.IsNotExist(err) {
		t.Fatalf("pack-refs left the loose ref: %v", err)
	}
	checkRef(t, g, r, "main")
	r.Git("update-ref", "refs/heads/main", c1) // a loose ref over the packed one
	if _, err := os.Lstat(loose); err != nil {
		t.Fatal(err)
	}
	checkRef(t, g, r, "main")
	checkRef(t, g, r, "HEAD")
	r.Git("pack-refs", "--all")
	checkRef(t, g, r, "main")
	r.Git("update-ref", "-d", "refs/heads/main") // only packed-refs changes
	checkRef(t, g, r, "main")
	checkRef(t, g, r, "HEAD") // unborn
	r.Git("update-ref", "refs/heads/main", c1)
	checkRef(t, g, r, "main")

	// A packed branch below a path that becomes a file: git's lstat fails
	// with ENOTDIR, and only ENOENT makes it look in packed-refs.
	r.Git("update-ref", "refs/heads/foo/bar", c1)
	r.Git("pack-refs", "--all")
	checkRef(t, g, r, "foo/bar")
	if err := os.WriteFile(filepath.Join(r.GitDir(), "refs", "heads", "foo"), []byte(c1+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkRef(t, g, r, "foo/bar")
}

func TestRefCacheHEAD(t *testing.T) {
	r, c1, c2 := twoCommits(t)
	g := cached(t, r)
	checkRef(t, g, r, "HEAD")
	r.Git("checkout", "-q", "-b", "dev", c1)
	checkRef(t, g, r, "HEAD")
	r.Git("symbolic-ref", "HEAD", "refs/heads/main")
	checkRef(t, g, r, "HEAD")
	r.Git("checkout", "-q", "--detach", c1)
	checkRef(t, g, r, "HEAD")
	r.Git("update-ref", "--no-deref", "HEAD", c2)
	checkRef(t, g, r, "HEAD")
	r.Git("checkout", "-q", "dev")
	checkRef(t, g, r, "HEAD")
	r.Git("update-ref", "refs/heads/dev", c2) // HEAD's branch moves, HEAD does not
	checkRef(t, g, r, "HEAD")
}

// git tries refs/<name>, refs/tags/<name>, refs/heads/<name>,
// refs/remotes/<name> and refs/remotes/<name>/HEAD in turn: a ref created
// under an earlier rule takes the name over.
func TestRefCacheDwimOrder(t *testing.T) {
	r, c1, c2 := twoCommits(t)
	g := cached(t, r)
	r.Git("branch", "v1", c1)
	checkRef(t, g, r, "v1")
	r.Git("tag", "v1", c2) // tags win over branches
	checkRef(t, g, r, "v1")
	r.Git("tag", "-d", "v1")
	checkRef(t, g, r, "v1")

	r.Git("update-ref", "refs/remotes/origin/feature", c1)
	checkRef(t, g, r, "origin/feature")
	checkRef(t, g, r, "remotes/origin/feature")
	r.Git("branch", "origin/feature", c2) // refs/heads/ before refs/remotes/
	checkRef(t, g, r, "origin/feature")
	r.Git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/feature")
	checkRef(t, g, r, "origin")
	r.Git("update-ref", "refs/remotes/origin/feature", c2)
	checkRef(t, g, r, "origin")
	r.Git("update-ref", "refs/origin", c1) // refs/<name> before everything but <name>
	checkRef(t, g, r, "origin")
	r.Git("pack-refs", "--all")
	checkRef(t, g, r, "origin")
	checkRef(t, g, r, "origin/feature")

	// A file at the top of the git directory named like a branch: git
	// 2.39 to 2.50 read it first, a git that passed over it would read
	// the branch; either way a move of the branch is seen.
	r.Git("branch", "top", c1)
	if err := os.WriteFile(filepath.Join(r.GitDir(), "top"), []byte(c2+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkRef(t, g, r, "top")
	r.Git("update-ref", "refs/heads/top", c2)
	checkRef(t, g, r, "top")
	if err := os.Remove(filepath.Join(r.GitDir(), "top")); err != nil {
		t.Fatal(err)
	}
	checkRef(t, g, r, "top")

	// A loose ref git cannot read (a SHA-256 length id in a SHA-1
	// repository) is passed over for the next rule.
	r.Git("update-ref", "refs/remotes/odd", c1)
	odd := filepath.Join(r.GitDir(), "refs", "heads", "odd")
	if err := os.WriteFile(odd, []byte(c2+strings.Repeat("0", 24)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkRef(t, g, r, "odd")
	r.Git("update-ref", "refs/remotes/odd", c2)
	checkRef(t, g, r, "odd")
}

func TestRefCacheSymrefChain(t *testing.T) {
	r, c1, c2 := twoCommits(t)
	g := cached(t, r)
	r.Git("branch", "other", c1)
	r.Git("symbolic-ref", "refs/heads/mid", "refs/heads/main")
	r.Git("symbolic-ref", "refs/heads/alias", "refs/heads/mid")
	checkRef(t, g, r, "alias")
	r.Git("update-ref", "--no-deref", "refs/heads/main", c1)
	checkRef(t, g, r, "alias")
	r.Git("symbolic-ref", "refs/heads/mid", "refs/heads/other")
	checkRef(t, g, r, "alias")
	r.Git("update-ref", "--no-deref", "refs/heads/other", c2)
	checkRef(t, g, r, "alias")
	r.Git("pack-refs", "--all") // the symrefs stay loose; other goes packed
	checkRef(t, g, r, "alias")
	r.Git("update-ref", "--no-deref", "refs/heads/other", c1)
	checkRef(t, g, r, "alias")
	// A loop: git gives up after 5 symrefs.
	r.Git("symbolic-ref", "refs/heads/mid", "refs/heads/alias")
	checkRef(t, g, r, "alias")
}

// A linked work tree's HEAD and per-worktree refs live in its own git
// directory; branches in the common one, named by its commondir file.
func TestRefCacheWorktree(t *testing.T) {
	r, c1, _ := twoCommits(t)
	wtDir := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "-b", "side", wtDir, c1)
	wt := r.At(wtDir)
	g := Open(newEnv(t), filepath.Join(r.Dir, ".git", "worktrees", "wt"), wtDir)
	t.Cleanup(g.Close)
	g.refs.window = testSettle
	main := cached(t, r)

	for _, name := range []string{"HEAD", "main", "side"} {
		checkRef(t, g, wt, name)
	}
	checkRef(t, main, r, "HEAD")
	commitFile(wt, "b.txt", "b\n", "on side")
	checkRef(t, g, wt, "HEAD")
	checkRef(t, g, wt, "side")
	checkRef(t, main, r, "side")
	commitFile(r, "a.txt", "main moves\n", "on main")
	checkRef(t, g, wt, "main")
	checkRef(t, g, wt, "HEAD")
	wt.Git("checkout", "-q", "--detach", "main")
	checkRef(t, g, wt, "HEAD")
	checkRef(t, main, r, "HEAD")
	wt.Git("update-ref", "refs/bisect/bad", c1) // per-worktree
	checkRef(t, g, wt, "refs/bisect/bad")
	checkRef(t, main, r, "refs/bisect/bad")
	wt.Git("update-ref", "refs/bisect/bad", "main")
	checkRef(t, g, wt, "refs/bisect/bad")

	// A branch's file in the work tree's own directory is not where git
	// reads branches: git goes on to the next rule.
	ghost := filepath.Join(r.GitDir(), "worktrees", "wt", "refs", "heads", "ghost")
	if err := os.MkdirAll(filepath.Dir(ghost), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ghost, []byte(c1+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("update-ref", "refs/remotes/ghost", "main")
	checkRef(t, g, wt, "ghost")
	r.Git("update-ref", "refs/remotes/ghost", c1+"~0")
	checkRef(t, g, wt, "ghost")
}

// A second CommitID of a branch costs no round trip; one after the branch
// moved costs one, and the next none again.
func TestRefCacheRoundTrips(t *testing.T) {
	r, c1, _ := twoCommits(t)
	g := cached(t, r)
	ctx := context.Background()
	resolve := func() (string, int64) {
		t.Helper()
		before := g.objects.requests.Load()
		oid, err := g.CommitID(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		return oid, g.objects.requests.Load() - before
	}
	time.Sleep(2 * testSettle)
	if _, n := resolve(); n != 1 {
		t.Fatalf("first CommitID: %d round trips", n)
	}
	if _, n := resolve(); n != 0 {
		t.Fatalf("second CommitID: %d round trips", n)
	}
	r.Git("update-ref", "refs/heads/main", c1)
	if oid, n := resolve(); n != 1 || oid != c1 {
		t.Fatalf("after the branch moved: %s in %d round trips, want %s in 1", oid, n, c1)
	}
	time.Sleep(2 * testSettle)
	resolve()
	if oid, n := resolve(); n != 0 || oid != c1 {
		t.Fatalf("once settled: %s in %d round trips, want %s in 0", oid, n, c1)
	}
	// Names git could read as objects, or not as plain refs, always ask.
	r.Git("branch", "deadbeef", c1)
	r.Git("branch", "fix-gab12", c1)
	time.Sleep(2 * testSettle)
	for _, name := range []string{"deadbeef", "fix-gab12", "main~0", "main^{commit}"} {
		for range 2 {
			before := g.objects.requests.Load()
			g.CommitID(ctx, name)
			if g.objects.requests.Load() == before {
				t.Errorf("CommitID(%q) was answered from the ref cache", name)
			}
		}
	}
}

// An answer whose files are younger than the window when stamped is not
// kept: a file rewritten within one timestamp tick, same size, same inode,
// stats the same, and only git can tell.
func TestRefCacheRacy(t *testing.T) {
	r, c1, c2 := twoCommits(t)
	g := open(t, r)
	g.refs.window = time.Hour // every file here is younger than that
	ctx := context.Background()
	asks := func(want string) int64 {
		t.Helper()
		before := g.objects.requests.Load()
		if oid, err := g.CommitID(ctx, "main"); err != nil || oid != want {
			t.Fatalf("CommitID(main) = %s, %v; want %s", oid, err, want)
		}
		return g.objects.requests.Load() - before
	}
	asks(c2)
	if asks(c2) != 1 {
		t.Fatal("an answer younger than the window was kept")
	}
	if len(g.refs.entries) != 0 || g.refs.young["main"].IsZero() {
		t.Fatalf("kept: %v; young: %v", g.refs.entries, g.refs.young)
	}
	// Rewrite the loose ref in place: same inode, same size. Within one
	// tick its stat would not change; the window is what answers right.
	loose := filepath.Join(r.Dir, ".git", "refs", "heads", "main")
	before, _ := os.Lstat(loose)
	if err := os.WriteFile(loose, []byte(c1+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Lstat(loose)
	if after.Sys().(*syscall.Stat_t).Ino != before.Sys().(*syscall.Stat_t).Ino || after.Size() != before.Size() {
		t.Fatal("the rewrite changed the inode or size; the test proves less")
	}
	if asks(c1) != 1 {
		t.Fatal("no round trip after the rewrite")
	}
	// Seen two hours later, the same files are old enough: kept.
	g.refs.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	asks(c1)
	if asks(c1) != 0 {
		t.Fatal("an answer older than the window was not kept")
	}
}

// One goroutine moves a branch while others resolve it: every answer is a
// commit the branch held at some time during the call, and once the writer
// stops, git's answer.
func TestRefCacheConcurrent(t *testing.T) {
	r, c1, _ := twoCommits(t)
	g := cached(t, r)
	const moves = 60
	oids := []string{r.Head()}
	tree := strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}"))
	for i := range moves {
		oids = append(oids, strings.TrimSpace(r.Git("commit-tree", "-p", c1, "-m", fmt.Sprint("move ", i), tree)))
	}
	var started, done atomic.Int64 // moves begun, moves finished
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var answered, fromCache atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				lo := done.Load()
				before := g.objects.requests.Load()
				got, err := g.CommitID(context.Background(), "main")
				hi := started.Load()
				if g.objects.requests.Load() == before {
					fromCache.Add(1)
				}
				answered.Add(1)
				if err != nil {
					t.Errorf("CommitID: %v", err)
					return
				}
				ok := false
				for _, o := range oids[lo : hi+1] {
					ok = ok || o == got
				}
				if !ok {
					t.Errorf("CommitID = %s, not one of the %d commits main held during the call", got, hi-lo+1)
					return
				}
			}
		}()
	}
	for i := 1; i <= moves; i++ {
		started.Store(int64(i))
		r.Git("update-ref", "refs/heads/main", oids[i])
		done.Store(int64(i))
		if i%3 == 0 {
			time.Sleep(2 * testSettle) // long enough for answers to be kept
		}
	}
	close(stop)
	wg.Wait()
	checkRef(t, g, r, "main")
	t.Logf("%d answers, %d from the cache", answered.Load(), fromCache.Load())
	if fromCache.Load() == 0 {
		t.Error("no answer came from the cache: the test did not exercise it")
	}
}

// A reftable repository keeps its refs where stats cannot see them: git
// answers every time. The cache goes by the reftable directory, which a
// files repository does not have; git 2.39 ignores one, so the first part
// runs on any git.
func TestRefCacheReftable(t *testing.T) {
	r, _, _ := twoCommits(t)
	g := cached(t, r)
	checkRef(t, g, r, "main")
	if err := os.Mkdir(filepath.Join(r.GitDir(), "reftable"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !resolveTwice(t, g, r, "main") {
		t.Fatal("answered from the cache with a reftable directory")
	}

	dir := filepath.Join(t.TempDir(), "repo")
	if out, err := r.TryGit("init", "-q", "--ref-format=reftable", "-b", "main", dir); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
		t.Skipf("this git cannot make a reftable repository: %s", msg)
	}
	rt := r.At(dir)
	first := commitFile(rt, "a.txt", "one\n", "one")
	g = cached(t, rt)
	for _, change := range [][]string{nil, {"commit", "-q", "--allow-empty", "-m", "two"}, {"update-ref", "refs/heads/main", first}} {
		if change != nil {
			rt.Git(change...)
		}
		if !resolveTwice(t, g, rt, "main") {
			t.Fatal("a reftable repository's ref was answered from the cache")
		}
	}
}

// A name the cache keeps is a plain ref name git can read only as a ref.
func TestCacheableName(t *testing.T) {
	for name, want := range map[string]bool{
		"main": true, "HEAD": true, "refs/heads/main": true, "origin/main": true, "v1.2.3": true,
		"feature/x-y_z": true, "FETCH_HEAD": true, "abc": true, "beefy": true, "fix-g": true, "a-gx12": true,
		"": false, "-main": false, "/main": false, "main/": false, "a//b": false, "a..b": false,
		".hidden": false, "a/.b": false, "main.lock": false, "a.lock/b": false, "main.": false,
		"main^": false, "main~1": false, "main@{1}": false, "@": false, "HEAD:a.txt": false,
		":/msg": false, "a b": false, "a\\b": false, "caf\u00e9": false, "main^{commit}": false,
		"dead": false, "deadbeef": false, "DEADBEEF": false, "0123456789abcdef0123456789abcdef01234567": false,
		"v1.0-g1234abc": false, "x-gAB": false, "worktrees/wt/HEAD": false, "main-worktree/HEAD": false,
	} {
		if got := cacheableName(name); got != want {
			t.Errorf("cacheableName(%q) = %v", name, got)
		}
	}
}

// A loose ref git reads through a symlink is left to git.
func TestRefCacheSymlinkedRef(t *testing.T) {
	r, c1, _ := twoCommits(t)
	g := cached(t, r)
	heads := filepath.Join(r.Dir, ".git", "refs", "heads")
	r.Git("branch", "real", c1)
	if err := os.Symlink("refs/heads/real", filepath.Join(heads, "link")); err != nil {
		t.Fatal(err)
	}
	if !resolveTwice(t, g, r, "link") {
		t.Fatal("a symlinked ref was answered from the cache")
	}
	r.Git("update-ref", "refs/heads/real", "main")
	resolveTwice(t, g, r, "link")
}

// If the common directory comes to resolve elsewhere (a symlink on its
// path re-pointed), the cache answers nothing more: git's readers resolved
// it when they started, and the sandbox granted what it resolved to then.
func TestRefCacheRepointedCommonDir(t *testing.T) {
	r, c1, _ := twoCommits(t)
	wtDir := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "--detach", wtDir, c1)
	wtGit := filepath.Join(r.GitDir(), "worktrees", "wt")
	link := filepath.Join(t.TempDir(), "common")
	if err := os.Symlink(r.GitDir(), link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wtGit, "commondir"), []byte(link+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.git")
	r.Git("clone", "-q", "--bare", r.Dir, other)
	r.Git("--git-dir="+other, "update-ref", "refs/heads/main", c1)

	g := Open(newEnv(t), wtGit, wtDir)
	t.Cleanup(g.Close)
	g.refs.window = testSettle
	checkRef(t, g, r.At(wtDir), "main")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * testSettle)
	for range 3 {
		before := g.objects.requests.Load()
		g.CommitID(context.Background(), "main")
		if g.objects.requests.Load() == before {
			t.Fatal("answered from the cache after the common directory moved")
		}
	}
}

// Only files on a local filesystem are trusted to stat as they change.
func TestRefCacheLocalFS(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		file:            true,
		"/proc/version": false, // procfs: not a filesystem the cache trusts
	} {
		id, err := statID(path, false)
		if err != nil {
			t.Fatal(err)
		}
		b := stampBuilder{stamp: []stamped{{path: path, id: id}}}
		if got := b.local(); got != want {
			t.Errorf("local(%s) = %v", path, got)
		}
	}
}
