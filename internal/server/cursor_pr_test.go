package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// TestCursorPinsThePullRequestHead: review 3, finding 02. A cursor signed
// with the server's key (one planted in a shared cache) pinned another
// branch's head and its merge base, and the pull request tools showed that
// branch as the pull request: the pins were checked to be commits, never to
// be that pull request's. A cursor's head pin must be the pull request's
// head now; a base that moved on is fine.
func TestCursorPinsThePullRequestHead(t *testing.T) {
	for _, c := range cursorCalls {
		if !strings.Contains(c.name, "pull_request") && c.name != "list_commits_index" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			r := cursorRepo(t)
			h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
			next := firstNext(t, h, c.tool, c.args)
			cur := next["cursor"].(string)
			other := strings.TrimSpace(r.Git("rev-parse", "refs/pull/8/head")) // another branch of the same base
			mb := strings.TrimSpace(r.Git("merge-base", "main", other))
			minted := resign(t, h, cur, "acme/widgets", func(c *paging.Cursor) { c.Commits[1], c.Commits[2] = mb, other })
			if msg := failsLeaveOut(t, h, c.tool, with(next, "cursor", minted)); !strings.Contains(msg, "the pull request moved") {
				t.Errorf("a cursor pinning another head: %q", msg)
			}

			// The base branch moves on: the cursor goes on.
			r.Write("later.txt", "main moves on again\n")
			r.Commit("main: later")
			if res := h.call(c.tool, next); res.IsError {
				t.Fatalf("the base moved on, the head did not: %s", textOf(res))
			}
			// The head moves: start over.
			r.Git("update-ref", fmt.Sprintf("refs/pull/%v/head", c.args["index"]), other)
			msg := failsLeaveOut(t, h, c.tool, next)
			if !strings.Contains(msg, "the pull request moved") || !strings.Contains(msg, "start over without cursor") {
				t.Errorf("the head moved: %q", msg)
			}
		})
	}
}
