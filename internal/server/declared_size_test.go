package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Every reply of a drained diff or listing is within the size its tool
// declares in tools/list (anthropic/maxResultSizeChars): what Claude Code
// keeps (the structured content when there is one, claude-code #79944; else
// the text) in characters, and the whole result as sent in bytes. Drained
// through the go-sdk client, in text and structured mode, at the default
// limit and a small one, over a pull request that has every kind of file a
// part must cut or note: a large rewrite, many small files, renames, a
// binary, non-ASCII and JSON-escaped text, a many-commit history.
func TestDrainedRepliesWithinDeclaredSize(t *testing.T) {
	r := testrepo.New(t)
	var big strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&big, "line %d \"quoted\" <tag> naïve\ttab\n", i)
	}
	r.Write("big.txt", big.String())
	for i := range 120 {
		r.Write(fmt.Sprintf("src/f%03d.go", i), fmt.Sprintf("package src\n\n// file %d\nvar v%d = %d\n", i, i, i))
	}
	r.Write("old/name.txt", strings.Repeat("kept across the rename\n", 40))
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write("big.txt", strings.ReplaceAll(big.String(), "tab", "TAB"))
	for i := range 120 {
		r.Write(fmt.Sprintf("src/f%03d.go", i), fmt.Sprintf("package src\n\n// file %d, changed\nvar v%d = %d\n", i, i, i+1))
	}
	r.Write("new/name.txt", strings.Repeat("kept across the rename\n", 40))
	r.Git("rm", "-q", "old/name.txt")
	r.Write("img.bin", "\x00\x01\x02\xff\x00")
	r.Commit("the pull request: a rewrite, 120 edits, a rename, a binary")
	for i := range 80 {
		r.Write("log.txt", strings.Repeat(fmt.Sprintf("entry %d\n", i), i+1))
		r.Commit(fmt.Sprintf("step %d\n\n%s", i, strings.Repeat("A body line of a careful commit message.\n", 12)))
	}
	head := strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	r.Git("update-ref", "refs/pull/5/head", head)
	r.Git("checkout", "-q", "main")

	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_diff", args("base", "main", "head", "refs/pull/5/head")},
		{"get_pull_request_diff", prArgs(5)},
		{"get_pull_request_diff", prArgs(5, "file_path", "big.txt")},
		{"get_commit", args("ref", "pr~80")},
		{"get_pull_request", prArgs(5)},
		{"list_pull_request_files", prArgs(5)},
		{"list_changed_files", args("base", "main", "head", "refs/pull/5/head")},
		{"list_commits", args("index", 5)},
	}
	for _, limit := range []int{DefaultMaxBytes, 2 * MinMaxBytes} {
		for _, structured := range []bool{false, true} {
			opts := []option{withMaxBytes(limit)}
			if !structured {
				opts = append(opts, withTextOnly())
			}
			h := serve(t, r, opts...)
			declared := declaredSizes(t, h)
			for _, c := range calls {
				name := fmt.Sprintf("%s %v, limit %d, structured %v", c.tool, c.args, limit, structured)
				if declared[c.tool] != limit {
					t.Fatalf("%s: declares %d", name, declared[c.tool])
				}
				parts := drainResults(t, h, c.tool, c.args)
				for i, res := range parts {
					kept, sent := keptChars(t, res), resultBytes(t, res)
					if kept > limit || sent > limit {
						t.Errorf("%s: part %d of %d keeps %d characters and is %d bytes as sent, over the declared %d", name, i+1, len(parts), kept, sent, limit)
					}
				}
			}
		}
	}
}

// drainResults follows a tool's next calls to the end and returns every
// result.
func drainResults(t *testing.T, h *harness, tool string, args map[string]any) []*mcp.CallToolResult {
	t.Helper()
	var out []*mcp.CallToolResult
	for len(out) < 2000 {
		res := h.call(tool, args)
		if res.IsError {
			t.Fatalf("%s part %d: %s", tool, len(out)+1, textOf(res))
		}
		out = append(out, res)
		next := nextOf(t, res)
		if next == nil {
			return out
		}
		args = next.Arguments
	}
	t.Fatalf("%s: more than 2,000 parts", tool)
	return nil
}

// keptChars is what Claude Code keeps of a result, in characters: its
// structured content when it has one, else its text.
func keptChars(t *testing.T, res *mcp.CallToolResult) int {
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		return utf8.RuneCount(data)
	}
	return utf8.RuneCountInString(textOf(res))
}

// resultBytes is the result's JSON as the server sends it.
func resultBytes(t *testing.T, res *mcp.CallToolResult) int {
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return len(data)
}

// declaredSizes is the size each tool declares in tools/list
// (anthropic/maxResultSizeChars), by name.
func declaredSizes(t *testing.T, h *harness) map[string]int {
	t.Helper()
	declared := map[string]int{}
	for tool, err := range h.cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n, _ := tool.Meta[MetaKeyMaxResultSize].(float64)
		declared[tool.Name] = int(n)
	}
	return declared
}
