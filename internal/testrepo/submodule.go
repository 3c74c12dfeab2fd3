package testrepo

import (
	"os"
	"path/filepath"
	"testing"
)

// SubmoduleBump builds, under base, a repository "sub" with two commits and
// a repository "p" that commits "base", then adds sub as submodule "sub" at
// its first commit (commit "s1"), and leaves sub's second commit staged:
// the caller's next commit bumps the submodule.
func SubmoduleBump(t testing.TB, base string) (p *Repo) {
	t.Helper()
	sub := Init(t, filepath.Join(base, "sub"))
	for _, content := range []string{"one\n", "two\n"} {
		sub.Write("f", content)
		sub.Git("add", "f")
		sub.Commit(content)
	}
	p = Init(t, filepath.Join(base, "p"))
	p.Write("t", "t\n")
	p.Git("add", "t")
	p.Commit("base")
	p.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", "../sub", "sub")
	p.Git("-C", "sub", "checkout", "-q", "HEAD~1")
	p.Git("add", "sub")
	p.Commit("s1")
	p.Git("-C", "sub", "checkout", "-q", "-")
	p.Git("add", "sub")
	return p
}

// OutsideSubmoduleConfig writes, outside any repository, a config file that
// gives submodule "sub" a URL with a token in it, as another repository's
// .git/config would: what an [include] must never bring in.
func OutsideSubmoduleConfig(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(p, []byte("[submodule \"sub\"]\n\turl = https://TOKEN@forge.example/secret.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
