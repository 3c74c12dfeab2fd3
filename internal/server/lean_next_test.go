package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A next call is the caller's call and a cursor: no default the server
// filled in (contextLines, limit, mode, order), and a maxBytes the server
// changed as it used it, so that its note comes once, not on every part
// (issue 38, "lean next calls").
func TestNextCallCarriesOnlyTheCallersArguments(t *testing.T) {
	r := testrepo.New(t)
	var long strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&long, "line %d of a file long enough for several parts\n", i)
	}
	r.Write("long.txt", long.String())
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write("long.txt", strings.ReplaceAll(long.String(), "line", "LINE"))
	r.Git("update-ref", "refs/pull/3/head", r.Commit("the change"))
	r.Git("checkout", "-q", "main")
	h := serve(t, r, withMaxBytes(8000))

	for _, c := range []struct {
		tool       string
		args       map[string]any
		want, none []string // argument names the next call has, and has not
	}{
		{"get_pull_request_diff", prArgs(3), []string{"owner", "repo", "index", "cursor"}, []string{"contextLines", "maxBytes"}},
		{"get_pull_request_diff", prArgs(3, "contextLines", 3), []string{"contextLines", "cursor"}, []string{"maxBytes"}},
		{"read_file", args("path", "long.txt"), []string{"path", "startLine"}, []string{"maxBytes", "endLine"}},
		{"read_file", args("path", "long.txt", "maxBytes", 100), []string{"path", "startLine", "maxBytes"}, nil},
		{"read_file", args("path", "long.txt", "maxBytes", 1_000_000), []string{"path", "startLine"}, []string{"maxBytes"}},
		{"list_commits", args("ref", "pr", "limit", 1), []string{"ref", "limit", "cursor"}, []string{"mode", "order"}},
	} {
		results := drainResults(t, h, c.tool, c.args)
		if len(results) < 2 {
			t.Fatalf("%s %v: one part, the test needs several", c.tool, c.args)
		}
		for i, res := range results[:len(results)-1] {
			next := nextOf(t, res).Arguments
			for _, k := range c.want {
				if _, ok := next[k]; !ok {
					t.Errorf("%s %v, part %d: the next call has no %s: %v", c.tool, c.args, i+1, k, next)
				}
			}
			for _, k := range c.none {
				if _, ok := next[k]; ok {
					t.Errorf("%s %v, part %d: the next call carries %s the caller did not give: %v", c.tool, c.args, i+1, k, next)
				}
			}
			if mb, ok := next["maxBytes"]; ok && fmt.Sprint(mb) != "2048" {
				t.Errorf("%s %v, part %d: next maxBytes %v, want the 2,048 used", c.tool, c.args, i+1, mb)
			}
			if note := strings.Contains(textOf(res), "maxBytes "); note != (i == 0 && c.args["maxBytes"] != nil) {
				t.Errorf("%s %v, part %d: a maxBytes note %v, want one on the first part only", c.tool, c.args, i+1, note)
			}
		}
	}
}
