package server

// Hostile repositories whose own files (grafts, config keys that name a
// file or change a diff, symlinked or blocking files in the git directory)
// tried to make a reply lie or to lead the server out of its root, driven
// through the tools. Plain git is the control: the hostile thing happens
// there.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A graft in .git/info/grafts hides a commit from plain git's history and
// gives its child another parent; the tools show the commits as they are
// (docs/security.md, finding 08).
func TestHostileGraftsIgnored(t *testing.T) {
	r := testrepo.New(t)
	commitOne(r, "f", "1\n", "c1")
	commitOne(r, "f", "2\n", "c2 adds the backdoor")
	commitOne(r, "f", "3\n", "c3")
	head, realParent, grafted := r.Head(), r.Git("rev-parse", "HEAD~1"), r.Git("rev-parse", "HEAD~2")
	realParent, grafted = strings.TrimSpace(realParent), strings.TrimSpace(grafted)
	if err := os.WriteFile(filepath.Join(r.Dir, ".git", "info", "grafts"), []byte(head+" "+grafted+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("log", "--format=%s"); strings.Contains(got, "backdoor") {
		t.Fatalf("control: plain git log still lists the grafted-out commit:\n%s", got)
	}

	h := serve(t, r)
	if got := h.ok("list_commits", args()); !strings.Contains(got, "c2 adds the backdoor") {
		t.Errorf("list_commits hides the commit a graft cuts out:\n%s", got)
	}
	got := h.ok("get_commit", args("ref", head))
	if !strings.Contains(got, realParent) || strings.Contains(got, grafted) {
		t.Errorf("get_commit does not name the commit's real parent %s:\n%s", realParent, got)
	}
}
