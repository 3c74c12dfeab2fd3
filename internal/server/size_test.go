package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The arithmetic measure of a result equals its JSON encoding.
func TestResultSizeIsExact(t *testing.T) {
	s := New(nil, Config{MaxBytes: DefaultMaxBytes, Policy: mustPolicy(nil), Version: "v1.2.3 abcdef"})
	structured := New(nil, Config{MaxBytes: DefaultMaxBytes, Policy: mustPolicy(nil), Version: "v1.2.3 abcdef", Structured: true})
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
		// As clients give it to their model, in each client's unit: the
		// content array (and the structured content) as encoded, or the
		// text as decoded; never the _meta.
		for _, u := range []text.Unit{text.JSONBytes, text.UTF16Units, text.UTF8Bytes} {
			if got, want := paging.SeenSize(r, s.calls.Budget.Structured, u), toolcall.SeenSize(res, u); got != want {
				t.Errorf("%.40q (next: %v) in %v: SeenSize %d, encoded %d", r.Text, r.Next != nil, u, got, want)
			}
			if res := structured.calls.Result(r); r.Structured != nil && paging.SeenSize(r, true, u) != toolcall.SeenSize(res, u) {
				t.Errorf("%.40q (next: %v) in %v, structured: SeenSize %d, encoded %d", r.Text, r.Next != nil, u, paging.SeenSize(r, true, u), toolcall.SeenSize(res, u))
			}
		}
		// In text items (VS Code's): measured exactly too, and within
		// what the reply's size keeps for their envelopes.
		if r.Structured == nil {
			items := *res
			items.Content = nil
			for _, it := range text.Items(textOf(res), 200, text.UTF16Units) {
				items.Content = append(items.Content, &mcp.TextContent{Text: it})
			}
			data, err := json.Marshal(&items)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := s.calls.ResultSize(&items), len(data)+paging.EnvelopeReserve; got != want {
				t.Errorf("%.40q in %d items: resultSize %d, encoded %d", r.Text, len(items.Content), got, want)
			}
			b := s.calls.Budget
			b.Items = 200
			if b.ReplySize(textReply{Text: r.Text, Next: r.Next}) < len(data)+paging.EnvelopeReserve {
				t.Errorf("%.40q in %d items: ReplySize %d, encoded %d", r.Text, len(items.Content), b.ReplySize(textReply{Text: r.Text, Next: r.Next}), len(data))
			}
		}
		seen := toolcall.SeenSize(res, text.JSONBytes)
		if units := utf16Len(textOf(res)); toolcall.SeenSize(res, text.UTF16Units) != units+paging.WrapperReserve {
			t.Errorf("%.40q: %d UTF-16 units seen, the text has %d", r.Text, toolcall.SeenSize(res, text.UTF16Units), units)
		}
		content, _ := json.Marshal(res.Content)
		if seen < len(content)+paging.SeenReserve || r.Next != nil && seen >= len(data) {
			t.Errorf("%.40q: seen %d, content %d, whole %d", r.Text, seen, len(content), len(data))
		}
	}
}

// A client's budget under --max-bytes is held on what it gives its model;
// the whole result stays within --max-bytes; a budget that is --max-bytes
// measures the whole result.
func TestBudgetMeasure(t *testing.T) {
	b := paging.Budget{MaxBytes: 8_000, Whole: 65_536}
	if got := b.Measure(9_000, 7_000); got != 7_000 {
		t.Errorf("seen 7,000, whole 9,000: measured %d", got)
	}
	if got := b.Measure(65_600, 7_000); got != 65_600-(65_536-8_000) || got <= b.MaxBytes {
		t.Errorf("whole over --max-bytes: measured %d, within the budget", got)
	}
	b.Whole = b.MaxBytes
	if got := b.Measure(9_000, 7_000); got != 9_000 {
		t.Errorf("at --max-bytes: measured %d, want the whole result", got)
	}
}
