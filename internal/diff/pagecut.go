// Where a part ends: the pieces of hunks it writes get their "@@" lines
// when they close, and a line that does not fit ends the part before it,
// or, in a part already nearly full (wholeFill), before its hunk or
// section when those would fit whole in a part of their own.

package diff

import (
	"slices"
	"unicode/utf8"
)

// isFresh reports a part that holds nothing but the current section's
// header: what does not fit now never will.
func (p *pager) isFresh() bool {
	return p.sectionAt == 0 && len(p.text) == len(p.hdr) && p.pc.at < 0
}

// closePiece puts the open piece's "@@" line in front of its lines.
func (p *pager) closePiece() {
	if p.pc.at < 0 {
		return
	}
	head := p.appendHead(p.head[:0], p.pc.old, p.pc.new)
	p.head = head
	p.text = slices.Insert(p.text, p.pc.at, head...)
	p.used += p.o.Cost(head) + p.pc.cost
	p.file.Replaced = p.file.Replaced || p.hunk.replaced
	p.file.Old.add(p.pc.old)
	p.file.New.add(p.pc.new)
	// Its cost is in used now: a piece opened later starts from none, or
	// its lines would be counted twice against the room.
	p.pc.at, p.pc.cost = -1, 0
}

// appendHead appends the "@@" line of a piece of the current hunk: the
// hunk's own line if the piece is all of it.
func (p *pager) appendHead(dst []byte, oldS, newS span) []byte {
	if oldS == p.hunk.head.old && newS == p.hunk.head.new {
		return append(dst, p.hunk.orig...)
	}
	return appendHunkHead(dst, hunkHead{old: oldS, new: newS, tail: p.hunk.head.tail})
}

// headCost is the cost of the "@@" line of a piece with these ranges.
func (p *pager) headCost(oldS, newS span) int {
	if oldS == p.hunk.head.old && newS == p.hunk.head.new {
		return p.hunk.origCost
	}
	p.head = p.appendHead(p.head[:0], oldS, newS)
	return p.o.Cost(p.head)
}

// bodyAt is where the current section's body starts in text.
func (p *pager) bodyAt() int { return p.sectionAt + len(p.hdr) }

// wholeFill is how full, in percent of its room, a part must be for a
// section or hunk that does not fit to be moved whole to the next part
// rather than split: below it the part is filled, since every part less
// than full is one more call and one more reply's framing.
const wholeFill = 90

// cut ends the part before unit u, which does not fit. If the part is
// nearly full and the section or the hunk that u is in would fit whole in
// a part of its own, the part ends before it instead, so that it is not
// split. A section past its first hunk moves only when the part is nearly
// full without it: a part that ended before a section that had filled it
// from 80% to 96% would be 80% full. (Within its first hunk, moving the
// hunk is moving the section, and splitting it there could leave a piece
// of context lines alone, which applies as no patch, to the next part.)
func (p *pager) cut(u unit) {
	full := func(used int) bool { return used*100 >= p.o.Room*wholeFill }
	movable := p.here && p.sectionAt > 0 && !p.long
	firstHunk := p.hunk.textAt == p.bodyAt()
	secOK := movable && full(p.usedAt)
	hunkOK := full(p.used) && u.kind != 0 && p.hunk.here && !p.hunk.long && (!firstHunk || movable)
	secFits, hunkFits := p.lookahead(secOK, hunkOK)
	switch {
	case secFits || hunkFits && firstHunk:
		p.dropSection()
	case hunkFits:
		p.text, p.used, *p.file = p.text[:p.hunk.textAt], p.hunk.usedAt, p.hunk.snap
		p.pc.at = -1
		p.page.Next = &Pos{File: p.file.Index, Line: p.hunk.line}
	default:
		p.stopAt(u)
	}
}

// stopAt ends the part right before unit u.
func (p *pager) stopAt(u unit) {
	line := p.line
	if p.pc.at < 0 && u.kind != 0 && p.hunk.here && line == p.hunk.line+1 {
		line = p.hunk.line // nothing of the hunk written: start at its "@@" line
	}
	p.closePiece()
	if p.here && p.sectionAt > 0 && len(p.text) == p.bodyAt() {
		p.dropSection() // rather than end with a bare header
		return
	}
	p.page.Next = &Pos{File: p.file.Index, Line: line}
}

// dropSection takes the current section out of the part, which ends
// before it.
func (p *pager) dropSection() {
	p.longs -= len(p.file.LongLines)
	p.text, p.used = p.text[:p.sectionAt], p.usedAt
	p.page.Files = p.page.Files[:len(p.page.Files)-1]
	p.page.Next = &Pos{File: p.seen - 1}
	p.file, p.pc.at = nil, -1
}

// lookahead reads on, without writing, to learn whether the current section
// (if sec) and hunk (if hunk), from their starts, would fit in a part of
// their own. It stops as soon as that is known, so it reads at most about
// Room bytes. Read errors end it with the answer "no": the part ends at the
// current line then, and the next call meets the error again.
func (p *pager) lookahead(sec, hunk bool) (secFits, hunkFits bool) {
	secCost, hunkCost := p.fresh, p.hdrCost+p.hunk.fresh
	for {
		sec, hunk = sec && secCost <= p.o.Room, hunk && hunkCost <= p.o.Room
		if !sec && !hunk {
			return false, hunkFits
		}
		k, _, err := p.lr.next()
		switch {
		case err != nil:
			return false, hunkFits
		case k == startEOF || k == startFile:
			return sec, hunk || hunkFits
		case k == startHunk:
			hunkFits, hunk = hunk, false
		}
		b, _, cut, err := p.lr.read(p.buf[:0], p.o.Room)
		p.buf = b
		if cut || err != nil {
			return false, hunkFits
		}
		if !utf8.Valid(b) {
			p.fix, _ = appendValid(p.fix[:0], b)
			b = p.fix
		}
		c := p.o.Cost(b)
		secCost += c
		if hunk {
			hunkCost += c
		}
	}
}
