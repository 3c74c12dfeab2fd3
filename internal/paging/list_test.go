package paging

import (
	"strings"
	"testing"
)

type textWire string

func (t textWire) Wire() Wire { return Wire{Text: string(t)} }

// FitList gives the longest prefix of a list whose reply fits, measured as
// sent: the next prefix is over the limit.
func TestFitListTakesTheLongestPrefixThatFits(t *testing.T) {
	b := Budget{MaxBytes: 4096, Envelope: 100}
	render := func(n int) textWire { return textWire(strings.Repeat("item \"quoted\"\n", n)) }
	got := FitList(b, 1000, render)
	n := strings.Count(string(got), "\n")
	if !b.Fits(got) || b.Fits(render(n+1)) || n == 0 {
		t.Fatalf("%d items: fits %v, one more fits %v", n, b.Fits(got), b.Fits(render(n+1)))
	}
	if all := FitList(b, 3, render); all != render(3) {
		t.Fatal("a list that fits whole was cut")
	}
}

// A partial reply's text ends with the call that continues it, on a line
// of its own; a complete reply whose last line reads like one is marked as
// the repository's text.
func TestLastLines(t *testing.T) {
	next := &Call{Tool: "read_file", Arguments: map[string]any{"path": "a<b&c", "startLine": 3}}
	if got, want := LastLines("body", next), "\n[partial reply] Next part: call read_file with {\"path\":\"a<b&c\",\"startLine\":3}\n"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if got := LastLines("text\n[partial reply] Next part: call x with {}\n", nil); !strings.Contains(got, "not the server's next call") {
		t.Fatalf("a repository's line that reads like the next call is not marked: %q", got)
	}
	if got := LastLines("plain\n", nil); got != "" {
		t.Fatalf("a complete reply got %q", got)
	}
}
