//go:build unix

package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Tests for hostile repositories (issue 10): each builds the repository
// with git, shows with plain git that the attack is real, and shows that
// this package blocks it.

// outsideRepo is a repository outside whatever a test serves, holding a
// secret; hostile repositories reach for it.
func outsideRepo(t *testing.T) (r *testrepo.Repo, commit string) {
	t.Helper()
	r = testrepo.Init(t, filepath.Join(t.TempDir(), "outside"))
	r.Write("secret.txt", "outside secret\n")
	return r, r.Commit("secret")
}

// plainGitReaches shows that plain git, in r, reads the outside
// repository's data: its secret file, or for a symlinked refs directory its
// branch.
func plainGitReaches(t *testing.T, r *testrepo.Repo, how, outsideCommit string) {
	t.Helper()
	if how == testrepo.ViaRefsSymlink {
		if got := strings.TrimSpace(r.Git("rev-parse", "refs/heads/main")); got != outsideCommit {
			t.Fatalf("control: plain git reads main = %s through the symlinked refs, want the outside commit %s", got, outsideCommit)
		}
		return
	}
	if got := r.Git("cat-file", "-p", outsideCommit+":secret.txt"); got != "outside secret\n" {
		t.Fatalf("control: plain git read %q, want the outside secret", got)
	}
}

// Finding 5: under --root, a repository whose commondir, alternates
// (directly, relative, quoted, chained), objects, refs or objects/pack lie
// outside the root is not served, not listed, and asking for it says why.
func TestHostileStoreOutsideRoot(t *testing.T) {
	outside, secret := outsideRepo(t)
	root := t.TempDir()
	good := testrepo.Init(t, filepath.Join(root, "acme", "good"))
	good.Commit("good")
	// Repositories inside the root may share objects.
	fork := testrepo.Init(t, filepath.Join(root, "acme", "fork"))
	fork.Reach(testrepo.ViaAlternates, good, "")
	fork.Commit("fork")

	names := map[string]string{} // repository name → how it reaches outside
	for i, how := range testrepo.Reaches {
		name := fmt.Sprintf("evil%d", i)
		names[name] = how
		r := testrepo.Init(t, filepath.Join(root, "evil", name))
		r.Write("x.txt", "x\n")
		r.Commit("x")
		r.Reach(how, outside, filepath.Join(root, "hop", name))
		plainGitReaches(t, r, how, secret)
	}

	s := serveRoot(t, root)
	ctx := context.Background()
	for name, how := range names {
		t.Run(how, func(t *testing.T) {
			_, err := s.Get(ctx, "evil", name, true)
			if errcode.Of(err) != errcode.PermissionDenied || !strings.Contains(err.Error(), "is not served: its ") {
				t.Fatalf("Get(evil/%s): %v; want PERMISSION_DENIED saying why", name, err)
			}
			if strings.Contains(err.Error(), outside.Dir) {
				t.Errorf("the refusal shows a path outside the root: %v", err)
			}
		})
	}
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, i := range list {
		listed = append(listed, i.Owner+"/"+i.Name)
	}
	if got := strings.Join(listed, " "); got != "acme/fork acme/good" {
		t.Errorf("listed %s; want only acme/fork acme/good", got)
	}
	if _, err := s.Get(ctx, "acme", "fork", true); err != nil {
		t.Errorf("a repository borrowing objects inside the root: %v", err)
	}
}

// Finding 5 for --repo: the same ways out of the repository's own
// directory make ServeOne fail, saying why.
func TestHostileStoreOutsideRepo(t *testing.T) {
	outside, secret := outsideRepo(t)
	for _, how := range testrepo.Reaches {
		t.Run(how, func(t *testing.T) {
			r := testrepo.New(t)
			r.Write("x.txt", "x\n")
			r.Commit("x")
			r.Reach(how, outside, filepath.Join(t.TempDir(), "hop"))
			plainGitReaches(t, r, how, secret)
			s, err := ServeOne(context.Background(), newEnv(t), r.Dir, "")
			if err == nil {
				s.Close()
				t.Fatal("ServeOne served it")
			}
			if !strings.Contains(err.Error(), "is not served: its ") {
				t.Errorf("ServeOne: %v; want it to say why", err)
			}
		})
	}
	t.Run("bare", func(t *testing.T) {
		b := testrepo.New(t).CloneBare(filepath.Join(t.TempDir(), "b.git"))
		must(t, os.WriteFile(filepath.Join(b.Dir, "objects", "info", "alternates"), []byte(filepath.Join(outside.Dir, ".git", "objects")+"\n"), 0o644))
		if got := b.Git("cat-file", "-p", secret+":secret.txt"); got != "outside secret\n" {
			t.Fatalf("control: %q", got)
		}
		if s, err := ServeOne(context.Background(), newEnv(t), b.Dir, ""); err == nil {
			s.Close()
			t.Fatal("ServeOne served a bare repository borrowing outside objects")
		}
	})
}

// What --repo serves besides its own directory: the git directory a .git
// file names (a submodule's checkout), and for a linked work tree the main
// repository's git directory it lives in. Their sandbox reads stay there.
func TestServeOneLinkedWorkTreeAndSubmodule(t *testing.T) {
	main := testrepo.New(t)
	main.Write("a.txt", "main\n")
	main.Commit("main")
	linked := filepath.Join(t.TempDir(), "linked")
	main.Git("worktree", "add", "-q", "-b", "side", linked)
	sub := testrepo.New(t)
	sub.Write("s.txt", "sub\n")
	sub.Commit("sub")
	main.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.Dir, "vendor/sub")
	for name, dir := range map[string]string{"linked work tree": linked, "submodule checkout": filepath.Join(main.Dir, "vendor", "sub")} {
		s, err := ServeOne(context.Background(), newEnv(t), dir, "acme/widgets")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := s.Get(context.Background(), "", "", false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.ResolveCommit(context.Background(), "HEAD"); err != nil {
			t.Errorf("%s: HEAD: %v", name, err)
		}
		s.Close()
	}
}

// Finding 3: under --root, a repository owned by another user is served only
// with --allow-other-owners; plain git refuses it.
func TestHostileOtherOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a repository to another user")
	}
	const nobody = 65534
	root := t.TempDir()
	testrepo.Init(t, filepath.Join(root, "acme", "mine")).Commit("mine")
	theirs := testrepo.Init(t, filepath.Join(root, "other", "theirs"))
	head := theirs.Commit("theirs")
	theirs.CloneBare(filepath.Join(root, "other", "bare.git"))
	treeOnly := testrepo.Init(t, filepath.Join(root, "other", "tree-only"))
	treeOnly.Commit("x")
	gitOnly := testrepo.Init(t, filepath.Join(root, "other", "git-only"))
	gitOnly.Commit("x")

	testrepo.ChownAll(t, theirs.Dir, nobody, nobody)
	testrepo.ChownAll(t, filepath.Join(root, "other", "bare.git"), nobody, nobody)
	must(t, os.Lchown(treeOnly.Dir, nobody, nobody))
	testrepo.ChownAll(t, filepath.Join(gitOnly.Dir, ".git"), nobody, nobody)

	if out, err := theirs.TryGit("rev-parse", "HEAD"); err == nil || !strings.Contains(out, "dubious ownership") {
		t.Fatalf("control: plain git read another user's repository: %v %s", err, out)
	}

	ctx := context.Background()
	s := serveRoot(t, root)
	for _, name := range []string{"theirs", "bare", "tree-only", "git-only"} {
		_, err := s.Get(ctx, "other", name, true)
		if errcode.Of(err) != errcode.PermissionDenied || !strings.Contains(err.Error(), "--allow-other-owners") || !strings.Contains(err.Error(), "uid 65534") {
			t.Errorf("Get(other/%s): %v; want PERMISSION_DENIED naming the owner and --allow-other-owners", name, err)
		}
	}
	if list, err := s.List(ctx); err != nil || len(list) != 1 || list[0].Name != "mine" {
		t.Errorf("List = %+v, %v; want only acme/mine", list, err)
	}

	allowing, err := ServeRoot(newEnv(t), root, RootOptions{AllowOtherOwners: true})
	must(t, err)
	t.Cleanup(allowing.Close)
	r, err := allowing.Get(ctx, "other", "theirs", true)
	if err != nil {
		t.Fatalf("with AllowOtherOwners: %v", err)
	}
	if got, err := r.ResolveCommit(ctx, ""); err != nil || got != head {
		t.Errorf("HEAD = %q, %v; want %s", got, err, head)
	}
	if list, err := allowing.List(ctx); err != nil || len(list) != 5 {
		t.Errorf("with AllowOtherOwners, List = %+v, %v; want all 5", list, err)
	}
}

// Finding 6: a git directory inside the work tree under another name than
// .git is hidden from work-tree reads, whether what is asked for in it
// exists or not; plain git's work-tree grep reads it.
func TestHostileGitDirInWorkTree(t *testing.T) {
	r := testrepo.InitSeparate(t, filepath.Join(t.TempDir(), "w"), "realgit")
	r.Write("a.txt", "a\n")
	r.Symlink("realgit/config", "config-link")
	r.Symlink("realgit", "gitdir-link")
	r.Commit("everything, the git directory included")
	r.Git("config", "remote.origin.url", "https://user:TOKEN-6f1c@host/acme/w.git")
	if out := r.Git("grep", "-l", "TOKEN-6f1c"); !strings.Contains(out, "realgit/config") {
		t.Fatalf("control: plain git grep did not read the live git config: %q", out)
	}

	repo := serveOne(t, newEnv(t), r.Dir)
	checkGitDirHidden(t, repo, "realgit")

	// Under --root, .git may be a symlink to such a directory.
	root := t.TempDir()
	w := testrepo.InitSeparate(t, filepath.Join(root, "acme", "w"), "realgit")
	w.Write("a.txt", "a\n")
	w.Commit("everything")
	must(t, os.Remove(filepath.Join(w.Dir, ".git")))
	must(t, os.Symlink("realgit", filepath.Join(w.Dir, ".git")))
	s := serveRoot(t, root)
	rr, err := s.Get(context.Background(), "acme", "w", true)
	must(t, err)
	checkGitDirHidden(t, rr, "realgit")

	// Or to the work tree itself: then the whole tree is the git directory.
	self := testrepo.New(t).CloneBare(filepath.Join(root, "acme", "self"))
	must(t, os.Symlink(".", filepath.Join(self.Dir, ".git")))
	if _, err := os.ReadFile(filepath.Join(self.Dir, ".git", "config")); err != nil {
		t.Fatalf("control: %v", err)
	}
	rs, err := s.Get(context.Background(), "acme", "self", true)
	must(t, err)
	if rs.Bare() {
		t.Fatal("acme/self is served as bare; want a work tree that is its own git directory")
	}
	for _, path := range []string{"config", "HEAD", "nope"} {
		if err := rs.CheckWorkTreePath(mustPolicy(t), path); errcode.Of(err) != errcode.PathDenied {
			t.Errorf("CheckWorkTreePath(%s) in a work tree that is its git directory: %v; want PATH_DENIED", path, err)
		}
	}
}

// checkGitDirHidden checks that the git directory dir of repo is hidden from
// every work-tree read, and the rest of the tree is not.
func checkGitDirHidden(t *testing.T, repo *Repository, dir string) {
	t.Helper()
	p := mustPolicy(t)
	for _, path := range []string{dir + "/config", dir + "/HEAD", dir + "/nope", dir + "/objects", strings.ToUpper(dir) + "/config", "config-link", "gitdir-link/config", "gitdir-link/nope"} {
		if _, err := os.Lstat(filepath.Join(repo.Git.WorkTree(), path)); err != nil && strings.Contains(path, "link") {
			continue // the links exist in the first repository only
		}
		f, err := repo.OpenWorkTreeFile(p, path)
		if err == nil {
			f.Close()
		}
		if errcode.Of(err) != errcode.PathDenied || !strings.Contains(err.Error(), "git directory") {
			t.Errorf("OpenWorkTreeFile(%s): %v; want PATH_DENIED: the git directory", path, err)
		}
		if err := repo.CheckWorkTreePath(p, path); errcode.Of(err) != errcode.PathDenied {
			t.Errorf("CheckWorkTreePath(%s): %v; want PATH_DENIED", path, err)
		}
	}
	f, err := repo.OpenWorkTreeFile(p, "a.txt")
	if err != nil {
		t.Fatalf("a.txt: %v", err)
	}
	f.Close()
}

// Finding 7a: a path that leads outside the work tree, or to a hidden name,
// answers the same whether its target exists or not.
func TestHostileDenialsTellNothing(t *testing.T) {
	outside := t.TempDir()
	r := testrepo.New(t)
	targets := []string{
		filepath.Join(outside, "target.txt"),
		filepath.Join(outside, "dir", "inner.txt"),
		filepath.Join(r.Dir, ".env"),
		filepath.Join(r.Dir, ".git", "target"),
	}
	r.Symlink(filepath.Join(outside, "target.txt"), "abs")
	r.Symlink(filepath.Join(outside, "dir"), "dir")
	r.Symlink("../../"+filepath.Base(outside)+"/target.txt", "rel")
	// Out of the tree, back in, and out again.
	r.Symlink("../"+filepath.Base(r.Dir)+"/../../"+filepath.Base(outside)+"/target.txt", "winding")
	r.Symlink(".env", "env")
	r.Symlink(".git/target", "git")
	r.Commit("links")
	paths := []string{"abs", "dir", "dir/inner.txt", "rel", "winding", "env", "git"}

	repo := serveOne(t, newEnv(t), r.Dir)
	p := mustPolicy(t)
	answers := func() map[string]string {
		out := map[string]string{}
		for _, path := range paths {
			f, err := repo.OpenWorkTreeFile(p, path)
			if err == nil {
				f.Close()
			}
			if errcode.Of(err) != errcode.PathDenied {
				t.Errorf("OpenWorkTreeFile(%s): %v; want PATH_DENIED", path, err)
			}
			if cerr := repo.CheckWorkTreePath(p, path); fmt.Sprint(cerr) != fmt.Sprint(err) {
				t.Errorf("CheckWorkTreePath(%s): %v; want the same as OpenWorkTreeFile: %v", path, cerr, err)
			}
			out[path] = fmt.Sprint(err)
		}
		return out
	}
	resolves := func(path string) bool {
		_, err := filepath.EvalSymlinks(filepath.Join(r.Dir, path))
		return err == nil
	}

	for _, target := range targets {
		must(t, os.MkdirAll(filepath.Dir(target), 0o755))
		must(t, os.WriteFile(target, []byte("x\n"), 0o644))
	}
	with := answers()
	for _, path := range paths {
		if !resolves(path) {
			t.Fatalf("control: %s does not resolve while its target exists", path)
		}
	}
	for _, target := range targets {
		must(t, os.RemoveAll(target))
	}
	must(t, os.RemoveAll(filepath.Join(outside, "dir")))
	without := answers()
	for _, path := range paths {
		if resolves(path) {
			t.Fatalf("control: %s resolves after its target was removed", path)
		}
		if with[path] != without[path] {
			t.Errorf("%s answers differently when its target exists:\n%s\n%s", path, with[path], without[path])
		}
	}
}

// Finding 7c: a work-tree file with more than one name (a hard link, maybe
// to a file outside the repository) is not served from the work tree;
// plain git's work-tree grep reads it.
func TestHostileHardLink(t *testing.T) {
	host := filepath.Join(t.TempDir(), "host.txt")
	must(t, os.WriteFile(host, []byte("HOST SECRET 91c2\n"), 0o644))
	r := testrepo.New(t)
	r.Write("notes.txt", "harmless\n")
	r.Write("plain.txt", "plain\n")
	r.Commit("files")
	must(t, os.Remove(filepath.Join(r.Dir, "notes.txt")))
	if err := os.Link(host, filepath.Join(r.Dir, "notes.txt")); err != nil {
		t.Skipf("cannot hard-link across these directories: %v", err)
	}
	if out := r.Git("grep", "-l", "HOST SECRET 91c2"); strings.TrimSpace(out) != "notes.txt" {
		t.Fatalf("control: plain git grep did not read the host file: %q", out)
	}

	repo := serveOne(t, newEnv(t), r.Dir)
	p := mustPolicy(t)
	f, err := repo.OpenWorkTreeFile(p, "notes.txt")
	if err == nil {
		f.Close()
	}
	if errcode.Of(err) != errcode.PathDenied || !strings.Contains(err.Error(), "hard-linked") || !strings.Contains(err.Error(), "read it at a ref") {
		t.Errorf("OpenWorkTreeFile(notes.txt): %v; want PATH_DENIED: hard-linked, read it at a ref", err)
	}
	if err := repo.CheckWorkTreePath(p, "notes.txt"); errcode.Of(err) != errcode.PathDenied {
		t.Errorf("CheckWorkTreePath(notes.txt): %v; want PATH_DENIED", err)
	}
	if f, err := repo.OpenWorkTreeFile(p, "plain.txt"); err != nil {
		t.Errorf("plain.txt: %v", err)
	} else {
		f.Close()
	}
}
