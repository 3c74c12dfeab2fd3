// ReadPage cuts a diff into parts that each fit a budget, and Count sizes
// a diff's sections. This file holds their API and types; the pager that
// does the work is in pager.go and the files named page*.go.

package diff

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Pos is where a part of a diff starts: the ordinal (0-based, in the order
// of the input) of a file section, and the number of the section's body
// lines already given (the body is every line after the header lines, "@@"
// lines included). Pos{} is the start of the diff.
//
// A line longer than a part comes in pieces (see ReadPage): Byte is how
// many bytes of body line Line its pieces gave already, counted in the
// line's text (after git's "+", "-" or " ", without its line feed), and
// LineBytes the size of that text, when known (0: the part reads it).
type Pos struct {
	File      int
	Line      int64
	Byte      int64
	LineBytes int64
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
	// Frame, when set, rewrites each hunk line as it is to be shown (the
	// server's framing rule, text.FrameBytes) before it is measured and
	// written; it keeps the line's first byte, git's " ", "+" or "-".
	Frame func([]byte) []byte
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
	// From is where the input starts, when not at the diff's start: at
	// the "diff --git " line of section From.File, From.Offset bytes in,
	// as SectionAt told an earlier read of the same diff. A stream that
	// can only be read from its start (a forge's diff), read part after
	// part, is then not read again up to each part. From.File is at most
	// Start.File; the Total of a part read from From counts the hidden
	// sections after it only.
	From Checkpoint
	// SectionAt, when set, is told where each section that the pager
	// passes on its way to Start begins.
	SectionAt func(Checkpoint)
}

// Checkpoint is where a section of a diff begins: its ordinal and the
// offset of its "diff --git " line.
type Checkpoint struct {
	File   int
	Offset int64
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
	Pieced    bool // a line of it comes in pieces, of which the part holds one
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
	// Escaped is Bytes JSON-escaped, as replies carry them (Count only;
	// 0: not counted): what reading the whole diff costs.
	Escaped int64
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
// repeats the file's header lines. Join puts the parts back together.
//
// A hunk line that does not fit in a part even alone comes in pieces, one
// a part, each as large as the part's room allows and cut on a UTF-8
// character's boundary. A piece is a line of the part: git's "+", "-" or
// " " and the piece's bytes, after a marker line of its own (pieceMarker)
// that says which line it is of, the bytes it holds and whether it goes
// on. The "@@" line before the first piece counts the line; the part after
// the last piece goes on with a "@@" line of its own. A line that does not
// fit even so (a room smaller than its marker) is left out and reported in
// PageFile.LongLines; a part lists at most 1000 files and 100 such lines.
// Bytes before the first "diff --git " line are skipped.
func ReadPage(r io.Reader, o PageOptions) (*Page, error) {
	if o.Room <= 0 {
		return nil, errors.New("diff: PageOptions.Room must be positive")
	}
	if o.Start.File < 0 || o.Start.Line < 0 || o.Start.Byte < 0 || o.Start.LineBytes < 0 || o.Start.Byte > 0 && o.Start.Line == 0 {
		return nil, ErrBadPos
	}
	if o.From.File < 0 || o.From.Offset < 0 || o.From.File > o.Start.File {
		return nil, errors.New("diff: PageOptions.From is past Start")
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
	p := &pager{o: o, lr: lineReader{br: br, n: o.From.Offset}, seen: o.From.File, pc: piece{at: -1}, text: make([]byte, 0, min(o.Room, maxTextUpFront)), startByte: o.Start.Byte}
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
	p := &pager{o: PageOptions{Hide: hide, Cost: func(b []byte) int { return len(b) }}, lr: lineReader{br: br, countEscapes: true}}
	if err := p.countRest(each); err != nil {
		return nil, err
	}
	if p.seen == 0 && p.lr.n > 0 {
		return nil, fmt.Errorf("%w: no \"diff --git \" line", ErrNotDiff)
	}
	return &Total{Files: p.seen, Bytes: p.lr.n - p.hidden, Escaped: p.lr.escaped - p.hiddenEscaped}, nil
}
