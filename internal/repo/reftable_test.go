package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// TestReftableRepositoryRefusedAtStart: review 3, section D. A repository
// whose refs are in a reftable started, then every call said `"HEAD" does
// not name a commit`. Where this host's git cannot read it, it is refused
// at start, saying that git 2.45 reads it. (The repository is one git 2.45
// would make: its config asks for the reftable, its refs live in reftable/.)
func TestReftableRepositoryRefusedAtStart(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("one")
	if _, err := r.TryGit("rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		t.Fatal(err)
	}
	gitDir := filepath.Join(r.Dir, ".git")
	r.Git("config", "core.repositoryformatversion", "1")
	r.Git("config", "extensions.refStorage", "reftable")
	if err := os.Mkdir(filepath.Join(gitDir, "reftable"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := r.TryGit("rev-parse", "HEAD"); err == nil {
		t.Skip("this host's git reads reftable repositories")
	}
	s, err := ServeOne(context.Background(), newEnv(t), r.Dir, "")
	if err == nil {
		s.Close()
		t.Fatal("a reftable repository this git cannot read was served")
	}
	if !strings.Contains(err.Error(), "reftable") || !strings.Contains(err.Error(), "2.45") {
		t.Fatalf("the refusal does not say why: %v", err)
	}
}
