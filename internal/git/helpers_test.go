package git

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// newEnv is a private git home removed when the test ends.
func newEnv(t testing.TB) *Env {
	t.Helper()
	env, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// open is our runner on a test repository, with its own Env.
func open(t testing.TB, r *testrepo.Repo) *Repo {
	t.Helper()
	return openIn(t, newEnv(t), r)
}

func openIn(t testing.TB, env *Env, r *testrepo.Repo) *Repo {
	t.Helper()
	wt := r.Dir
	if r.Bare {
		wt = ""
	}
	g := Open(env, r.GitDir(), wt)
	t.Cleanup(g.Close)
	return g
}

// commitFile writes path and commits it; it returns the commit id.
func commitFile(r *testrepo.Repo, path, content, msg string) string {
	r.Write(path, content)
	return r.Commit(msg)
}

// twoCommits is a repository whose commits c1 and c2 change a.txt.
func twoCommits(t *testing.T) (r *testrepo.Repo, c1, c2 string) {
	t.Helper()
	r = testrepo.New(t)
	c1 = commitFile(r, "a.txt", "one\n", "one")
	c2 = commitFile(r, "a.txt", "one\ntwo\n", "two")
	return r, c1, c2
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

func writeTemp(t testing.TB, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "content")
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// readBlob reads a whole object through the pool.
func readBlob(t testing.TB, g *Repo, name string) string {
	t.Helper()
	var data []byte
	err := g.ReadObject(context.Background(), name, func(_ Object, body io.Reader) error {
		var err error
		data, err = io.ReadAll(body)
		return err
	})
	if err != nil {
		t.Fatalf("ReadObject(%q): %v", name, err)
	}
	return string(data)
}

// The watchers of package testrepo.
var (
	newMarker    = testrepo.NewMarker
	plainEnv     = testrepo.PlainEnv
	mustPlainGit = testrepo.MustPlainGit
	procsWith    = testrepo.ProcsWith
	catFiles     = testrepo.CatFiles
	eventually   = testrepo.Eventually
	alive        = testrepo.Alive
)
