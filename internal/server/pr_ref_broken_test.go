package server

import (
	"strings"
	"testing"
)

// TestPullRequestRefAtATreeSaysSo: review 3, section D. refs/pull/1/head
// pointing at a tree was "pull request #1 does not exist (no
// refs/pull/1/head)": the ref exists, it is not a commit.
func TestPullRequestRefAtATreeSaysSo(t *testing.T) {
	r := repoWith(t, map[string]string{"README": "base\n"})
	r.Git("update-ref", "refs/pull/1/head", strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}")))
	h := serve(t, r, withTextOnly())
	if msg := h.fails("get_pull_request_diff", prArgs(1), "INVALID_REF"); !strings.Contains(msg, "refs/pull/1/head points at a tree, not a commit") {
		t.Errorf("a pull request ref at a tree: %q", msg)
	}
	if msg := h.fails("get_pull_request_diff", prArgs(2), "NOT_FOUND"); !strings.Contains(msg, "does not exist") {
		t.Errorf("no ref: %q", msg)
	}
}
