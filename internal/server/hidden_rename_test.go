package server

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A rename with one side hidden by the secrets policy is named in a
// diff's note by its public side, said to be renamed from or to a hidden
// path: the note does not call the public path hidden, and names nothing
// of the hidden side, in every tool that notes it (docs/security.md,
// finding 14).
func TestHiddenRenameNoteNamesOnlyThePublicSide(t *testing.T) {
	r := testrepo.New(t)
	r.Write("notes.txt", strings.Repeat("a public line of notes\n", 20))
	r.Write(".env", strings.Repeat("TOKEN=hunter2\n", 20))
	base := r.Commit("one")
	r.Git("mv", "notes.txt", ".env.production")
	r.Git("mv", ".env", "config.txt")
	r.Write("config.txt", strings.Repeat("TOKEN=hunter2\n", 20)+"one more\n")
	r.Write(".env.local", "TOKEN=hunter3\n")
	head := r.Commit("renames")
	r.Git("update-ref", "refs/pull/1/head", head)
	r.Git("reset", "-q", "--hard", base) // the pull request is not merged
	want := "[hidden by the server's secrets policy: .env.local, notes.txt (renamed to a hidden path), config.txt (renamed from a hidden path)]"
	h := serve(t, r, withTextOnly())
	for name, text := range map[string]string{
		"get_diff":              h.ok("get_diff", args("base", base, "head", head, "mode", "direct")),
		"get_commit":            h.ok("get_commit", args("ref", head)),
		"get_pull_request_diff": h.ok("get_pull_request_diff", args("owner", "acme", "repo", "widgets", "index", 1)),
	} {
		if strings.Contains(text, "hunter") || !strings.Contains(text, want+"\n") {
			t.Errorf("%s: the note is not %q:\n%s", name, want, text)
		}
	}
}
