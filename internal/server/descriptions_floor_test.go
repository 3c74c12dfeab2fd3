package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"
)

// Every maxBytes says what 0 means and the floor a smaller one is raised
// to, the one the server applies: toolcall.MinReplyBytes for a reply,
// paging.MinPartRoom for the diff tools' patch bytes.
func TestMaxBytesDescriptionsStateTheFloor(t *testing.T) {
	n := 0
	for _, d := range Tools() {
		p := d.Tool().InputSchema.(*jsonschema.Schema).Properties["maxBytes"]
		if p == nil {
			continue
		}
		n++
		floor := toolcall.MinReplyBytes
		if d.Name() == "get_diff" || d.Name() == "get_commit" {
			floor = paging.MinPartRoom
		}
		if want := fmt.Sprintf("raised to %d if less", floor); !strings.Contains(p.Description, want) || !strings.Contains(p.Description, "(0: ") {
			t.Errorf("%s: maxBytes %q does not say %q and what 0 means", d.Name(), p.Description, want)
		}
	}
	if n < 15 {
		t.Errorf("%d tools have maxBytes; want every paged one", n)
	}
}

// get_pull_request says where a local pull request's base comes from;
// and when it is the checked-out branch because the merge ref is not
// fetched, and that branch already holds the head (a clone with the pull
// request's own branch checked out showed "0 files changed"), the reply
// says so, and gives the call for another base.
func TestCheckedOutBaseIsSaid(t *testing.T) {
	desc := getPullRequestTool.Tool().Description
	if !strings.Contains(desc, "refs/pull/<index>/merge^1 if fetched, else the checked-out branch") {
		t.Errorf("get_pull_request does not say where a local base comes from:\n%s", desc)
	}
	r := testrepo.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("a.go", "package a\n\nfunc A() {}\n")
	head := r.Commit("feature")
	r.Git("update-ref", "refs/pull/5/head", head)
	h := serve(t, r, withTextOnly())
	const warn = "its base is the checked-out branch (feature), as refs/pull/5/merge is not fetched: if that is the pull request's own branch, not its target, get_diff with base set to the target and head=refs/pull/5/head gives its changes"
	over := h.ok("get_pull_request", prArgs(5))
	if !strings.Contains(over, "0 files changed") || !strings.Contains(over, warn) || !strings.Contains(over, "(the checked-out branch: refs/pull/5/merge is not fetched)") {
		t.Errorf("get_pull_request with the pull request's branch checked out:\n%s", over)
	}
	if diff := h.ok("get_pull_request_diff", prArgs(5)); !strings.Contains(diff, warn) {
		t.Errorf("get_pull_request_diff with the pull request's branch checked out:\n%s", diff)
	}
	// With the base branch checked out: the changes, and no warning.
	r.Git("checkout", "-q", "main")
	if over := h.ok("get_pull_request", prArgs(5)); !strings.Contains(over, "1 file changed") || strings.Contains(over, "pull request's own branch, not its target") {
		t.Errorf("get_pull_request with main checked out:\n%s", over)
	}
	// With the merge ref fetched, its first parent is the base: no warning
	// even when that base holds the head.
	r.Git("checkout", "-q", "feature")
	merge := strings.TrimSpace(r.Git("commit-tree", head+"^{tree}", "-p", head, "-m", "merge"))
	r.Git("update-ref", "refs/pull/5/merge", merge)
	if over := h.ok("get_pull_request", prArgs(5)); !strings.Contains(over, "0 files changed") || strings.Contains(over, "pull request's own branch, not its target") {
		t.Errorf("get_pull_request with the merge ref:\n%s", over)
	}
}
