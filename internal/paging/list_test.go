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

// A text in parts moves on: every part is the longest start that fits,
// never empty, and the parts are the text.
func TestTextInPartsMovesOn(t *testing.T) {
	msg := strings.Repeat("a line of the message, é\n", 40) + strings.Repeat("x", 3000)
	cost := func(s string) int { return len(s) + strings.Count(s, "\n") }
	for _, room := range []int{1, 50, 700, 1 << 20} {
		var joined strings.Builder
		for rest, parts := msg, 0; rest != ""; parts++ {
			piece, left := CutText(rest, room, cost)
			if piece == "" || left != len(rest)-len(piece) || (cost(piece) > room && len([]rune(piece)) > 1) {
				t.Fatalf("room %d, part %d: %q leaving %d", room, parts, piece, left)
			}
			joined.WriteString(piece)
			rest = rest[len(piece):]
		}
		if joined.String() != msg {
			t.Fatalf("room %d: the parts are not the text", room)
		}
		fits := func(s string) bool { return cost(s) <= room }
		if got := FitText(msg, room, fits); got == "" || !strings.HasPrefix(msg, got) || (!fits(got) && len([]rune(got)) > 1) {
			t.Fatalf("room %d: FitText gave %q", room, got)
		}
	}
}
