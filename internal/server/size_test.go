package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The arithmetic measure of a result equals its JSON encoding.
func TestResultSizeIsExact(t *testing.T) {
	s := New(nil, Config{MaxBytes: DefaultMaxBytes, Policy: mustPolicy(nil), Version: "v1.2.3 abcdef"})
	replies := []wireReply{
		{},
		{text: "plain"},
		{text: "<html> & \"quotes\" \\ \n\t\r\x00\x1f \u2028 ünïcödé \xff\xfe"},
		{text: strings.Repeat("line\n", 1000), structured: readFileOut{Path: "a<b>.go", Content: "x\ny", TotalLines: 2}},
		{text: "", structured: map[string]any{"k": []string{"<", ">"}}},
	}
	next := continueWith("read_file", readFileIn{Path: "a<b>.go", StartLine: 101})
	for _, r := range slices.Clone(replies) {
		r.next = next
		replies = append(replies, r)
	}
	for _, r := range replies {
		res := s.result(r)
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.resultSize(res), len(data)+envelopeReserve; got != want {
			t.Errorf("%.40q: resultSize %d, encoded %d", r.text, got, want)
		}
		// Measured without building the result, as replySize does.
		if got, want := s.wireSize(r), len(data)+envelopeReserve; got != want {
			t.Errorf("%.40q (next: %v): wireSize %d, encoded %d", r.text, r.next != nil, got, want)
		}
	}
}
