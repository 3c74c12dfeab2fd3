package server

import (
	"strings"
	"testing"
)

// TestListCommitsHiddenPathHasNoHistory: review 3, finding 11. list_commits
// paths=.env listed the commits that touched a file the secrets policy
// hides ("rotate the production AWS key"), where blame refuses the path. It
// is refused now as blame refuses it, whether or not the file exists, and
// with follow.
func TestListCommitsHiddenPathHasNoHistory(t *testing.T) {
	r := repoWith(t, map[string]string{"README": "base\n", ".env": "AWS_KEY=one\n"})
	r.Write(".env", "AWS_KEY=two\n")
	r.Commit("rotate the production AWS key")
	h := serve(t, r, withTextOnly())
	blame := h.fails("blame", args("path", ".env"), "PATH_DENIED")
	for _, a := range []map[string]any{
		args("paths", []string{".env"}),
		args("paths", []string{"README", ".env"}),
		args("paths", []string{".env"}, "follow", true),
		args("paths", []string{"config/.env"}), // never existed: the same answer
	} {
		msg := h.fails("list_commits", a, "PATH_DENIED")
		if strings.Contains(msg, "rotate") {
			t.Errorf("list_commits %v: %q", a, msg)
		}
	}
	if got := h.ok("list_commits", args("paths", []string{"README"})); strings.Contains(got, "rotate") {
		t.Errorf("control: README's history holds the .env commit:\n%s", got)
	}
	t.Logf("blame says: %s", blame)
}
