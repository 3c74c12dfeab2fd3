// How the pager writes a hunk line that no part can hold whole: in pieces,
// one a part, each after a marker line that says which line it is of, the
// bytes it holds and whether it goes on (ReadPage).

package diff

import (
	"fmt"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// minPieceShare: a first piece smaller than this share of Room (1/16) is
// not written at the end of a part that holds other lines: the line
// starts the next part, where its first piece is about a part's room.
const minPieceShare = 16

// firstPiece writes the first piece of hunk line u, which no part can
// hold whole, and ends the part after it; or ends the part before the line
// when too little of it would fit here. at is where the line starts in the
// input; oldS and newS are the open piece's ranges with the line.
func (p *pager) firstPiece(u unit, ll LongLine, at int64, oldS, newS span) error {
	size, nl := int64(len(u.head)), hasNL(u.head)
	if !u.whole {
		rest, restNL, err := p.lr.skipRest()
		if err != nil {
			return err
		}
		size, nl = size+rest, restNL
	}
	ll.Bytes = size
	content := u.head[1:]
	if u.whole && nl {
		content = content[:len(content)-1]
	}
	lineBytes := size - 1
	if nl {
		lineBytes--
	}
	room := p.o.Room - p.used - p.pc.cost - p.headCost(oldS, newS)
	marker := p.pieceMarker(ll, 0, lineBytes, lineBytes, false, true)
	n := p.fitPiece(u.kind, content, u.whole, room-p.o.Cost(marker))
	switch {
	case n == 0 && p.isFresh():
		return p.skipLong(u, ll) // a room smaller than a marker
	case n == 0 || n*minPieceShare < p.o.Room && !p.isFresh():
		p.stopAt(u)
		return nil
	}
	if p.pc.at < 0 {
		p.pc = piece{at: len(p.text)}
	}
	p.pc.old, p.pc.new = oldS, newS
	marker = p.pieceMarker(ll, 0, int64(n), lineBytes, false, true)
	line := p.pieceLine(u.kind, content[:n])
	p.text = append(append(p.text, marker...), line...)
	p.pc.cost += p.o.Cost(marker) + p.o.Cost(line)
	switch u.kind {
	case '+':
		p.file.Added++
	case '-':
		p.file.Deleted++
	}
	p.file.Pieced = true
	p.file.To = at + 1 + int64(n) - p.offset
	p.closePiece()
	p.page.Next = &Pos{File: p.file.Index, Line: p.line, Byte: int64(n), LineBytes: lineBytes}
	return nil
}

// continuePiece writes the next piece of the line the part starts inside,
// from byte from of its text (lineBytes long, 0: not known), right after
// the section's header lines. It reports whether the part goes on: after
// the line's last piece it does, with the line's "\" lines.
func (p *pager) continuePiece(from, lineBytes int64) (more bool, err error) {
	at := p.lr.n
	k, b, err := p.lr.next()
	if err != nil {
		return false, err
	}
	kind := lineKind(b)
	if k != startOther || !p.hunk.open || kind == 0 || b[0] != kind {
		return false, ErrBadPos
	}
	if ok, err := p.lr.discardIn(1 + from); err != nil || !ok {
		return false, cmpErr(err, ErrBadPos)
	}
	ll := LongLine{}
	if dOld, dNew := lineCounts(kind); dNew > 0 {
		ll.NewLine = p.hunk.newNext
	} else if dOld > 0 {
		ll.OldLine = p.hunk.oldNext
	}
	if err := p.countLine(kind); err != nil {
		return false, err
	}
	room := p.o.Room - p.used
	most := max(lineBytes, from+int64(room))
	avail := room - p.o.Cost(p.pieceMarker(ll, from, most, most, true, true))
	head, whole, err := p.lr.readHead(p.buf[:0], max(avail, 0)+utf8.UTFMax)
	p.buf = head
	if err != nil {
		return false, err
	}
	content := head
	if whole && hasNL(head) {
		content = content[:len(content)-1]
	}
	if whole && len(content) == 0 {
		return false, ErrBadPos // at the line's end: no piece starts there
	}
	// The line's "\ No newline at end of file" comes after its last
	// piece, in the same part.
	tail, tailLines := p.tail[:0], int64(0)
	for whole {
		k, _, err := p.lr.next()
		if err != nil {
			return false, err
		}
		if k != startMarker {
			break
		}
		if tail, _, _, err = p.lr.read(tail, maxHeaderBytes); err != nil {
			return false, err
		}
		tailLines++
	}
	p.tail = tail
	n := p.fitPiece(kind, content, whole, avail-p.o.Cost(tail))
	final := whole && n == len(content)
	if !final {
		n = min(p.fitPiece(kind, content, whole, avail), cutUTF8(content, len(content)-1))
	}
	switch {
	case final:
		lineBytes = from + int64(n)
	case whole:
		lineBytes = from + int64(len(content))
	default:
		rest, nl, err := p.lr.skipRest()
		if err != nil {
			return false, err
		}
		if lineBytes == 0 {
			lineBytes = from + int64(len(content)) + rest
			if nl {
				lineBytes--
			}
		}
	}
	p.file.From = at + 1 + from - p.offset
	if n == 0 {
		// A room smaller than a marker: the rest is left out (FitPart
		// reads the part again with more room).
		ll.Bytes = lineBytes - from
		p.file.LongLines = append(p.file.LongLines, ll)
		p.longs++
		final, tail = true, nil
		for !whole {
			k, _, err := p.lr.next()
			if err != nil || k != startMarker {
				break // an error is met again by the next read
			}
			if err := p.lr.skip(); err != nil {
				return false, err
			}
			tailLines++
		}
	} else {
		marker := p.pieceMarker(ll, from, from+int64(n), lineBytes, true, !final)
		line := p.pieceLine(kind, content[:n])
		p.text = append(append(p.text, marker...), line...)
		p.used += p.o.Cost(marker) + p.o.Cost(line)
		p.file.Pieced = true
	}
	if !final {
		p.file.To = at + 1 + from + int64(n) - p.offset
		p.page.Next = &Pos{File: p.file.Index, Line: p.line, Byte: from + int64(n), LineBytes: lineBytes}
		return false, nil
	}
	p.text = append(p.text, tail...)
	p.used += p.o.Cost(tail)
	p.line += 1 + tailLines
	p.file.To = p.lr.n - p.offset
	return true, nil
}

// fitPiece is how many bytes of content (a whole line's text, or the
// start of a longer one) the largest piece that costs at most room holds,
// cut on a UTF-8 character's boundary: a character is never split.
func (p *pager) fitPiece(kind byte, content []byte, whole bool, room int) int {
	limit := len(content)
	if !whole {
		limit -= utf8.UTFMax // the character at the cut is decoded whole
	}
	n := min(limit, room-2) // a piece line is at least its prefix and line feed
	for n > 0 {
		n = cutUTF8(content, n)
		c := p.o.Cost(p.pieceLine(kind, content[:n]))
		if c <= room {
			return n
		}
		// Most bytes cost alike: shrink in proportion, and by one at
		// least, since every byte costs at least one.
		n = min(n-1, int(int64(n)*int64(room)/int64(c)))
	}
	return 0
}

// pieceLine is a piece as the part shows it: git's prefix, the piece's
// bytes (U+FFFD for those not UTF-8) and a line feed, framed as the
// line's other pieces and lines are.
func (p *pager) pieceLine(kind byte, b []byte) []byte {
	line, replaced := appendValid(append(p.pieceBuf[:0], kind), b)
	line = append(line, '\n')
	p.pieceBuf = line
	if replaced {
		p.file.Replaced = true
	}
	if p.o.Frame != nil {
		line = p.o.Frame(line)
	}
	return line
}

// pieceMarker is the line before a piece: "[line 121 of the new a.go,
// bytes 7001–14000 of 35023, from the previous part; goes on in the next
// part]". Bytes are counted in the line's text, from 1; Join reads the
// marker back (pieceFrom, pieceMore).
func (p *pager) pieceMarker(ll LongLine, from, to, size int64, cont, more bool) []byte {
	side, number := "new", ll.NewLine
	if number == 0 {
		side, number = "old", ll.OldLine
	}
	name := p.file.Header.NewPath
	if name == "" {
		name = p.file.Header.OldPath
	}
	m := fmt.Appendf(p.markBuf[:0], "%s%d of the %s %s, bytes %d–%d of %d", pieceOpener, number, side, text.NoteName(name), from+1, to, size)
	if cont {
		m = append(m, pieceFrom...)
	}
	if more {
		m = append(m, pieceMore...)
	} else {
		m = append(m, pieceEnd...)
	}
	p.markBuf = m
	return m
}

// The words of a piece's marker that Join reads: the same as in a file's
// lines (text.PieceMarker).
const (
	pieceOpener = text.PieceOpener
	pieceFrom   = text.PieceFrom
	pieceMore   = text.PieceMore
	pieceEnd    = text.PieceEnd
)

// cutUTF8 is the largest m <= n at which b can be cut without splitting a
// valid UTF-8 character (text.CutUTF8, for bytes).
func cutUTF8(b []byte, n int) int {
	for i := n - 1; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if _, size := utf8.DecodeRune(b[i:]); i+size > n {
				return i
			}
			break
		}
	}
	return n
}

func hasNL(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\n' }

// cmpErr is err, or def when err is nil.
func cmpErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}
