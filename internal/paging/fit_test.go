package paging

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
)

// A part over the limit by a few bytes that less room does not change (the
// cut is by lines, and the room the cut left unused is more than the
// excess) is read again with less room than it used, and comes out nearly
// full: it once shrank by the excess on every read, read the same part
// each time, and came out with the least room a part is given (prometheus'
// pull request 1054: a 65,536-byte reply of 850 bytes).
func TestOverByAFewBytesStaysFull(t *testing.T) {
	b := Budget{MaxBytes: 10_000, Whole: 10_000}
	line := strings.Repeat("x", 999) + "\n"
	read := func(room int) (*Part, error) {
		n := max(room-60, 0) / len(line) // the cut leaves room unused
		return &Part{Page: &diff.Page{Text: []byte(strings.Repeat(line, n))}, Next: &Pos{}}, nil
	}
	// The reply's own text besides the patch is over the reckoning by 4
	// bytes, which the room the cut left unused (500) hides.
	room := b.MaxBytes - b.ReplySize(wireOf{}) + notesSlack
	text0, _ := read(room - notesSlack)
	header := strings.Repeat("h", b.MaxBytes-b.ReplySize(wireOf{Text: string(text0.Page.Text)})+4)
	build := func(p *Part, notes string) wireOf {
		return wireOf{Text: header + string(p.Page.Text) + notes}
	}
	got, err := FitPart(b, room, 0, read, func(*Part) string { return "" }, build)
	if err != nil {
		t.Fatal(err)
	}
	if size := b.ReplySize(got); size > b.MaxBytes || len(got.Text) < b.MaxBytes*8/10 {
		t.Errorf("the part is %d bytes of text (%d measured) at a limit of %d: want within it and at least 80%% full (lines are a tenth of it)", len(got.Text), size, b.MaxBytes)
	}
}

// wireOf is a Wire as a tool's reply is: a Wirer.
type wireOf Wire

func (w wireOf) Wire() Wire { return Wire(w) }
