package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// The arithmetic measure of a result equals its JSON encoding.
func TestResultSizeIsExact(t *testing.T) {
	s := New(nil, Config{MaxBytes: DefaultMaxBytes, Policy: mustPolicy(nil), Version: "v1.2.3 abcdef"})
	replies := []paging.Wire{
		{},
		{Text: "plain"},
		{Text: "<html> & \"quotes\" \\ \n\t\r\x00\x1f \u2028 ünïcödé \xff\xfe"},
		{Text: strings.Repeat("line\n", 1000), Structured: readFileOut{Path: "a<b>.go", Content: "x\ny", TotalLines: 2}},
		{Text: "", Structured: map[string]any{"k": []string{"<", ">"}}},
	}
	next := paging.Continue("read_file", readFileIn{Path: "a<b>.go", StartLine: 101})
	for _, r := range slices.Clone(replies) {
		r.Next = next
		replies = append(replies, r)
	}
	for _, r := range replies {
		res := s.calls.Result(r)
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.calls.ResultSize(res), len(data)+paging.EnvelopeReserve; got != want {
			t.Errorf("%.40q: resultSize %d, encoded %d", r.Text, got, want)
		}
		// Measured without building the result, as replySize does.
		if got, want := s.calls.Budget.WireSize(r), len(data)+paging.EnvelopeReserve; got != want {
			t.Errorf("%.40q (next: %v): wireSize %d, encoded %d", r.Text, r.Next != nil, got, want)
		}
	}
}
