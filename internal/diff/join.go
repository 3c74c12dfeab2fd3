package diff

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
)

// Join puts parts of a diff that ReadPage returned, in order, back
// together: each file's header lines once, then its hunks from all parts,
// with a hunk that a part boundary split merged back into one. For the
// parts of git's output, read from Pos{} to the end with no line left out,
// no file hidden and no byte replaced, the result is git's output byte for
// byte.
//
// A part's first section continues the previous part's last one when their
// header lines are equal (git never prints a file's header twice in a
// row), and its first hunk is merged with the one before it when the two
// abut in both files and share their section heading (separate hunks of
// git's never abut). The pieces of a line (ReadPage) are joined into it:
// a marker line ("[line …]") is dropped, the piece after it loses git's
// prefix when the marker says ", from the previous part", and its line
// feed when the marker ends "; goes on in the next part]".
func Join(parts ...[]byte) ([]byte, error) {
	var j joiner
	for i, part := range parts {
		if err := j.add(part); err != nil {
			return nil, fmt.Errorf("diff: part %d: %w", i, err)
		}
	}
	j.flush()
	return j.out, nil
}

// joiner holds the last hunk's "@@" line back until the hunk ends, since a
// merge changes it.
type joiner struct {
	out    []byte
	hdr    []byte   // header lines of the section that ends out
	open   bool     // a hunk is held back
	at     int      // where its "@@" line goes in out; its lines follow
	head   hunkHead // its ranges
	orig   []byte   // its "@@" line as given, while not merged
	merged bool
}

func (j *joiner) add(part []byte) error {
	for i, first := 0, true; i < len(part); first = false {
		if !hasPrefix(part[i:], diffGitPrefix) {
			return fmt.Errorf("%w: a part does not start with \"diff --git \"", ErrNotDiff)
		}
		end := headerEnd(part, i)
		cont := first && j.hdr != nil && bytes.Equal(part[i:end], j.hdr)
		if !cont {
			j.flush()
			j.out = append(j.out, part[i:end]...)
			j.hdr = append(j.hdr[:0], part[i:end]...)
		}
		for i = end; i < len(part) && !hasPrefix(part[i:], diffGitPrefix); {
			line := part[i:lineEnd(part, i)]
			i += len(line)
			if hasPrefix(line, pieceOpener) {
				// A piece of a line, after its marker: the first piece
				// keeps git's prefix, the last its line feed. A hunk
				// right after the last piece may go on the held one.
				pc := part[i:lineEnd(part, i)]
				i += len(pc)
				if bytes.HasSuffix(line, []byte(pieceFrom+pieceMore)) || bytes.HasSuffix(line, []byte(pieceFrom+pieceEnd)) {
					pc = pc[min(1, len(pc)):]
				}
				if bytes.HasSuffix(line, []byte(pieceMore)) {
					pc = bytes.TrimSuffix(pc, []byte("\n"))
				}
				j.out = append(j.out, pc...)
				continue
			}
			if !hasPrefix(line, "@@") {
				j.out = append(j.out, line...)
				// git's "\ No newline at end of file" belongs to the line
				// before it, as the last piece of a line does: a hunk
				// after it may still go on the held one.
				cont = cont && hasPrefix(line, `\`)
				continue
			}
			h, ok := parseHunkHead(line)
			if !ok {
				return fmt.Errorf("%w: malformed hunk header %.80q", ErrNotDiff, line)
			}
			if cont && j.open && j.head.abuts(h) {
				j.head.old.n += h.old.n
				j.head.new.n += h.new.n
				j.merged = true
				cont = false
				continue
			}
			cont = false
			j.flush()
			j.open, j.at, j.head, j.orig, j.merged = true, len(j.out), h, line, false
		}
	}
	return nil
}

// flush puts the held-back "@@" line in front of its hunk's lines.
func (j *joiner) flush() {
	if !j.open {
		return
	}
	head := j.orig
	if j.merged {
		head = appendHunkHead(nil, j.head)
	}
	j.out = slices.Insert(j.out, j.at, head...)
	j.open = false
}

// headerEnd returns the end of the header lines of the section at i, as
// ReadPage reads them: before a piece's marker, in a part that starts
// inside a line.
func headerEnd(b []byte, i int) int {
	for i = lineEnd(b, i); i < len(b); {
		rest := b[i:]
		if hasPrefix(rest, diffGitPrefix) || hasPrefix(rest, "@@") || hasPrefix(rest, pieceOpener) {
			break
		}
		i = lineEnd(b, i)
		if endsHeader(rest) {
			break
		}
	}
	return i
}

// lineEnd returns the end of the line that starts at i.
func lineEnd(b []byte, i int) int {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(b)
}

// span is one side of a hunk: its first line and how many lines it has.
// An empty span's first is the line after it (git writes the line before).
type span struct{ first, n int64 }

// hunkHead is a parsed "@@ -a,b +c,d @@" line.
type hunkHead struct {
	old, new span
	tail     []byte // what follows the second "@@": section heading, line end
}

// abuts reports whether hunk h starts where hunk a ends, in both files,
// with the same section heading.
func (a hunkHead) abuts(h hunkHead) bool {
	return a.old.first+a.old.n == h.old.first && a.new.first+a.new.n == h.new.first &&
		bytes.Equal(a.tail, h.tail)
}

// maxLineNum bounds the numbers of a hunk header, so sums cannot overflow.
const maxLineNum = 1 << 40

// parseHunkHead parses a "@@ -a[,b] +c[,d] @@" line; a count left out is 1.
func parseHunkHead(line []byte) (h hunkHead, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(hunkPrefix))
	if !ok {
		return h, false
	}
	if h.old, rest, ok = parseSpan(rest); !ok || !hasPrefix(rest, " +") {
		return h, false
	}
	if h.new, rest, ok = parseSpan(rest[2:]); !ok || !hasPrefix(rest, " @@") {
		return h, false
	}
	h.tail = rest[3:]
	return h, true
}

func parseSpan(b []byte) (s span, rest []byte, ok bool) {
	start, rest, ok := parseNum(b)
	s.n = 1
	if ok && len(rest) > 0 && rest[0] == ',' {
		s.n, rest, ok = parseNum(rest[1:])
	}
	if !ok || start >= maxLineNum || s.n >= maxLineNum || start == 0 && s.n > 0 {
		return s, nil, false
	}
	s.first = start
	if s.n == 0 {
		s.first++
	}
	return s, rest, true
}

// appendHunkHead writes h as git does: a count of 1 is left out, and an
// empty range gives the line before it.
func appendHunkHead(dst []byte, h hunkHead) []byte {
	dst = append(dst, hunkPrefix...)
	dst = appendSpan(dst, h.old)
	dst = append(dst, " +"...)
	dst = appendSpan(dst, h.new)
	dst = append(dst, " @@"...)
	return append(dst, h.tail...)
}

func appendSpan(dst []byte, s span) []byte {
	start := s.first
	if s.n == 0 {
		start--
	}
	dst = strconv.AppendInt(dst, start, 10)
	if s.n != 1 {
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, s.n, 10)
	}
	return dst
}
