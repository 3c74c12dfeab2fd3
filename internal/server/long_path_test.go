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

// Findings 04 and 05 of review 4: a line whose bytes fit the client's
// budget but whose JSON does not (3,000 "<", each \u003c) made read_file
// (and read_job_log, which shares its pager) answer "lines 2–1 of 5" with a
// next call that repeated itself. The fit is now measured as the client
// counts the reply, escaped: the line comes whole or in pieces, and the
// drain reaches the file's end.
func TestEscapeHeavyLineDoesNotLoop(t *testing.T) {
	r := testrepo.New(t)
	content := "one\n" + strings.Repeat("<", 3000) + "\n" + strings.Repeat("<", 30_000) + "\nlast\n"
	r.Write("lt.txt", content)
	r.Commit("escape-heavy lines")
	h := serveAs(t, r, "a client nobody knows", nil)
	results := drainResults(t, h, "read_file", args("path", "lt.txt"))
	var all strings.Builder
	for _, res := range results {
		all.WriteString(textOf(res))
	}
	if len(results) > 30 || !strings.Contains(all.String(), "last\n") {
		t.Errorf("%d parts; the last line read: %v", len(results), strings.Contains(all.String(), "last\n"))
	}
}
