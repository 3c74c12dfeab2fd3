package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// lineNumbers numbers every hunk line of every part, says so with its
// cost, and the numbers taken off (diff.UnnumberLines) leave git's patch:
// the parts joined are git's, and each number is the line's in its blob.
func TestLineNumbersInEveryPart(t *testing.T) {
	r := testrepo.New(t)
	var a, b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&a, "line %d\n", i)
		if i%7 == 0 {
			fmt.Fprintf(&b, "line %d changed\n", i)
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	r.Write("a.txt", a.String())
	r.Write("gone.txt", "x\ny\n")
	base := r.Commit("base")
	r.Write("a.txt", b.String())
	r.Git("rm", "-q", "gone.txt")
	r.Write("new.txt", "n1\nn2\n")
	head := r.Commit("head")
	patch := r.Git("diff", "-M", base, head)
	newBlob := strings.Split(r.Show(head, "a.txt"), "\n")
	oldBlob := strings.Split(r.Show(base, "a.txt"), "\n")
	for _, c := range []struct {
		tool string
		a    map[string]any
	}{
		{"get_diff", args("base", base, "head", head, "lineNumbers", true)},
		{"get_commit", args("ref", head, "lineNumbers", true)},
	} {
		h := serve(t, r, withMaxBytes(4000), withTextOnly())
		res := drainResults(t, h, c.tool, c.a)
		if len(res) < 3 {
			t.Fatalf("%s: %d parts; the test wants several", c.tool, len(res))
		}
		var parts [][]byte
		checked := 0
		for i, p := range res {
			text := textOf(p)
			if c.tool == "get_commit" && i == 0 {
				_, text, _ = strings.Cut(text, "\nPatch against ")
			}
			if !strings.Contains(text, "[note: lineNumbers: each hunk line is git's sign") {
				t.Fatalf("%s part %d does not say its lines are numbered:\n%s", c.tool, i, text)
			}
			numbered := patchOf(text)
			for _, l := range strings.Split(numbered, "\n") {
				sign, rest, ok := strings.Cut(l, "\t")
				if !ok || len(sign) < 2 || !strings.Contains("+- ", sign[:1]) {
					continue
				}
				nums := strings.SplitN(sign[1:], " ", 2)
				if len(nums) != 2 {
					t.Fatalf("%s: a numbered line %q", c.tool, l)
				}
				if o, err := strconv.Atoi(nums[0]); err == nil && strings.HasPrefix(rest, "line ") && oldBlob[o-1] != rest {
					t.Fatalf("%s: %q: old line %d is %q", c.tool, l, o, oldBlob[o-1])
				}
				if n, err := strconv.Atoi(nums[1]); err == nil && strings.HasPrefix(rest, "line ") && newBlob[n-1] != rest {
					t.Fatalf("%s: %q: new line %d is %q", c.tool, l, n, newBlob[n-1])
				}
				checked++
			}
			plain, err := diff.UnnumberLines([]byte(numbered))
			if err != nil {
				t.Fatalf("%s part %d: %v", c.tool, i, err)
			}
			parts = append(parts, plain)
		}
		joined, err := diff.Join(parts...)
		if err != nil || string(joined) != patch {
			t.Fatalf("%s: the parts, numbers off, are not git's patch (%v)", c.tool, err)
		}
		if checked < 100 {
			t.Fatalf("%s: only %d numbered lines checked", c.tool, checked)
		}
	}
}
