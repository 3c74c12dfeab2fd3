package server

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A TOO_LARGE error suggests only what can help: no argument the call did
// not give (list_commits' paths), and the wrapper's backstop, which only a
// fault of the server reaches, no narrowing at all (docs/security.md,
// finding 14). A file list does not refuse a path longer than a reply: it
// shows it cut, and says so (review 4, findings 17).
func TestTooLargeSuggestsOnlyWhatHelps(t *testing.T) {
	t.Run("list_commits without paths", func(t *testing.T) {
		r := testrepo.New(t)
		r.Write("a.txt", "a\n")
		r.Commit("one")
		// Control characters take six bytes each as JSON: at the smallest
		// limit, with --structured, the capped entry still does not fit.
		ctl := strings.Repeat("\x01", 500)
		r.Write("b.txt", "b\n")
		r.Git("add", "b.txt")
		tree := strings.TrimSpace(r.Git("write-tree"))
		obj := "tree " + tree + "\nparent " + r.Head() + "\nauthor " + strings.Repeat("\x02", 200) + " <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\n" + ctl + "\n"
		sha := strings.TrimSpace(r.GitInput(obj, "hash-object", "-t", "commit", "-w", "--literally", "--stdin"))
		r.Git("update-ref", "refs/heads/main", sha)
		h := serve(t, r, withMaxBytes(MinMaxBytes))
		msg := h.fails("list_commits", args("limit", 1), "TOO_LARGE")
		if strings.Contains(msg, "paths") || !strings.Contains(msg, "no argument makes it smaller") {
			t.Fatalf("without paths: %s", msg)
		}
		msg = h.fails("list_commits", args("limit", 1, "paths", []string{"b.txt"}), "TOO_LARGE")
		if !strings.Contains(msg, "list fewer paths") {
			t.Fatalf("with paths: %s", msg)
		}
	})
	t.Run("list_pull_request_files cuts a path longer than a reply", func(t *testing.T) {
		r := testrepo.New(t)
		r.Write("a.txt", "a\n")
		base := r.Commit("one")
		// The second file (a.txt is deleted) has a path of about 3,000
		// bytes, in the text and the structured content: more than the
		// smallest reply holds.
		r.Git("update-ref", "refs/pull/1/head", r.CommitWide(base, 1, 15, "a long path"))
		h := serve(t, r, withMaxBytes(MinMaxBytes))
		res := h.call("list_pull_request_files", args("owner", "acme", "repo", "widgets", "index", 1, "limit", 1, "page", 2))
		if msg := textOf(res); res.IsError || !strings.Contains(msg, "[left out: the end of the path of file 2, longer than a reply: ") {
			t.Fatalf("limit 1: %s", msg)
		}
	})
}
