package server

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func TestRenameLineNew(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"new.go (from old.go)", "new.go", true},
		{"pkg/a_test.go (from pkg/b_test.go) [test]", "pkg/a_test.go", true},
		{"gen.pb.go (from old.pb.go) [test] [generated]", "gen.pb.go", true},
		{`"sp ace " (from "x\ty")`, "sp ace ", true},
		{`"a\"b" (from c)`, `a"b`, true},
		{"plain.go", "", false},
		{"notes (draft).md", "", false},
		{" (from old.go)", "", false},
		{"new.go (from )", "", false},
		{`"unterminated (from x)`, "", false},
	} {
		got, ok := renameLineNew(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("renameLineNew(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// A rename as the file lists write it, "new (from old)", copied whole into
// file_path or path, is read as its new path, with a note; a file that
// has that very name is read as named.
func TestFilePathTakesRenameLine(t *testing.T) {
	r := testrepo.New(t)
	body := strings.Repeat("a line that stays\n", 30)
	r.Write("pkg/old_test.go", body)
	r.Write("x (from y)", "a file named like a rename line\n")
	base := r.Commit("base")
	r.Git("mv", "pkg/old_test.go", "pkg/new_test.go")
	r.Write("pkg/new_test.go", body+"one more\n")
	r.Write("x (from y)", "a file named like a rename line, changed\n")
	head := r.Commit("head")
	r.Git("update-ref", "refs/pull/4/head", head)
	r.Git("update-ref", "refs/heads/main", base)
	h := serve(t, r, withTextOnly())

	// The line as list_pull_request_files writes it.
	list := h.ok("list_pull_request_files", prArgs(4))
	var line string
	for _, l := range strings.Split(list, "\n") {
		if i := strings.Index(l, "pkg/new_test.go (from "); i >= 0 {
			line = l[i:]
		}
	}
	if line != "pkg/new_test.go (from pkg/old_test.go) [test]" {
		t.Fatalf("list_pull_request_files does not write the rename as the test expects (%q):\n%s", line, list)
	}
	note := `[note: file_path "` + line + `" is a file list's rename line: read as its new path "pkg/new_test.go"]`
	text := h.ok("get_pull_request_diff", prArgs(4, "file_path", line))
	if !strings.Contains(text, note) {
		t.Errorf("get_pull_request_diff file_path %q: no note %s:\n%s", line, note, text)
	}
	checkJoined(t, []string{patchOf(text)}, r.Git("diff", "-M", base, head, "--", "pkg/old_test.go", "pkg/new_test.go"))

	// read_file and blame: the new path at head.
	text = h.ok("read_file", args("path", line, "ref", head))
	if !strings.Contains(text, "one more") || !strings.Contains(text, `read as its new path "pkg/new_test.go"`) {
		t.Errorf("read_file path %q:\n%s", line, text)
	}
	if text = h.ok("blame", args("path", line, "ref", head, "start_line", 31, "end_line", 31)); !strings.Contains(text, "one more") {
		t.Errorf("blame path %q:\n%s", line, text)
	}

	// A file of that very name is read as named.
	text = h.ok("get_pull_request_diff", prArgs(4, "file_path", "x (from y)"))
	if !strings.Contains(text, "+a file named like a rename line, changed") || strings.Contains(text, "rename line: read as") {
		t.Errorf("get_pull_request_diff file_path %q did not read the file of that name:\n%s", "x (from y)", text)
	}
	// A rename line whose new path is not in the diff either: the error of
	// the path as given.
	h.fails("get_pull_request_diff", prArgs(4, "file_path", "gone.go (from pkg/old_test.go)"), "NOT_FOUND")
}
