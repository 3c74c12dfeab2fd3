// How the pager gets to a part's start and into a section: it skips the
// sections before it, reads and writes a section's header lines, and
// follows the section's hunks, unwritten, up to the body line the part
// starts at.

package diff

import (
	"bytes"
	"fmt"
	"strings"
)

// seekFile reads up to the "diff --git " line of section target, skipping a
// preamble and the sections before it.
func (p *pager) seekFile(target int) (found bool, err error) {
	for {
		k, _, err := p.lr.next()
		if err != nil || k == startEOF {
			return false, err
		}
		if k == startFile {
			if p.o.SectionAt != nil {
				p.o.SectionAt(Checkpoint{File: p.seen, Offset: p.lr.n})
			}
			if p.seen == target {
				return true, nil
			}
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
	offset, startByte := p.lr.n, p.startByte
	p.startByte = 0
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
	if startByte > 0 {
		if more, err := p.continuePiece(startByte, p.o.Start.LineBytes); err != nil || !more {
			return false, err
		}
	}
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
