package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestRenameSearchHasGitsLimit: review 3, finding 05. A commit that
// replaces many files with unlike ones made every diff of it compare each
// deleted file with each added one, up to our limit of 5,000 (25 million
// pairs, ~6 s of CPU a diff): the author set the price. The limit is git's
// own now (1,000); past it git pairs only exact renames, and the diff says
// so. Here 1,001 files are replaced by 1,001 others, one of them a moved and
// changed copy: git at our old limit pairs it as a rename; now it is a
// deleted and an added file, and the note says why.
func TestRenameSearchHasGitsLimit(t *testing.T) {
	r := repoWith(t, map[string]string{"README": "base\n"})
	body := func(tag string, i int) string {
		return fmt.Sprintf("%s file %d\n%s\n", tag, i, strings.Repeat(fmt.Sprintf("line of %s %d\n", tag, i), 8))
	}
	moved := strings.Repeat("the moved file's own line\n", 30)
	var stream strings.Builder
	commit := func(msg string, files map[string]string) {
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter Ann <ann@example.com> 1700000000 +0000\ndata %d\n%sfrom refs/heads/main^0\ndeleteall\n", len(msg), msg)
		for p, c := range files {
			fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", p, len(c), c)
		}
	}
	before, after := map[string]string{"old/moved.txt": moved}, map[string]string{"new/moved-here.txt": moved + "one more line\n"}
	for i := range 1000 {
		before[fmt.Sprintf("old/f%d.txt", i)] = body("old", i)
		after[fmt.Sprintf("new/g%d.txt", i)] = body("new", i)
	}
	commit("before\n", before)
	r.GitInput(stream.String(), "fast-import", "--quiet", "--force")
	stream.Reset()
	commit("after\n", after)
	r.GitInput(stream.String(), "fast-import", "--quiet", "--force")
	r.Git("reset", "-q", "--hard", "main")
	if out := r.Git("diff", "--name-status", "-M", "-l", "5000", "main^", "main"); !strings.Contains(out, "new/moved-here.txt") || !strings.Contains(out, "\nR") && !strings.HasPrefix(out, "R") {
		t.Fatalf("control: at the old limit git pairs the moved file as a rename:\n%.300s", out)
	}
	h := serve(t, r, withTextOnly())
	const note = "[renames not searched"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_diff", args("base", "main^", "head", "main", "paths", []string{"new/moved-here.txt", "old/moved.txt"})},
		{"get_commit", args("ref", "main")},
	} {
		got := h.ok(c.tool, c.args)
		if !strings.Contains(got, note) {
			t.Errorf("%s: no note that renames were not searched:\n%.600s", c.tool, got)
		}
	}
}
