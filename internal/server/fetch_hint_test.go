package server

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A clone whose origin is a path (or on a host that names no forge) may
// be GitLab's as well as GitHub's: the missing pull request's error gives
// both fetch commands, each said for which, and the GitLab one, run in a
// clone of a GitLab mirror, makes the merge request readable. A host
// that names its forge gets its own command alone.
func TestFetchHintForAnOriginThatIsAPath(t *testing.T) {
	upstream := newPRRepo(t)
	upstream.Git("update-ref", "refs/merge-requests/9/head", "feature")
	clone := filepath.Join(t.TempDir(), "clone")
	upstream.Git("clone", "-q", upstream.Dir, clone)
	c := upstream.At(clone)
	h := serve(t, c)
	const pull = "git fetch origin pull/9/head:refs/pull/9/head"
	const mr = "git fetch origin merge-requests/9/head:refs/merge-requests/9/head"
	msg := h.fails("get_pull_request", prArgs(9), "NOT_FOUND")
	if !strings.Contains(msg, pull+" where origin keeps GitHub's, Gitea's or Forgejo's refs") || !strings.Contains(msg, mr+" where it keeps GitLab's") {
		t.Fatalf("an origin that is a path: %s", msg)
	}
	cmd := exec.Command("sh", "-c", mr)
	cmd.Dir, cmd.Env = clone, testrepo.Env(t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", mr, err, out)
	}
	var out getPullRequestOut
	h.structured("get_pull_request", prArgs(9), &out)
	if want := strings.TrimSpace(upstream.Git("rev-parse", "feature")); out.Head != want || out.HeadRef != "refs/merge-requests/9/head" {
		t.Fatalf("after the fetch: %+v, want head %s", out, want)
	}

	for url, want := range map[string]string{
		"https://github.com/acme/widgets.git":   "git fetch origin pull/10/head:refs/pull/10/head",
		"git@codeberg.org:acme/widgets.git":     "git fetch origin pull/10/head:refs/pull/10/head",
		"https://gitlab.example.org/acme/w.git": "git fetch origin merge-requests/10/head:refs/merge-requests/10/head",
		"https://git.example.org/acme/w.git":    "git fetch origin pull/10/head:refs/pull/10/head where origin keeps",
	} {
		c.Git("remote", "set-url", "origin", url)
		msg := h.fails("get_pull_request", prArgs(10), "NOT_FOUND")
		both := strings.Contains(msg, "merge-requests/10/head:") && strings.Contains(msg, "pull/10/head:")
		if !strings.Contains(msg, want) || both != strings.HasPrefix(url, "https://git.example") {
			t.Errorf("origin %s: %s", url, msg)
		}
	}
}
