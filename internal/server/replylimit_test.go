package server

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Every tool declares in tools/list the most characters one of its results
// holds, the server's reply limit (--max-bytes, by default or as given), so
// that Claude Code keeps its results in the conversation whole.
func TestToolsDeclareMaxResultSize(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("first")
	for _, limit := range []int{DefaultMaxBytes, 20000} {
		h := serve(t, r, withMaxBytes(limit))
		n := 0
		for tool, err := range h.cs.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if got := tool.Meta[MetaKeyMaxResultSize]; got != float64(limit) {
				t.Errorf("--max-bytes %d: %s declares %s %v (%T), want %d", limit, tool.Name, MetaKeyMaxResultSize, got, got, limit)
			}
		}
		local, _ := SelectTools(nil, nil, false) // no forge here
		if n != len(local) {
			t.Errorf("--max-bytes %d: %d tools listed, want %d", limit, n, len(local))
		}
	}
}

// An error that lists a pull request's files stays within paging.MaxErrorChars
// however many files there are: it lists what fits, says how many more
// there are and which call lists them.
func TestFileNotInLargePullRequestErrorIsBounded(t *testing.T) {
	r := testrepo.New(t)
	r.Write("README", "base\n")
	base := r.Commit("base")
	r.Git("update-ref", "refs/pull/3/head", r.CommitWide(base, 720, 1, "720 files with long paths"))
	h := serve(t, r, withTextOnly())
	res := h.call("get_pull_request_diff", prArgs(3, "file_path", "not/there.c"))
	msg := textOf(res)
	if !res.IsError || !strings.HasPrefix(msg, "NOT_FOUND: ") {
		t.Fatalf("not a NOT_FOUND error: %.300s", msg)
	}
	if len(msg) > paging.MaxErrorChars || utf8.RuneCountInString(msg) > paging.MaxErrorChars {
		t.Errorf("the error is %d bytes, over %d", len(msg), paging.MaxErrorChars)
	}
	for _, want := range []string{`"not/there.c"`, "721 files", "list_pull_request_files lists them"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
}
