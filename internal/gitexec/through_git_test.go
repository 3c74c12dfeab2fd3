package gitexec_test

import (
	"context"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// The walls are tested here as the server meets them: through the
// commands internal/git builds (an external test package may import it),
// and, for the control steps, through raw command lines on the runner.

// Repo is a repository as the server reads it (internal/git), with a
// runner of its own for raw command lines, opened on first use (a second
// repository in the Env's reader table changes each one's share).
type Repo struct {
	*git.Repo
	env     *git.Env
	rawOnce sync.Once
	raw     *gitexec.Repo
	t       testing.TB
}

// runner is the repository's runner for raw command lines.
func (g *Repo) runner() *gitexec.Repo {
	g.rawOnce.Do(func() {
		g.raw = gitexec.Open(g.env.Env, g.GitDir(), g.WorkTree(), nil)
		g.t.Cleanup(g.raw.Close)
	})
	return g.raw
}

// newEnv is a private git home removed when the test ends.
func newEnv(t testing.TB) *git.Env {
	t.Helper()
	env, err := git.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// open is a Repo on a test repository, with its own Env.
func open(t testing.TB, r *testrepo.Repo) *Repo {
	t.Helper()
	return openIn(t, newEnv(t), r)
}

func openIn(t testing.TB, env *git.Env, r *testrepo.Repo) *Repo {
	t.Helper()
	wt := r.Dir
	if r.Bare {
		wt = ""
	}
	return openAt(t, env, r.GitDir(), wt)
}

func openAt(t testing.TB, env *git.Env, gitDir, workTree string) *Repo {
	g := &Repo{Repo: git.Open(env, gitDir, workTree), env: env, t: t}
	t.Cleanup(g.Close)
	return g
}

// openSettingsOnly is a Repo with the sandbox off: only the command line
// and environment guard it.
func openSettingsOnly(t testing.TB, r *testrepo.Repo) *Repo {
	t.Helper()
	env := newEnv(t)
	if _, err := env.UseSandbox(gitexec.SandboxOff); err != nil {
		t.Fatal(err)
	}
	return openIn(t, env, r)
}

// The package's test helpers (helpers_test.go), on a Repo's runner.
var (
	newMarker    = testrepo.NewMarker
	plainEnv     = testrepo.PlainEnv
	plainGit     = testrepo.PlainGit
	mustPlainGit = testrepo.MustPlainGit
	commitFile   = gitexec.CommitFile
	catFiles     = testrepo.CatFiles
	twoCommits   = gitexec.TwoCommits
	writeTemp    = gitexec.WriteTemp
	settingsOff  = gitexec.SettingsOff
)

func output(t testing.TB, g *Repo, args ...string) string {
	t.Helper()
	return gitexec.RawOutput(t, g.runner(), args...)
}

func outputRaw(ctx context.Context, g *Repo, args ...string) ([]byte, error) {
	return gitexec.OutputRaw(ctx, g.runner(), args...)
}

func workTreeOutput(t testing.TB, g *Repo, args ...string) (string, error) {
	t.Helper()
	return gitexec.WorkTreeOutput(t, g.runner(), args...)
}

func runWithout(t testing.TB, g *Repo, withWorkTree bool, drop []string, args ...string) (string, error) {
	t.Helper()
	return gitexec.RunWithout(t, g.runner(), withWorkTree, drop, args...)
}

// streamAll runs the runner's Stream (with or without the work tree) and
// returns all of stdout.
func streamAll(g *Repo, withWorkTree bool, args ...string) (string, error) {
	var out []byte
	c := gitexec.RawCommand(args...)
	if withWorkTree {
		c = gitexec.OnWorkTree(c) // any command: Cmd.OnWorkTree would refuse most
	}
	err := g.runner().Stream(context.Background(), c, func(stdout io.Reader) error {
		var err error
		out, err = io.ReadAll(stdout)
		return err
	})
	return string(out), err
}

// readBlob reads a whole object through the pool.
func readBlob(t testing.TB, g *Repo, name string) string {
	t.Helper()
	var data []byte
	err := g.ReadObject(context.Background(), name, func(_ git.Object, body io.Reader) error {
		var err error
		data, err = io.ReadAll(body)
		return err
	})
	if err != nil {
		t.Fatalf("ReadObject(%q): %v", name, err)
	}
	return string(data)
}

// requireSandbox skips a test where the kernel has no Landlock, except in
// CI, which must run these tests with the sandbox on.
func requireSandbox(t *testing.T, env *git.Env) {
	t.Helper()
	if env.SandboxOn() {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("the sandbox is off in CI; these tests must run with it on")
	}
	t.Skip("this kernel has no Landlock")
}
