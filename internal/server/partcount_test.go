package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
)

// Every part of a paged diff says "part k of n", and n is the drain's
// count exactly: counted by the pager's own cut, as every client, whole,
// one file or some (issue 38, "exact counts, numbered parts").
func TestPartsSayKOfN(t *testing.T) {
	r := clientsRepo(t)
	names := []string{"a client nobody knows"}
	for _, rule := range clients.Known {
		names = append(names, rule.Names[0])
	}
	for _, name := range names {
		h := serveAs(t, r, name, nil, withMaxBytes(48_000))
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"get_pull_request_diff", prArgs(5)},
			{"get_pull_request_diff", prArgs(5, "file_path", "big.txt")},
			{"get_pull_request_diff", prArgs(5, "paths", []string{"src/pkg01", "big.txt"}, "contextLines", 1)},
			{"get_diff", args("base", "main", "head", "refs/pull/5/head")},
			{"get_commit", args("ref", "refs/pull/5/head")},
		} {
			results := drainResults(t, h, c.tool, c.args)
			if len(results) == 1 {
				continue // whole: no header
			}
			for i, res := range results {
				want := fmt.Sprintf("part %d of %d", i+1, len(results))
				if !strings.Contains(textOf(res), want) {
					t.Errorf("%s, %s %v: part %d does not say %q: %.300s", name, c.tool, c.args, i+1, want, textOf(res))
					break
				}
			}
		}
	}
}
