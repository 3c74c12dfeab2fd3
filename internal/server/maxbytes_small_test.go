package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A maxBytes under a line's length never means "no limit": get_diff and
// get_commit with maxBytes 1–280 and 300-byte lines gave the whole diff in
// one reply (the room grew to the client's whole budget for the line),
// where 300 gave small parts. Every part stays small, a maxBytes under
// the floor is raised with a note, and the parts join to git's patch.
func TestSmallMaxBytesStaysSmall(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.c", "int main;\n")
	base := r.Commit("base")
	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("w", 290))
	}
	r.Write("a.c", b.String())
	r.Write("b.c", b.String())
	head := r.Commit("head")
	h := serve(t, r, withTextOnly()) // 64 KiB: the whole diff fits in one reply
	want := r.Git("diff", "-M", base, head)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_diff", args("base", base, "head", head)},
		{"get_commit", args("sha", head)},
	} {
		for _, maxBytes := range []int{1, 100, paging.MinPartRoom - 1, paging.MinPartRoom, 280, 300} {
			a := args("maxBytes", maxBytes)
			for k, v := range c.args {
				a[k] = v
			}
			first := h.ok(c.tool, a)
			raised := strings.Contains(first, fmt.Sprintf("maxBytes %d is less than a part needs: raised to %d bytes of patch", maxBytes, paging.MinPartRoom))
			if raised != (maxBytes < paging.MinPartRoom) {
				t.Errorf("%s maxBytes %d: raised note %v:\n%s", c.tool, maxBytes, raised, first)
			}
			parts := drain(t, h, c.tool, a)
			if len(parts) < 10 {
				t.Errorf("%s maxBytes %d: %d parts for a %d-byte diff", c.tool, maxBytes, len(parts), len(want))
			}
			for i, p := range parts {
				// A 300-byte line needs about 400 bytes of room with its
				// file's header lines; a part has at most lostGrowth
				// times that.
				if len(p) > 2048 {
					t.Errorf("%s maxBytes %d: part %d holds %d bytes of patch", c.tool, maxBytes, i+1, len(p))
				}
			}
			if c.tool == "get_diff" {
				checkJoined(t, parts, want)
			}
		}
	}
}
