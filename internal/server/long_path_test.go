package server

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Finding 17 of review 4: a path whose bytes fit a reply but whose JSON
// does not (12,000 "<", each \u003c) was neither shown nor refused by
// list_changed_files and search_code: each answered with no entry and a
// next call that repeated itself, forever, and the file after it was never
// listed. Now the entry comes with its path cut, said so, and the drain
// goes on: every next call moves, and z.txt is listed.
func TestLongEscapedPathDoesNotLoop(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "base\n")
	base := r.Commit("base")
	long := strings.Repeat("<", 12_000) + ".txt"
	fastCommits(r, "refs/heads/long", base, 1, func(int) (string, map[string]string) {
		return "long\n", map[string]string{long: "TODO deep\n", "z.txt": "TODO z\n"}
	})
	for _, name := range []string{"claude-code", "a client nobody knows"} {
		h := serveAs(t, r, name, nil)
		for _, c := range []struct {
			tool string
			args map[string]any
			last string
		}{
			{"list_changed_files", args("base", base, "head", "long"), "z.txt"},
			{"search_code", args("query", "TODO", "ref", "long"), "z.txt:1: TODO z"},
		} {
			results := drainResults(t, h, c.tool, c.args)
			var all strings.Builder
			for _, res := range results {
				all.WriteString(textOf(res))
			}
			if len(results) > 3 || !strings.Contains(all.String(), c.last) || !strings.Contains(all.String(), "[left out: the end of the path of ") {
				t.Errorf("%s, %s: %d parts; z.txt listed: %v; the cut path said: %v", name, c.tool, len(results),
					strings.Contains(all.String(), c.last), strings.Contains(all.String(), "[left out: the end of the path of "))
			}
		}
	}
}
