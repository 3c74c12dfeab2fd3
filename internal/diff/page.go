package diff

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Pos is where a part of a diff starts: the ordinal (0-based, in the order
// of the input) of a file section, and the number of the section's body
// lines already given (the body is every line after the header lines, "@@"
// lines included). Pos{} is the start of the diff.
type Pos struct {
	File int
	Line int64
}

// PageOptions says which part of a diff ReadPage returns.
type PageOptions struct {
	Start Pos
	// Room is the budget for Page.Text, measured by Cost.
	Room int
	// Cost is what a piece of text costs against Room; nil means len. It is
	// applied to whole lines (valid UTF-8), must add up over them, and must
	// be at least len: lines longer than Room bytes are never held.
	// The server passes the JSON-escaped length (text.JSONLen).
	Cost func([]byte) int
	// Hide reports a section that must not be shown (secrets policy); it is
	// not written, costs nothing, and is listed in Page.Files as Hidden.
	Hide func(Header) bool
	// CountRest reads the input to its end after the part is full, to fill
	// Page.Total (and the Size of the section the part ends inside).
	// Without it ReadPage stops reading soon after the part.
	CountRest bool
	// SizeLast reads on after the part to the end of the section it ends
	// inside, when that section's size is not known, to fill its Size.
	SizeLast bool
	// StartSize is the size of the section Start is inside (Start.Line >
	// 0), when the caller knows it (a part before read it): the Size of the
	// part's first file.
	StartSize int64
}

// Page is one part of a diff.
type Page struct {
	Text  []byte     // the part: a valid patch by itself
	Files []PageFile // every section the part touches, in order, hidden ones included
	Next  *Pos       // where the next part starts; nil when the input ended in this part
	Total *Total     // set with CountRest, or when the input ended in this part
}

// PageFile is what a part holds of one file section.
type PageFile struct {
	Header Header
	Index  int  // ordinal of the section
	Hidden bool // PageOptions.Hide: nothing of it was written
	// Omitted is set when the file's header lines alone cost more than
	// Room, so nothing of it could be written. Such a section comes in a
	// part of its own (hidden sections aside).
	Omitted   bool
	Continued bool // the part starts inside the file (its header lines were repeated)
	Complete  bool // the file's end is in this part
	Replaced  bool // bytes that are not UTF-8 were written as U+FFFD
	// LongLines are lines left out because they cannot fit in a part even
	// alone with the file's header and a hunk header.
	LongLines      []LongLine
	Added, Deleted int // "+" and "-" lines written in this part
	// From and To say which of the section's bytes, as read and counted
	// from its "diff --git " line, the part's share covers: [From, To).
	// The shares of a section's parts follow each other, the first from 0,
	// the last to its Size.
	From, To int64
	// Size is the section's size in bytes: known (not 0) when the part read
	// to its end (Complete, Hidden or Omitted, or with CountRest).
	Size int64
	// Old and New are the lines of the old and new file that the hunks of
	// the part's share span, from their "@@" lines (zero when none).
	Old, New LineSpan
}

// LineSpan is the first and last of a run of lines (zero: none).
type LineSpan struct{ First, Last int64 }

// add widens the span to hold s (a hunk's range).
func (l *LineSpan) add(s span) {
	if s.n == 0 {
		return
	}
	last := s.first + s.n - 1
	if l.First == 0 || s.first < l.First {
		l.First = s.first
	}
	l.Last = max(l.Last, last)
}

// LongLine is a line left out of a part. NewLine and OldLine are its line
// numbers in the new and old file (0 where it has none: OldLine for a "+"
// line, NewLine for a "-" line, both for a line outside hunks). Bytes is its
// size in the input, "\ No newline at end of file" lines not included.
type LongLine struct {
	NewLine, OldLine int64
	Bytes            int64
}

// Total describes the whole input.
type Total struct {
	Files int   // file sections
	Bytes int64 // bytes read, a preamble included, hidden sections (PageOptions.Hide) not
}

var (
	// ErrBadPos is returned for a PageOptions.Start that is not in the
	// input: past its last section, at or past the end of a section, inside
	// a line's "\ No newline at end of file", or negative.
	ErrBadPos = errors.New("diff: position is not in the diff")
	// ErrNotDiff is returned (wrapped) for input that is not a git diff:
	// no "diff --git " line, a header that cannot be parsed, or a hunk whose
	// header is malformed or does not match its lines.
	ErrNotDiff = errors.New("diff: input is not a well-formed git diff")
)

const (
	// A part lists at most maxPartFiles sections and maxPartLongLines long
	// lines: hidden sections and left-out lines cost no Room, and must not
	// grow a part without bound either.
	maxPartFiles     = 1000
	maxPartLongLines = 100
)

// ReadPage reads a diff (the output of "git diff") from r as a stream and
// returns the part that starts at o.Start and fits in o.Room. It holds
// about two parts and a read buffer in memory and, unless o.CountRest,
// stops reading soon after the part is full.
//
// A part ends between files or between hunks where that keeps a file or a
// hunk whole; a hunk larger than a part is split at line boundaries into
// hunks with their own "@@" lines, and a part that starts inside a file
// repeats the file's header lines. Join puts the parts back together. A
// line that does not fit in a part even alone is left out and reported in
// PageFile.LongLines; a part lists at most 1000 files and 100 such lines.
// Bytes before the first "diff --git " line are skipped.
func ReadPage(r io.Reader, o PageOptions) (*Page, error) {
	if o.Room <= 0 {
		return nil, errors.New("diff: PageOptions.Room must be positive")
	}
	if o.Start.File < 0 || o.Start.Line < 0 {
		return nil, ErrBadPos
	}
	if o.Cost == nil {
		o.Cost = func(b []byte) int { return len(b) }
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	// The part's text is at most Room bytes (a byte costs at least one):
	// room for it up front, so it is not copied as it grows.
	p := &pager{o: o, lr: lineReader{br: br}, pc: piece{at: -1}, text: make([]byte, 0, min(o.Room, maxTextUpFront))}
	if err := p.run(); err != nil {
		return nil, err
	}
	p.page.Text = p.text
	return &p.page, nil
}

// readers keeps ReadPage's read buffers: a part is cut on every call of a
// paged diff, and a buffer of its own was most of what a cut allocated.
// Nothing a part returns points into one.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufSize) }}

// maxTextUpFront bounds the text buffer allocated before a part is read.
const maxTextUpFront = 256 << 10

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

// unit is a hunk line with the "\ No newline at end of file" lines that
// belong to it, or one line outside hunks (kind 0); it is never split.
type unit struct {
	text     []byte // nil when cut
	cut      bool   // longer than Room bytes: not held
	kind     byte   // ' ', '-', '+' or 0
	lines    int64  // input lines
	size     int64  // bytes of its first line
	cost     int
	replaced bool
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
		offset := p.lr.n
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

// SectionSize is one file section of a diff, as Count read it.
type SectionSize struct {
	Header Header
	Index  int   // ordinal of the section
	Bytes  int64 // its size
	Hidden bool  // hide reported it; its bytes are not in Total.Bytes
}

// Count reads a diff from r to its end, as ReadPage with CountRest counts
// what follows a part: its Total, and each section handed to each (when
// not nil) with its size. Bytes before the first "diff --git " line are
// counted, not handed.
func Count(r io.Reader, hide func(Header) bool, each func(SectionSize)) (*Total, error) {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	p := &pager{o: PageOptions{Hide: hide, Cost: func(b []byte) int { return len(b) }}, lr: lineReader{br: br}}
	if err := p.countRest(each); err != nil {
		return nil, err
	}
	if p.seen == 0 && p.lr.n > 0 {
		return nil, fmt.Errorf("%w: no \"diff --git \" line", ErrNotDiff)
	}
	return &Total{Files: p.seen, Bytes: p.lr.n - p.hidden}, nil
}

// seekFile reads up to the "diff --git " line of section target, skipping a
// preamble and the sections before it.
func (p *pager) seekFile(target int) (found bool, err error) {
	for {
		k, _, err := p.lr.next()
		switch {
		case err != nil || k == startEOF:
			return false, err
		case k == startFile && p.seen == target:
			return true, nil
		case k == startFile:
			p.seen++
		}
		if err := p.lr.skip(); err != nil {
			return false, err
		}
	}
}

// skipTo discards lines up to the next one of kind k (startFile: the end of
// the section; startEOF: the end of input), counting sections.
func (p *pager) skipTo(k lineStart) error {
	for {
		next, _, err := p.lr.next()
		if err != nil || next == startEOF || next == k {
			return err
		}
		if next == startFile {
			p.seen++
		}
		if err := p.lr.skip(); err != nil {
			return err
		}
	}
}

// section pages the section whose "diff --git " line is next in the input,
// starting at its body line startLine. It reports whether the part goes on
// after it.
func (p *pager) section(startLine int64) (more bool, err error) {
	offset := p.lr.n
	if err := p.readHeader(); err != nil {
		return false, err
	}
	h, err := ParseHeader(strings.SplitAfter(strings.TrimSuffix(string(p.raw), "\n"), "\n"))
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrNotDiff, &HeaderError{Offset: offset, Err: err})
	}
	p.file, p.line, p.long, p.fresh, p.offset = nil, 0, false, p.hdrCost, offset
	p.hunk = hunkState{headerBuf: p.hunk.headerBuf}
	if err := p.seekLine(startLine); err != nil {
		return false, err
	}
	// The share starts at the section's start, or where the part does
	// inside it; the header lines read so far are the first part's.
	f := PageFile{Header: h, Index: p.seen - 1, Continued: startLine > 0, To: p.lr.n - offset}
	if f.Continued {
		f.From, f.Size = f.To, p.o.StartSize
	}
	hidden := p.o.Hide != nil && p.o.Hide(h)
	if !hidden && p.hdrCost > p.o.Room && len(p.text) > 0 {
		// An omitted section comes in a part of its own: the reader
		// can then be given more room for it, and a part never leaves
		// out more than one.
		p.page.Next = &Pos{File: f.Index}
		return false, nil
	}
	if hidden || p.hdrCost > p.o.Room {
		f.Hidden, f.Omitted, f.Complete = hidden, !hidden, true
		p.omitted = !hidden
		if err := p.skipTo(startFile); err != nil {
			return false, err
		}
		f.To, f.Size = p.lr.n-offset, p.lr.n-offset
		if hidden {
			p.hidden += f.Size - f.From
		}
		p.page.Files = append(p.page.Files, f)
		return true, nil
	}
	if p.used+p.hdrCost > p.o.Room {
		p.page.Next = &Pos{File: f.Index, Line: startLine}
		return false, nil
	}
	p.here, p.sectionAt, p.usedAt = startLine == 0, len(p.text), p.used
	p.text = append(p.text, p.hdr...)
	p.used += p.hdrCost
	f.Replaced = p.hdrReplace
	p.page.Files = append(p.page.Files, f)
	p.file = &p.page.Files[len(p.page.Files)-1]
	return p.body()
}

// readHeader reads a section's header lines: its "diff --git " line and
// the lines up to its first "@@" line, the next section or a line that
// marks a binary file (which is the header's last).
func (p *pager) readHeader() error {
	p.raw = p.raw[:0]
	for first := true; ; first = false {
		if !first {
			k, _, err := p.lr.next()
			if err != nil {
				return err
			}
			if k != startOther && k != startMarker {
				break
			}
		}
		start := len(p.raw)
		var cut bool
		var err error
		p.raw, _, cut, err = p.lr.read(p.raw, maxHeaderBytes-len(p.raw))
		if err != nil {
			return err
		}
		if cut {
			return fmt.Errorf("%w: a file header over %d bytes", ErrNotDiff, maxHeaderBytes)
		}
		if first {
			p.seen++
		}
		if endsHeader(p.raw[start:]) {
			break
		}
	}
	p.hdr, p.hdrReplace = appendValid(p.hdr[:0], p.raw)
	p.hdrCost = p.o.Cost(p.hdr)
	return nil
}

// endsHeader reports a header line after which the body starts.
func endsHeader(line []byte) bool {
	return hasPrefix(line, binaryFilesPrefix) || hasPrefix(line, binaryPatchPrefix)
}

// seekLine skips the first n body lines of the section, following its
// hunks, and checks that a part can start there.
func (p *pager) seekLine(n int64) error {
	for p.line < n {
		if err := p.skipHunks(n); err != nil || p.line == n {
			return p.seekEnd(n, err)
		}
		k, b, err := p.lr.next()
		switch {
		case err != nil:
			return err
		case k == startEOF || k == startFile:
			return ErrBadPos
		case k == startHunk && p.hunk.open:
			return p.malformed("the hunk has fewer lines than its header says")
		case k == startHunk:
			if err := p.readHunkHead(false); err != nil {
				return err
			}
			continue
		case k == startOther && p.hunk.open:
			if err := p.countLine(lineKind(b)); err != nil {
				return err
			}
		case k == startOther && p.hunk.orig != nil:
			return p.malformed(afterHunks)
		}
		if err := p.lr.skip(); err != nil {
			return err
		}
		p.line++
	}
	return p.seekEnd(n, nil)
}

// seekEnd checks that a part can start at body line n, where seekLine
// stopped.
func (p *pager) seekEnd(n int64, err error) error {
	if err != nil || n == 0 {
		return err
	}
	k, _, err := p.lr.next()
	if err == nil && k != startOther && k != startHunk {
		err = ErrBadPos
	}
	return err
}

// skipHunks is seekLine's fast way through hunks: the lines in the read
// buffer, up to body line n, are followed in one pass over the buffer
// instead of read one by one. It stops at a line it leaves to seekLine
// (one not in the buffer whole; in a hunk, one that is not a plain "+",
// "-", " " or "\" line; between hunks, one that is not an "@@" or "\"
// line), or at line n.
func (p *pager) skipHunks(n int64) error {
	buf, _ := p.lr.br.Peek(p.lr.br.Buffered())
	used := 0
	defer func() {
		p.lr.n += int64(used)
		_, _ = p.lr.br.Discard(used) // buffered: cannot fail
	}()
	for p.line < n {
		i := bytes.IndexByte(buf[used:], '\n')
		if i < 0 {
			return nil
		}
		line := buf[used : used+i+1]
		switch k := line[0]; {
		case k == '\\':
			p.line++
		case !p.hunk.open && hasPrefix(line, "@@"):
			if err := p.openHunk(line, len(line) > maxHeaderBytes, false); err != nil {
				return err
			}
		case p.hunk.open && (k == ' ' || k == '-' || k == '+'):
			if err := p.countLine(k); err != nil {
				return err
			}
			p.line++
		default:
			return nil
		}
		used += len(line)
	}
	return nil
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
	u.text, u.size, u.cut, err = p.lr.read(p.buf[:0], p.o.Room)
	p.buf = u.text
	for kind != 0 && err == nil {
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
	if !utf8.Valid(u.text) {
		p.fix, u.replaced = appendValid(p.fix[:0], u.text)
		u.text = p.fix
	}
	u.cost = p.o.Cost(u.text)
	return u, nil
}

// hunkLine writes a line of the open hunk, or ends the part before it.
func (p *pager) hunkLine(kind byte) error {
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
		return p.skipLong(u, ll)
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

// isFresh reports a part that holds nothing but the current section's
// header: what does not fit now never will.
func (p *pager) isFresh() bool {
	return p.sectionAt == 0 && len(p.text) == len(p.hdr) && p.pc.at < 0
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
	p.pc.at = -1
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

// cut ends the part before unit u, which does not fit. If the section or
// the hunk that u is in would fit whole in a part of its own, the part ends
// before it instead, so that it is not split.
func (p *pager) cut(u unit) {
	secOK := p.here && p.sectionAt > 0 && !p.long
	hunkOK := u.kind != 0 && p.hunk.here && !p.hunk.long && (p.hunk.textAt > p.bodyAt() || secOK)
	secFits, hunkFits := p.lookahead(secOK, hunkOK)
	switch {
	case secFits || hunkFits && p.hunk.textAt == p.bodyAt():
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

// lineStart is what the next line is, as far as its first bytes tell.
type lineStart uint8

const (
	startEOF    lineStart = iota // no more input
	startFile                    // "diff --git "
	startHunk                    // "@@"
	startMarker                  // "\", as in "\ No newline at end of file"
	startOther
)

// lineReader reads lines, or pieces of lines longer than its buffer, and
// counts the bytes it consumes.
type lineReader struct {
	br *bufio.Reader
	n  int64
}

// next tells what the next line is without consuming it. b holds its first
// bytes (and perhaps the next line's).
func (lr *lineReader) next() (k lineStart, b []byte, err error) {
	b, err = lr.br.Peek(len(diffGitPrefix))
	switch {
	case err != nil && err != io.EOF:
		return 0, nil, err
	case len(b) == 0:
		return startEOF, nil, nil
	case hasPrefix(b, diffGitPrefix):
		return startFile, b, nil
	case hasPrefix(b, "@@"):
		return startHunk, b, nil
	case b[0] == '\\':
		return startMarker, b, nil
	}
	return startOther, b, nil
}

// read consumes the next line and appends it to dst if it is at most limit
// bytes long; a longer one is discarded as it is read (cut), leaving dst as
// it was. size is the line's length.
func (lr *lineReader) read(dst []byte, limit int) (out []byte, size int64, cut bool, err error) {
	start := len(dst)
	for {
		frag, err := lr.br.ReadSlice('\n')
		size += int64(len(frag))
		lr.n += int64(len(frag))
		if !cut && size > int64(limit) {
			cut, dst = true, dst[:start]
		}
		if !cut {
			dst = append(dst, frag...)
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				err = nil
			}
			return dst, size, cut, err
		}
	}
}

// skip consumes the next line without keeping any of it.
func (lr *lineReader) skip() error {
	_, _, _, err := lr.read(nil, 0)
	return err
}
