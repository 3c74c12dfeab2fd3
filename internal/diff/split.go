package diff

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

const (
	readBufSize = 64 << 10
	// maxHeaderBytes bounds the header bytes NextHeader keeps for parsing,
	// so a malformed header region cannot grow memory. Real headers are a
	// few hundred bytes; quoted names of PATH_MAX length fit many times.
	maxHeaderBytes = 1 << 20
	// maxReuse is the largest section buffer kept between calls to Next;
	// larger ones are handed to the caller instead of copied.
	maxReuse = 1 << 20
)

// Section is one file's part of a unified diff: from its "diff --git " line
// up to (not including) the next file's "diff --git " line or end of input.
type Section struct {
	Header Header
	Raw    []byte // the exact bytes, line endings included; nil when not kept (NextWithin)
	Size   int64  // bytes in the section, kept or not
	// Added and Deleted count the hunks' "+" and "-" lines, as git's
	// --numstat does for a text file.
	Added, Deleted int
}

// ErrAborted is returned by NextWithin for a section that grew past its
// abort size. The Splitter is then done: every later call returns the error.
var ErrAborted = errors.New("diff: section over the abort size")

// HeaderError reports a file header that could not be parsed. It is not
// fatal: the Splitter stays in step, the section (or its size) is returned
// along with the error, and the next call continues with the next file.
type HeaderError struct {
	Offset int64 // input offset of the section's "diff --git " line
	Err    error
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("%v (at input offset %d)", e.Err, e.Offset)
}

func (e *HeaderError) Unwrap() error { return e.Err }

// Splitter reads a unified diff as a stream and yields one file section at a
// time, holding at most one section (Next) or one bounded header (NextHeader)
// plus its read buffer and a reused buffer of at most 1 MiB in memory. Bytes before the first line that starts
// with "diff --git " (a commit message, say) are skipped.
//
// A new section starts at a line beginning with "diff --git " that is not
// hunk content. Hunks are followed by their "@@ -a,b +c,d @@" line counts,
// but since hunk content always starts with ' ', '-', '+' or a backslash, a
// line that does not (such as "diff --git ...") ends a hunk whose counts are
// too large; excess lines of a hunk whose counts are too small stay in its
// section. So every line starting with "diff --git " starts a section, and
// wrong counts cannot make the split lose step. Lines may end in "\n" or
// "\r\n" or the input may end without a newline; Raw keeps them as they are.
// Combined diffs ("diff --cc") are not split: their lines stay in the
// preceding section.
type Splitter struct {
	r   *bufio.Reader
	eof bool  // r has reported io.EOF; never read again
	err error // sticky: io.EOF after the last section, or a read error
	pos int64 // input bytes consumed so far

	// carry is the first fragment of the "diff --git " line that ended the
	// previous section (at most one read buffer).
	carry    []byte
	hasCarry bool

	buf   []byte   // the current section's bytes, while they are kept
	hdr   []byte   // the current header, at most maxHeaderBytes
	lines []string // reused by parse
}

// NewSplitter returns a Splitter reading the diff from r.
func NewSplitter(r io.Reader) *Splitter {
	return newSplitterSize(r, readBufSize)
}

// newSplitterSize lets tests use a tiny read buffer to exercise lines longer
// than the buffer.
func newSplitterSize(r io.Reader, size int) *Splitter {
	return &Splitter{r: bufio.NewReaderSize(r, size)}
}

// Next returns the next file's section, or io.EOF after the last one. If the
// header cannot be parsed, the section is returned with a *HeaderError.
func (s *Splitter) Next() (*Section, error) {
	return s.NextWithin(-1, 0)
}

// NextHeader is Next without keeping the section's bytes: it parses the
// header, skips the body and returns the section's size in bytes. Memory use
// does not grow with the size of the section: at most maxHeaderBytes (1 MiB)
// of a malformed, endless header are kept for parsing. If the header cannot be
// parsed, the size is returned with a *HeaderError.
func (s *Splitter) NextHeader() (h Header, size int64, err error) {
	sec, err := s.NextWithin(0, 0)
	if sec == nil {
		return Header{}, 0, err
	}
	return sec.Header, sec.Size, err
}

// NextWithin is Next for a caller with a byte budget: the section's bytes are
// kept only if the whole section is at most keep bytes (keep < 0: always);
// a larger one comes back with Raw nil, still measured and counted, and
// memory does not grow with it. With abort > 0, a section that grows past
// abort bytes is not read to its end: it comes back (header, size so far)
// with ErrAborted, for a caller that would rather stop the diff's producer
// than read it through.
func (s *Splitter) NextWithin(keep, abort int64) (*Section, error) {
	start, sec, err := s.scan(keep, abort)
	if sec == nil {
		return nil, err
	}
	h, perr := s.parse(s.hdr, start)
	sec.Header = h
	if sec.Raw != nil && cap(sec.Raw) <= maxReuse {
		// Small sections are copied out of the reused buffer, so that each
		// costs one exact allocation; a large one is handed over as it is.
		sec.Raw = bytes.Clone(sec.Raw)
	} else if sec.Raw != nil {
		s.buf = nil
	}
	if err == nil {
		err = perr
	}
	return sec, err
}

// read returns the next line, or the next buffer-full of a longer line.
func (s *Splitter) read() ([]byte, error) {
	if s.eof {
		return nil, io.EOF
	}
	b, err := s.r.ReadSlice('\n')
	s.pos += int64(len(b))
	if err == io.EOF {
		s.eof = true
	}
	return b, err
}

// skipPreamble discards input up to the first line that starts with
// "diff --git " and leaves that line's first fragment in carry.
func (s *Splitter) skipPreamble() error {
	lineStart := true
	for {
		frag, err := s.read()
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return err
		}
		if lineStart && hasPrefix(frag, diffGitPrefix) {
			s.carry = append(s.carry[:0], frag...)
			s.hasCarry = true
			return nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return err // io.EOF: no sections at all
		}
		lineStart = err == nil
	}
}

// scan reads one section, keeping its header in s.hdr and, while the
// section stays within keep bytes, its bytes in s.buf.
func (s *Splitter) scan(keep, abort int64) (start int64, sec *Section, err error) {
	if s.err != nil {
		return 0, nil, s.err
	}
	if !s.hasCarry {
		if err := s.skipPreamble(); err != nil {
			s.err = err
			return 0, nil, err
		}
	}
	start = s.pos - int64(len(s.carry))
	s.hasCarry = false
	s.buf, s.hdr = s.buf[:0], s.hdr[:0]
	t := tracker{st: inHeader}
	sec = &Section{}
	kept := keep != 0
	done := func() *Section {
		sec.Added, sec.Deleted = t.added, t.deleted
		if kept {
			sec.Raw = s.buf
		}
		return sec
	}

	frag, header, eof := s.carry, true, false
	for {
		sec.Size += int64(len(frag))
		if kept && keep > 0 && sec.Size > keep {
			kept, s.buf = false, s.buf[:0]
		}
		if kept {
			s.buf = append(s.buf, frag...)
		}
		if header {
			if room := maxHeaderBytes - len(s.hdr); room > 0 {
				s.hdr = append(s.hdr, frag[:min(len(frag), room)]...)
			}
		}
		if abort > 0 && sec.Size > abort {
			s.err = ErrAborted
			kept = false
			return start, done(), ErrAborted
		}
		if eof {
			s.err = io.EOF
			return start, done(), nil
		}
		lineDone := frag[len(frag)-1] == '\n'
		next, rerr := s.read()
		switch rerr {
		case nil, bufio.ErrBufferFull:
		case io.EOF:
			eof = true
			if len(next) == 0 {
				s.err = io.EOF
				return start, done(), nil
			}
		default:
			s.err = rerr
			return 0, nil, rerr
		}
		if lineDone {
			switch t.classify(next) {
			case classFileStart:
				s.carry = append(s.carry[:0], next...)
				s.hasCarry = true
				return start, done(), nil
			case classHeader:
				header = true
			default:
				header = false
			}
		}
		frag = next
	}
}

// parse parses header bytes, splitting them into lines without copying
// each one.
func (s *Splitter) parse(hdr []byte, start int64) (Header, error) {
	text := string(hdr)
	s.lines = s.lines[:0]
	for text != "" {
		i := strings.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		s.lines = append(s.lines, text[:i])
		text = text[i:]
	}
	h, err := ParseHeader(s.lines)
	clear(s.lines) // drop references to this header's text
	if err != nil {
		return h, &HeaderError{Offset: start, Err: err}
	}
	return h, nil
}
