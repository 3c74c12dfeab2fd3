package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A structured reply carries each patch twice (payloadRoom), so at a
// small --max-bytes a part has little room: get_diff gave only its header
// for 8 files with 160-byte paths (no patch, no next call: the diff was
// lost without a word), and with shorter paths left out 36-byte lines as
// "longer than a whole reply". Now every part fits, every file's patch is
// reached by following the next calls, and only a file whose header lines
// truly cannot fit is left out, alone in its part, with a note saying so.
func TestStructuredSmallLimitLosesNoPatch(t *testing.T) {
	for _, n := range []int{36, 120, 160} {
		r := testrepo.New(t)
		name := func(i int) string { return fmt.Sprintf("d%d/%s.txt", i, strings.Repeat("p", n-7)) }
		for i := range 8 {
			r.Write(name(i), "start\n")
		}
		base := r.Commit("base")
		r.Git("checkout", "-q", "-b", "feature")
		for i := range 8 {
			r.Write(name(i), "start\n"+strings.Repeat(fmt.Sprintf("%-35s\n", fmt.Sprintf("a changed line of file %d", i)), 30)) // 36-byte lines
		}
		head := r.Commit("head")
		r.Git("update-ref", "refs/pull/1/head", head)
		r.Git("checkout", "-q", "main")
		h := serve(t, r, withMaxBytes(4096)) // --structured
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"get_diff", diffArgs("base", base, "head", head)},
			{"get_commit", args("ref", head)},
			{"get_pull_request_diff", prArgs(1)},
		} {
			t.Run(fmt.Sprintf("%s/%d", c.tool, n), func(t *testing.T) {
				parts, texts, _ := drainWithin(t, h, c.tool, c.args)
				var want []string // the files not left out, by git
				for i := range 8 {
					leftOut := fmt.Sprintf("[left out: the patch of %s, whose header lines alone are longer than a whole reply", name(i))
					switch noted := strings.Count(strings.Join(texts, ""), leftOut); {
					case noted == 1 && n == 160:
					case noted == 0:
						want = append(want, name(i))
					default:
						t.Fatalf("%s is noted left out %d times, with %d-byte paths", name(i), noted, n)
					}
				}
				for i, text := range texts {
					if strings.Contains(text, "longer than a whole reply") && !strings.Contains(text, "header lines alone") {
						t.Fatalf("part %d leaves out a line:\n%s", i, text)
					}
				}
				if len(want) == 0 {
					return
				}
				if c.tool == "get_commit" {
					// The first part's patch follows the commit's preamble.
					parts[0] = ""
					if _, patch, ok := strings.Cut(texts[0], "\ndiff --git "); ok {
						parts[0] = patchOf("diff --git " + patch)
					}
				}
				checkJoined(t, nonEmpty(parts), r.Git(append([]string{"diff", "-M", base, head, "--"}, want...)...))
			})
		}
	}
}

func nonEmpty(parts []string) []string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// drainWithin follows a paged call's next calls to the end, as drain
// does, and checks every part's size as the server's backstop measures it
// (the result's JSON and the envelope reserve): within the limit, so that
// no part is refused as a server fault.
func drainWithin(t *testing.T, h *harness, tool string, args map[string]any) (parts, texts []string, largest int) {
	t.Helper()
	for i, res := range drainResults(t, h, tool, args) {
		size := resultBytes(t, res) + paging.EnvelopeReserve
		if size > h.maxBytes {
			t.Fatalf("part %d: %d bytes as the server measures it, over the %d-byte limit", i, size, h.maxBytes)
		}
		largest = max(largest, size)
		parts, texts = append(parts, patchOf(textOf(res))), append(texts, textOf(res))
	}
	return parts, texts, largest
}
