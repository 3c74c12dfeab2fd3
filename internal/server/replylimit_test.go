package server

import (
	"context"
	"testing"

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
		if n != len(registry) {
			t.Errorf("--max-bytes %d: %d tools listed, want %d", limit, n, len(registry))
		}
	}
}
