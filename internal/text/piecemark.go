package text

import "fmt"

// A line longer than the room a reply has for it comes in pieces, each
// after a marker line that names the line, the bytes the piece holds and
// whether the line goes on (docs/contracts.md, "Joining rule"): the same
// words in a diff (internal/diff) and in a file's or a log's lines.

// The words of a piece's marker, which a reader (and diff.Join) reads back.
const (
	PieceOpener = "[line "
	PieceFrom   = ", from the previous part"
	PieceMore   = "; goes on in the next part]\n"
	PieceEnd    = ": the line's end]\n"
)

// PieceMarker is the line before piece p of a line of what (a name as
// the reply shows it: Name(path), "job 12's log"): "[line 121 of a.go,
// bytes 5241–10480 of 35021, from the previous part; goes on in the next
// part]\n". Bytes are counted from 1 in the line without its "\n".
func PieceMarker(what string, p Piece) string {
	m := fmt.Sprintf("%s%d of %s, bytes %d–%d of %d", PieceOpener, p.Line, what, p.From+1, p.To, p.Bytes)
	if p.From > 0 {
		m += PieceFrom
	}
	if p.More() {
		return m + PieceMore
	}
	return m + PieceEnd
}
