package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A count of parts is bounded in time (countTime); under -race on a loaded
// machine it is tens of times slower than in use, and the tests that say
// the count must be the drain's would see "part k" instead: they give a
// count more time (still within a third of the call's).
func init() { countTime = time.Minute }

// Every part of a paged diff says "part k of n", and n is the drain's
// count exactly: counted by the pager's own cut, as every client, whole,
// one file or some (issue 38, "exact counts, numbered parts").
func TestPartsSayKOfN(t *testing.T) {
	r := testrepo.New(t)
	var big strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&big, "line %d \"quoted\" <tag> naïve 日本語\ttab\n", i)
	}
	r.Write("big.txt", big.String())
	for i := range 40 {
		r.Write(fmt.Sprintf("src/pkg%02d/file%03d.go", i%4, i), fmt.Sprintf("package pkg\n\n// file %d\nvar v%d = %d\n", i, i, i))
	}
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write("big.txt", strings.ReplaceAll(big.String(), "tab", "TAB"))
	for i := range 40 {
		r.Write(fmt.Sprintf("src/pkg%02d/file%03d.go", i%4, i), fmt.Sprintf("package pkg\n\n// file %d, changed\nvar v%d = %d\n", i, i, i+1))
	}
	r.Commit("the pull request")
	r.Git("update-ref", "refs/pull/5/head", "HEAD")
	r.Git("checkout", "-q", "main")
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
			{"get_pull_request_diff", prArgs(5, "paths", []string{"src/pkg01/", "big.txt"}, "contextLines", 1)},
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
