package diff

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is a throwaway repository driven by the git CLI, isolated from the
// user's and the system's git configuration.
type gitRepo struct {
	t         *testing.T
	dir, home string
	quotePath bool
}

func newGitRepo(t *testing.T, quotePath bool) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	g := &gitRepo{t: t, dir: t.TempDir(), home: t.TempDir(), quotePath: quotePath}
	g.git("init", "-q", "-b", "main")
	return g
}

// git runs git in the repository and returns its standard output.
func (g *gitRepo) git(args ...string) []byte {
	g.t.Helper()
	qp := "false"
	if g.quotePath {
		qp = "true"
	}
	full := append([]string{
		"-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.quotePath=" + qp,
		"-c", "core.autocrlf=false", "-c", "core.fileMode=true", "-c", "diff.noprefix=false",
		"-c", "diff.mnemonicPrefix=false", "-c", "commit.gpgSign=false",
	}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = g.dir
	env := []string{
		"GIT_CONFIG_NOSYSTEM=1", "HOME=" + g.home, "XDG_CONFIG_HOME=" + g.home,
		"GIT_LITERAL_PATHSPECS=1", "LC_ALL=C", "TZ=UTC",
		"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z",
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") &&
			!strings.HasPrefix(kv, "XDG_CONFIG_HOME=") && !strings.HasPrefix(kv, "LC_ALL=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		g.t.Fatalf("git %q: %v\n%s", args, err, stderr.String())
	}
	return out
}

func (g *gitRepo) write(name, content string, mode os.FileMode) {
	g.t.Helper()
	p := filepath.Join(g.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	_ = os.Remove(p) // replaces symlinks rather than writing through them
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		g.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		g.t.Fatal(err)
	}
}

func (g *gitRepo) symlink(target, name string) {
	g.t.Helper()
	p := filepath.Join(g.dir, name)
	_ = os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		g.t.Skipf("symlinks unsupported: %v", err)
	}
}

func (g *gitRepo) remove(name string) {
	g.t.Helper()
	if err := os.Remove(filepath.Join(g.dir, name)); err != nil {
		g.t.Fatal(err)
	}
}

// commit stages everything and returns the new commit's id.
func (g *gitRepo) commit(msg string) string {
	g.t.Helper()
	g.git("add", "-A")
	g.git("commit", "-q", "-m", msg)
	return strings.TrimSpace(string(g.git("rev-parse", "HEAD")))
}
