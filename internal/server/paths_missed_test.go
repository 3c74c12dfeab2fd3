package server

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Paths that match no changed file are named, once, while the others are
// served: a typo beside paths that matched went unseen. A path naming the
// old side of a rename matched it.
func TestPathsMatchingNothingAreNamed(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.go", "package a\n")
	r.Write("old.txt", strings.Repeat("kept line\n", 20))
	r.Write("dir/b.go", "package b\n")
	r.Write("other.go", "package other\n")
	base := r.Commit("base")
	r.Write("a.go", "package a\n\nfunc A() {}\n")
	r.Git("mv", "old.txt", "new.txt")
	r.Write("dir/b.go", "package b\n\nfunc B() {}\n")
	r.Write("other.go", "package other\n\nfunc O() {}\n")
	head := r.Commit("head")
	r.Git("update-ref", "refs/pull/3/head", head)
	r.Git("update-ref", "refs/heads/main", base)
	h := serve(t, r, withTextOnly())
	paths := []string{"a.go", "nope.go", "old.txt", "dir", "typo/deep"}
	note := "[paths that match no changed file: nope.go, typo/deep; paths are literal files or directories, not globs]"
	want := r.Git("diff", "-M", base, head, "--", "a.go", "dir", "new.txt", "old.txt")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_diff", args("base", base, "head", head, "paths", paths)},
		{"get_pull_request_diff", prArgs(3, "paths", paths)},
		{"list_changed_files", args("base", base, "head", head, "paths", paths)},
	} {
		text := h.ok(c.tool, c.args)
		if !strings.Contains(text, note) {
			t.Errorf("%s with paths %q does not name those that matched nothing:\n%s", c.tool, paths, text)
		}
		if strings.Contains(text, "other.go") {
			t.Errorf("%s with paths %q shows other.go:\n%s", c.tool, paths, text)
		}
		if c.tool != "list_changed_files" {
			checkJoined(t, []string{patchOf(text)}, want)
			continue
		}
		// (It lists a rename's named side alone, as git's pathspec does.)
		for _, f := range []string{"a.go", "dir/b.go", "old.txt"} {
			if !strings.Contains(text, f) {
				t.Errorf("list_changed_files with paths %q leaves out %s:\n%s", paths, f, text)
			}
		}
	}
	// Said once: the parts after the first do not repeat it.
	parts := drainResults(t, h, "get_diff", args("base", base, "head", head, "paths", paths, "maxBytes", 256))
	if len(parts) < 2 {
		t.Fatalf("get_diff at maxBytes 256: %d parts; the fixture should need more", len(parts))
	}
	for i, res := range parts {
		if got := strings.Contains(textOf(res), note); got != (i == 0) {
			t.Errorf("get_diff part %d of %d: the note is there: %v", i+1, len(parts), got)
		}
	}
	// Every path matched: no note; none matched: the empty reply says so.
	if text := h.ok("get_diff", args("base", base, "head", head, "paths", []string{"a.go", "dir"})); strings.Contains(text, "match no changed file") {
		t.Errorf("get_diff names a path that matched:\n%s", text)
	}
	if text := h.ok("get_diff", args("base", base, "head", head, "paths", []string{"nope.go", "typo"})); strings.Contains(text, "match no changed file") || !strings.Contains(text, "No changed file is at or under the paths given") {
		t.Errorf("get_diff with no path matching:\n%s", text)
	}
}
