package server

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// TestMissingNamesSayListRepositoriesOnce: review 4, finding 23. The error
// for a call without owner or repo said "list_repositories" twice: "owner
// and repo are required (list_repositories lists what is served;
// list_repositories lists them)". It names the tool once, whatever it says
// of what is served: before any listing, after one, and of more
// repositories than it names.
func TestMissingNamesSayListRepositoriesOnce(t *testing.T) {
	pr := newPRRepo(t)
	root := t.TempDir()
	for i := range 22 {
		copyRepo(t, pr.Repo, filepath.Join(root, "acme", fmt.Sprintf("r%02d", i)))
	}
	served, err := repo.ServeRoot(testEnv(t), root, repo.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test"}
	h := connectClient(t, New(served, cfg), nil, cfg.MaxBytes)

	msg := h.fails("read_file", args("owner", "acme", "path", "README"), "INVALID_ARGUMENT")
	if want := "INVALID_ARGUMENT: owner and repo are required (list_repositories lists what is served)"; msg != want {
		t.Errorf("before a listing:\n got %q\nwant %q", msg, want)
	}
	h.ok("list_repositories", args())
	msg = h.fails("search_code", args("repo", "r01", "query", "x"), "INVALID_ARGUMENT")
	if !strings.HasPrefix(msg, "INVALID_ARGUMENT: owner and repo are required (served: acme/r00, acme/r01, ") ||
		!strings.HasSuffix(msg, " and 2 more; list_repositories lists them all)") {
		t.Errorf("after a listing: %q", msg)
	}
	if n := strings.Count(msg, "list_repositories"); n != 1 {
		t.Errorf("list_repositories named %d times: %q", n, msg)
	}
}
