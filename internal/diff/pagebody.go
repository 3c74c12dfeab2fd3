// How the pager writes a section's body: it opens each hunk at its "@@"
// line, then reads the body line by line as units, checks their counts
// against the hunk's header, and writes them or leaves them out when they
// can never fit.

package diff

import (
	"fmt"
	"unicode/utf8"
)

// unit is a hunk line with the "\ No newline at end of file" lines that
// belong to it, or one line outside hunks (kind 0); it is never split.
type unit struct {
	text     []byte // nil when cut
	cut      bool   // longer than Room bytes: not held
	head     []byte // its first line as read: whole, or its first Room bytes
	whole    bool   // head is the whole line
	kind     byte   // ' ', '-', '+' or 0
	lines    int64  // input lines
	size     int64  // bytes of its first line
	cost     int
	replaced bool
}

// body writes the section's body lines until the section ends or the part
// is full.
func (p *pager) body() (more bool, err error) {
	for {
		k, b, err := p.lr.next()
		if err != nil {
			return false, err
		}
		switch {
		case (k == startEOF || k == startFile || k == startHunk) && p.hunk.open:
			return false, p.malformed("the hunk has fewer lines than its header says")
		case k == startEOF || k == startFile:
			p.closePiece()
			p.file.Complete = true
			p.file.To, p.file.Size = p.lr.n-p.offset, p.lr.n-p.offset
			return true, nil
		case k == startHunk:
			p.closePiece()
			err = p.readHunkHead(true)
		case k == startMarker:
			return false, p.malformed(`a "\" line follows no hunk line`)
		case p.hunk.open:
			err = p.hunkLine(lineKind(b))
		case p.hunk.orig != nil:
			return false, p.malformed(afterHunks)
		default:
			err = p.otherLine()
		}
		if err != nil || p.page.Next != nil {
			return false, err
		}
	}
}

// malformed describes a fault at the current line, numbered as in Pos.
func (p *pager) malformed(what string) error {
	return fmt.Errorf("%w: at file %d, body line %d: %s", ErrNotDiff, p.seen-1, p.line, what)
}

// readHunkHead reads a "@@" line and opens its hunk. here says it is read
// while writing the part (not while seeking the start).
func (p *pager) readHunkHead(here bool) error {
	b, _, cut, err := p.lr.read(p.buf[:0], maxHeaderBytes)
	p.buf = b
	if err != nil {
		return err
	}
	return p.openHunk(b, cut, here)
}

// openHunk starts the hunk whose "@@" line is b (cut: it was longer than
// maxHeaderBytes).
func (p *pager) openHunk(b []byte, cut, here bool) error {
	orig, replaced := appendValid(p.hunk.headerBuf[:0], b)
	h, ok := parseHunkHead(orig)
	if cut || !ok || h.old.n == 0 && h.new.n == 0 {
		return p.malformed(fmt.Sprintf("malformed hunk header %.80q", b))
	}
	cost := p.o.Cost(orig)
	p.hunk = hunkState{
		open: true, head: h, orig: orig, origCost: cost, replaced: replaced, line: p.line,
		oldNext: h.old.first, newNext: h.new.first, oldRem: h.old.n, newRem: h.new.n,
		here: here, textAt: len(p.text), usedAt: p.used, fresh: cost, headerBuf: orig,
	}
	if here {
		p.hunk.snap = *p.file
	}
	p.line++
	p.fresh += cost
	return nil
}

// lineKind says what a line that starts with b is in a hunk: ' ', '-', '+',
// or 0 for no hunk line. An empty line is a context line whose space was
// stripped.
func lineKind(b []byte) byte {
	switch {
	case len(b) == 0:
		return 0
	case b[0] == ' ' || b[0] == '-' || b[0] == '+':
		return b[0]
	case b[0] == '\n' || hasPrefix(b, "\r\n"):
		return ' '
	}
	return 0
}

// lineCounts returns how many old and new lines a hunk line of kind k
// stands for.
func lineCounts(k byte) (oldN, newN int64) {
	switch k {
	case ' ':
		return 1, 1
	case '-':
		return 1, 0
	case '+':
		return 0, 1
	}
	return 0, 0
}

// countLine checks a hunk line of kind k against the hunk's header and
// advances the hunk past it.
func (p *pager) countLine(k byte) error {
	dOld, dNew := lineCounts(k)
	if k == 0 || dOld > p.hunk.oldRem || dNew > p.hunk.newRem {
		return p.malformed("the hunk's lines do not match its header")
	}
	h := &p.hunk
	h.oldNext, h.newNext = h.oldNext+dOld, h.newNext+dNew
	h.oldRem, h.newRem = h.oldRem-dOld, h.newRem-dNew
	h.open = h.oldRem > 0 || h.newRem > 0
	return nil
}

// readUnit reads the next line with the "\" lines that follow it, keeping
// them only while they fit in Room bytes.
func (p *pager) readUnit(kind byte) (unit, error) {
	u := unit{kind: kind, lines: 1}
	var err error
	if kind != 0 {
		// Of a line longer than Room, the first Room bytes are kept,
		// the rest left unread: the line comes in pieces.
		u.text, u.whole, err = p.lr.readHead(p.buf[:0], p.o.Room)
		u.size, u.cut, u.head = int64(len(u.text)), !u.whole, u.text
	} else {
		u.text, u.size, u.cut, err = p.lr.read(p.buf[:0], p.o.Room)
	}
	p.buf = u.text
	for kind != 0 && !u.cut && err == nil {
		var k lineStart
		if k, _, err = p.lr.next(); err != nil || k != startMarker {
			break
		}
		limit := p.o.Room - len(u.text)
		if u.cut {
			limit = 0
		}
		var cut bool
		u.text, _, cut, err = p.lr.read(u.text, limit)
		p.buf = u.text
		u.cut = u.cut || cut
		u.lines++
	}
	if err != nil || u.cut {
		u.text = nil
		return u, err
	}
	u.head = u.text[:u.size]
	if !utf8.Valid(u.text) {
		p.fix, u.replaced = appendValid(p.fix[:0], u.text)
		u.text = p.fix
	}
	if p.o.Frame != nil {
		u.text = p.o.Frame(u.text)
	}
	u.cost = p.o.Cost(u.text)
	return u, nil
}

// hunkLine writes a line of the open hunk, or ends the part before it.
func (p *pager) hunkLine(kind byte) error {
	at := p.lr.n
	u, err := p.readUnit(kind)
	if err != nil {
		return err
	}
	oldFirst, newFirst := p.hunk.oldNext, p.hunk.newNext
	oldS, newS := p.pieceSpans()
	if err := p.countLine(kind); err != nil {
		return err
	}
	p.fresh += u.cost
	p.hunk.fresh += u.cost
	dOld, dNew := lineCounts(kind)
	oldS.n, newS.n = oldS.n+dOld, newS.n+dNew
	if !u.cut && p.used+p.pc.cost+u.cost+p.headCost(oldS, newS) <= p.o.Room {
		p.addLine(u, oldS, newS)
		return nil
	}
	alone := p.hdrCost + p.headCost(span{oldFirst, dOld}, span{newFirst, dNew}) + u.cost
	if u.cut || alone > p.o.Room || p.isFresh() {
		ll := LongLine{Bytes: u.size}
		if dOld > 0 {
			ll.OldLine = oldFirst
		}
		if dNew > 0 {
			ll.NewLine = newFirst
		}
		return p.firstPiece(u, ll, at, oldS, newS)
	}
	p.cut(u)
	return nil
}

// pieceSpans returns the open piece's ranges, or empty ones at the hunk's
// next line.
func (p *pager) pieceSpans() (oldS, newS span) {
	if p.pc.at < 0 {
		return span{p.hunk.oldNext, 0}, span{p.hunk.newNext, 0}
	}
	return p.pc.old, p.pc.new
}

// addLine appends a hunk line to the open piece, opening one if need be;
// oldS and newS are the piece's ranges with the line. countLine has moved
// the hunk past it already.
func (p *pager) addLine(u unit, oldS, newS span) {
	if p.pc.at < 0 {
		p.pc = piece{at: len(p.text)}
	}
	p.pc.old, p.pc.new = oldS, newS
	p.text = append(p.text, u.text...)
	p.pc.cost += u.cost
	switch u.kind {
	case '+':
		p.file.Added++
	case '-':
		p.file.Deleted++
	}
	p.file.Replaced = p.file.Replaced || u.replaced
	p.line += u.lines
	p.file.To = p.lr.n - p.offset
}

// afterHunks: git prints lines outside hunks only in sections that have
// none (a binary patch). A part that started at one after a hunk would
// read it back as a header line.
const afterHunks = "a line outside hunks follows a hunk"

// otherLine writes a body line outside hunks (such as a binary patch's),
// or ends the part before it.
func (p *pager) otherLine() error {
	p.closePiece()
	u, err := p.readUnit(0)
	if err != nil {
		return err
	}
	p.fresh += u.cost
	switch {
	case !u.cut && p.used+u.cost <= p.o.Room:
		p.text = append(p.text, u.text...)
		p.used += u.cost
		p.file.Replaced = p.file.Replaced || u.replaced
		p.line++
		p.file.To = p.lr.n - p.offset
	case u.cut || p.hdrCost+u.cost > p.o.Room || p.isFresh():
		return p.skipLong(u, LongLine{Bytes: u.size})
	default:
		p.cut(u)
	}
	return nil
}

// skipLong leaves out a unit that cannot fit in any part, or ends the part
// before it if the part has reported enough of those.
func (p *pager) skipLong(u unit, ll LongLine) error {
	if p.longs == maxPartLongLines {
		p.stopAt(u)
		return nil
	}
	p.closePiece()
	p.file.LongLines = append(p.file.LongLines, ll)
	p.longs++
	p.long, p.hunk.long = true, true
	p.line += u.lines
	p.file.To = p.lr.n - p.offset
	return nil
}

// appendValid appends b to dst with every byte that is not part of valid
// UTF-8 written as U+FFFD, and reports whether there was any.
func appendValid(dst, b []byte) ([]byte, bool) {
	if utf8.Valid(b) {
		return append(dst, b...), false
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[:size]...)
		}
		b = b[size:]
	}
	return dst, true
}
