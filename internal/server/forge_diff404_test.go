package server

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
)

// TestForgeDiff404IsNotAMissingPullRequest: review 3, section D. A forge
// that serves pull request #3 but answers 404 for its .diff was reported
// as "pull request #3 does not exist". It says now that the forge does not
// serve the diff, and what reads it instead; a pull request that does not
// exist is still NOT_FOUND.
func TestForgeDiff404IsNotAMissingPullRequest(t *testing.T) {
	f := forgetest.New(t)
	p := newFakePull("a pull request")
	f.API = p.serve // pulls/3 exists; pulls/3.diff and every other pull request: 404
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 10*time.Second, time.Hour)
	for _, tool := range []string{"get_pull_request_diff", "list_pull_request_files"} {
		msg := h.fails(tool, prArgs(3), "UNAVAILABLE")
		if !strings.Contains(msg, "404") || !strings.Contains(msg, "though the pull request exists") || !strings.Contains(msg, "get_diff") {
			t.Errorf("%s: %q", tool, msg)
		}
	}
	if msg := h.fails("get_pull_request_diff", prArgs(5), "NOT_FOUND"); !strings.Contains(msg, "does not exist") {
		t.Errorf("a missing pull request: %q", msg)
	}
}
