// The pager: the state of one ReadPage or Count call, and its loop over
// the input's sections up to the end of the part (or, asked to, of the
// input).

package diff

import (
	"fmt"
	"strings"
)

// pager is the state of one ReadPage call.
type pager struct {
	o     PageOptions
	lr    lineReader
	page  Page
	text  []byte
	used  int // cost of text, the open piece's lines excepted
	seen  int // "diff --git " lines read: the current section is seen-1
	longs int // long lines reported in the part
	// omitted: the part holds a section whose header lines alone cost
	// more than Room; it ends after it.
	omitted bool
	hidden  int64 // bytes of the hidden sections read
	// hiddenEscaped is hidden JSON-escaped, when the reader counts it.
	hiddenEscaped int64

	// The current section.
	file       *PageFile
	offset     int64  // where it starts in the input
	raw, hdr   []byte // its header lines as read, and as written
	hdrCost    int
	hdrReplace bool
	line       int64 // body lines read
	here       bool  // its header was written at sectionAt (not Continued)
	sectionAt  int
	usedAt     int  // used before its header
	fresh      int  // its cost so far as a part of its own would hold it
	long       bool // a line of it was left out in this part
	hunk       hunkState
	pc         piece

	buf, fix, head []byte // reused: a unit's lines, their U+FFFD form, a hunk header
	pieceBuf       []byte // reused: a piece of a line
	markBuf        []byte // reused: a piece's marker
	tail           []byte // reused: the "\" lines after a line's last piece
	// startByte is where in its line the part starts (Start.Byte), until
	// the first section uses it.
	startByte int64
}

// hunkState follows the hunk being read.
type hunkState struct {
	open      bool // lines of it remain
	head      hunkHead
	orig      []byte // its "@@" line as written
	origCost  int
	replaced  bool  // orig has U+FFFD for invalid bytes
	line      int64 // body line of its "@@" line
	oldNext   int64 // number of the next old line
	newNext   int64
	oldRem    int64 // old lines still to come
	newRem    int64
	here      bool     // its "@@" line was read in this part, so it can be rolled back
	textAt    int      // len(text) when it began
	usedAt    int      // used when it began
	snap      PageFile // the file's entry when it began
	fresh     int      // its cost so far as a part of its own would hold it
	long      bool     // a line of it was left out in this part
	headerBuf []byte
}

// piece is the part of a hunk being written: its lines are in text from at
// on, and its "@@" line is put in front of them when it closes.
type piece struct {
	at       int // -1: no piece open
	old, new span
	cost     int // of its lines
}

func (p *pager) run() error {
	found, err := p.seekFile(p.o.Start.File)
	switch {
	case err != nil:
		return err
	case !found && p.seen == 0 && p.lr.n > 0:
		return fmt.Errorf("%w: no \"diff --git \" line", ErrNotDiff)
	case !found && p.o.Start != Pos{}:
		return ErrBadPos
	case !found:
		return p.finish(true)
	}
	for startLine := p.o.Start.Line; ; startLine = 0 {
		k, _, err := p.lr.next()
		if err != nil {
			return err
		}
		if k == startEOF {
			return p.finish(true)
		}
		if len(p.page.Files) == maxPartFiles || p.omitted {
			p.page.Next = &Pos{File: p.seen}
			return p.finish(false)
		}
		more, err := p.section(startLine)
		if err != nil {
			return err
		}
		if !more {
			return p.finish(false)
		}
	}
}

func (p *pager) finish(eof bool) error {
	switch {
	case !eof && p.o.CountRest:
		if err := p.countRest(nil); err != nil {
			return err
		}
		eof = true
	case !eof && p.o.SizeLast && p.inSection() && p.file.Size == 0:
		if err := p.skipTo(startFile); err != nil {
			return err
		}
		p.file.Size = p.lr.n - p.offset
	}
	if eof {
		p.page.Total = &Total{Files: p.seen, Bytes: p.lr.n - p.hidden}
	}
	return nil
}

// countRest reads the input to its end: the rest of the section the part
// ends inside, whose size it notes, then the sections after it, each
// handed to each (when not nil) with its size.
func (p *pager) countRest(each func(SectionSize)) error {
	if p.inSection() {
		if err := p.skipTo(startFile); err != nil {
			return err
		}
		p.file.Size = p.lr.n - p.offset
	} else if err := p.skipTo(startFile); err != nil {
		return err
	}
	for {
		k, _, err := p.lr.next()
		if err != nil || k == startEOF {
			return err
		}
		offset, escaped := p.lr.n, p.lr.escaped
		if err := p.readHeader(); err != nil {
			return err
		}
		h, err := ParseHeader(strings.SplitAfter(strings.TrimSuffix(string(p.raw), "\n"), "\n"))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrNotDiff, &HeaderError{Offset: offset, Err: err})
		}
		if err := p.skipTo(startFile); err != nil {
			return err
		}
		sec := SectionSize{Header: h, Index: p.seen - 1, Bytes: p.lr.n - offset, Hidden: p.o.Hide != nil && p.o.Hide(h)}
		if sec.Hidden {
			p.hidden += sec.Bytes
			p.hiddenEscaped += p.lr.escaped - escaped
		}
		if each != nil {
			each(sec)
		}
	}
}

// inSection: the part ends inside the current section, which it holds.
func (p *pager) inSection() bool {
	return p.file != nil && !p.file.Complete && p.file.Index == p.seen-1
}
