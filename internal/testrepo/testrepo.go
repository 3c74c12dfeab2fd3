// Package testrepo builds real git repositories for tests, with the git CLI.
// git is the oracle: tests compare what the server says with what git says.
package testrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a repository under a test's temporary directory.
type Repo struct {
	t    testing.TB
	Dir  string // work tree, or the git directory of a bare repository
	Bare bool
	env  []string
}

// GitDir is the repository's absolute git directory.
func (r *Repo) GitDir() string {
	if r.Bare {
		return r.Dir
	}
	return filepath.Join(r.Dir, ".git")
}

// Env is the environment tests run git with: no user or system config.
func Env(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"),
		"LC_ALL=C",
		"GIT_OPTIONAL_LOCKS=0", // Snapshot's git status must not rewrite the index
		"GIT_AUTHOR_NAME=Test Author",
		"GIT_AUTHOR_EMAIL=author@example.com",
		"GIT_COMMITTER_NAME=Test Committer",
		"GIT_COMMITTER_EMAIL=committer@example.com",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
		"GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
	}
}

// New creates an empty non-bare repository with branch main in a new
// temporary directory.
func New(t testing.TB) *Repo {
	t.Helper()
	return Init(t, filepath.Join(t.TempDir(), "repo"))
}

// Init creates an empty non-bare repository at dir.
func Init(t testing.TB, dir string) *Repo {
	t.Helper()
	home := t.TempDir()
	r := &Repo{t: t, Dir: dir, env: Env(home)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("init", "-q", "-b", "main")
	return r
}

// At is the repository at dir (a linked work tree, one r's git made),
// run with r's environment.
func (r *Repo) At(dir string) *Repo {
	return &Repo{t: r.t, Dir: dir, env: r.env}
}

// CloneBare makes a bare clone of r at dir (refs and objects copied).
func (r *Repo) CloneBare(dir string) *Repo {
	r.t.Helper()
	b := &Repo{t: r.t, Dir: dir, Bare: true, env: r.env}
	r.Git("clone", "-q", "--bare", r.Dir, dir)
	return b
}

// Git runs git in the repository and returns its stdout; failure fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	out, err := r.TryGit(args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryGit runs git and returns its output and error.
func (r *Repo) TryGit(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = r.env
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out) + string(ee.Stderr), err
	}
	return string(out), err
}

// Write creates or replaces a file of the work tree (parents included).
func (r *Repo) Write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Symlink creates a symbolic link path → target in the work tree.
func (r *Repo) Symlink(target, path string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		r.t.Fatal(err)
	}
}

// Commit stages everything and commits; it returns the new commit's id.
func (r *Repo) Commit(msg string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Head()
}

// Head is the full id of HEAD.
func (r *Repo) Head() string {
	r.t.Helper()
	return strings.TrimSpace(r.Git("rev-parse", "HEAD"))
}

// Show returns git's view of a blob: `git cat-file blob REV:PATH`.
func (r *Repo) Show(rev, path string) string {
	r.t.Helper()
	return r.Git("cat-file", "blob", rev+":"+path)
}

// Snapshot records refs, the index and work tree status, so a test can
// check that nothing changed.
func (r *Repo) Snapshot() string {
	r.t.Helper()
	s := r.Git("for-each-ref", "--format=%(refname) %(objectname)")
	s += r.Git("rev-parse", "HEAD")
	if !r.Bare {
		s += r.Git("status", "--porcelain=v1", "--untracked-files=all", "--ignored")
		s += r.Git("ls-files", "-s", "--debug")
	}
	return s
}

// RenameStop is, with git log --follow as the oracle, the rename that ends
// path's history in revs (default HEAD) without --follow: the oldest commit
// of that history and the name path had before it, or "" when that commit
// did not rename path.
func (r *Repo) RenameStop(path string, revs ...string) (commit, oldPath string) {
	r.t.Helper()
	if len(revs) == 0 {
		revs = []string{"HEAD"}
	}
	plain := strings.Fields(r.Git(append(append([]string{"log", "--format=%H"}, revs...), "--", path)...))
	if len(plain) == 0 {
		return "", ""
	}
	oldest := plain[len(plain)-1]
	out := r.Git(append(append([]string{"log", "--follow", "-M", "--name-status", "--format=%x01%H"}, revs...), "--", path)...)
	for _, rec := range strings.Split(out, "\x01")[1:] {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		if lines[0] != oldest {
			continue
		}
		for _, l := range lines[1:] {
			if f := strings.Split(l, "\t"); len(f) == 3 && strings.HasPrefix(f[0], "R") && f[2] == path {
				return oldest, f[1]
			}
		}
	}
	return "", ""
}
