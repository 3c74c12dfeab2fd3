// Line numbers for a part of a diff (ReadPage): each hunk line shown with
// its numbers in the old and the new file, and the numbers taken off again.

package diff

import (
	"bytes"
	"fmt"
	"strconv"
)

// NumberLines is part (a part ReadPage gave, or any text) with each hunk
// line numbered: git's sign, the line's number in the old file (none for
// a "+" line), a space, its number in the new file (none for a "-" line),
// a tab, then the rest of git's line as it was:
//
//	" foo" (old line 40, new line 41)  " 40 41\tfoo"
//	"-bar" (old line 12)               "-12 \tbar"
//	"+baz" (new line 118)              "+ 118\tbaz"
//
// The numbers count from each hunk's "@@" line as git counts: a context
// line advances both, a "-" line the old, a "+" line the new. Every other
// line is left as it is: header lines, "@@" lines, "\ No newline at end
// of file", a piece's marker line, and the piece that continues a line
// from the previous part. The first piece of a line (its marker does not
// say ", from the previous part") is the one its part's "@@" line counts,
// and is numbered as the line. A context line whose space was stripped
// (an empty line) is counted but not written with numbers. The lines of a
// hunk whose "@@" line does not parse, or after a line that cannot be in
// the hunk, are left as they are up to the next "@@" line that parses.
func NumberLines(part []byte) []byte {
	out := make([]byte, 0, len(part)+NumberedExtra(part))
	var n numberer
	for i := 0; i < len(part); {
		line := part[i:lineEnd(part, i)]
		i += len(line)
		kind, oldN, newN := n.step(line)
		if kind == 0 {
			out = append(out, line...)
			continue
		}
		out = appendNumbers(out, kind, oldN, newN)
		out = append(out, line[1:]...)
	}
	return out
}

// UnnumberLines is the inverse of NumberLines: UnnumberLines(
// NumberLines(p)) is p for every p. It follows the hunks as NumberLines
// does rather than reading numbers off any line that looks numbered (a
// line of code may well read "+ 1\tx"), and returns an error for a text
// NumberLines cannot have written: a hunk line without the numbers it
// would have been given.
func UnnumberLines(numbered []byte) ([]byte, error) {
	out := make([]byte, 0, len(numbered))
	var n numberer
	var buf [2*20 + 3]byte // a sign, two numbers, a space and a tab
	for i, ln := 0, 1; i < len(numbered); ln++ {
		line := numbered[i:lineEnd(numbered, i)]
		i += len(line)
		kind, oldN, newN := n.step(line)
		if kind == 0 {
			out = append(out, line...)
			continue
		}
		prefix := appendNumbers(buf[:0], kind, oldN, newN)
		if !bytes.HasPrefix(line, prefix) {
			return nil, fmt.Errorf("diff: line %d (%.40q) is a hunk line without its numbers %q", ln, line, prefix)
		}
		out = append(out, kind)
		out = append(out, line[len(prefix):]...)
	}
	return out, nil
}

// NumberedExtra is how many bytes NumberLines adds to part, counted
// without writing the result: what numbering a part costs.
func NumberedExtra(part []byte) int {
	var n numberer
	extra := 0
	for i := 0; i < len(part); {
		line := part[i:lineEnd(part, i)]
		i += len(line)
		if kind, oldN, newN := n.step(line); kind != 0 {
			extra += numbersLen(kind, oldN, newN)
		}
	}
	return extra
}

// appendNumbers appends what a numbered line of kind starts with, up to
// and with its tab.
func appendNumbers(dst []byte, kind byte, oldN, newN int64) []byte {
	dst = append(dst, kind)
	if kind != '+' {
		dst = strconv.AppendInt(dst, oldN, 10)
	}
	dst = append(dst, ' ')
	if kind != '-' {
		dst = strconv.AppendInt(dst, newN, 10)
	}
	return append(dst, '\t')
}

// numbersLen is what appendNumbers adds to a line besides its sign.
func numbersLen(kind byte, oldN, newN int64) int {
	n := 2 // the space and the tab
	if kind != '+' {
		n += digits(oldN)
	}
	if kind != '-' {
		n += digits(newN)
	}
	return n
}

func digits(v int64) int {
	n := 1
	for ; v >= 10; v /= 10 {
		n++
	}
	return n
}

// What the line after a piece's marker is.
const (
	notPiece   = iota
	startPiece // the line's first piece, which its part's "@@" line counts
	contPiece  // a piece that continues a line from the previous part
)

// numberer follows the hunks of a part line by line. It decides on what
// NumberLines keeps of a line: a line it numbers keeps its first byte
// (the sign, which is all it decides on), a line it leaves is left whole.
// So a part and its numbered text are followed alike, which is what makes
// UnnumberLines exact.
type numberer struct {
	open             bool // in a hunk that has lines to come
	oldNext, newNext int64
	oldRem, newRem   int64
	piece            uint8 // the next line is a piece (notPiece, startPiece, contPiece)
}

// step follows line and returns the sign and the numbers it is shown
// with, or kind 0 for a line left as it is.
func (n *numberer) step(line []byte) (kind byte, oldN, newN int64) {
	piece := n.piece
	n.piece = notPiece
	switch {
	case piece == contPiece:
		return 0, 0, 0 // no "@@" line of the part counts it
	case piece == startPiece:
		// The line after a marker is its piece, whatever it reads (as
		// Join takes it), so it is a hunk line or nothing.
	case hasPrefix(line, pieceOpener):
		n.piece = startPiece
		// Join's test: a piece "from the previous part" goes on with a
		// line, and Join drops its sign; only a first piece's is git's.
		if bytes.HasSuffix(line, []byte(pieceFrom+pieceMore)) || bytes.HasSuffix(line, []byte(pieceFrom+pieceEnd)) {
			n.piece = contPiece
		}
		return 0, 0, 0
	case hasPrefix(line, diffGitPrefix):
		n.open = false
		return 0, 0, 0
	case hasPrefix(line, "@@"):
		h, ok := parseHunkHead(line)
		n.open = ok && (h.old.n > 0 || h.new.n > 0)
		n.oldNext, n.newNext, n.oldRem, n.newRem = h.old.first, h.new.first, h.old.n, h.new.n
		return 0, 0, 0
	}
	if !n.open {
		return 0, 0, 0
	}
	kind = line[0] // lineEnd never gives an empty line
	switch {
	case kind == '\\':
		return 0, 0, 0 // "\ No newline at end of file" counts no line
	case kind == ' ' || kind == '-' || kind == '+':
	case lineKind(line) == ' ':
		// An empty line: a context line whose space was stripped. It is
		// counted, and left as it is, having no sign to keep.
		kind = 0
	default:
		n.open = false // not a hunk line: the hunk's counts were too large
		return 0, 0, 0
	}
	dOld, dNew := lineCounts(kind)
	if kind == 0 {
		dOld, dNew = 1, 1
	}
	if dOld > n.oldRem || dNew > n.newRem {
		n.open = false // a line past the hunk's counts is not in it
		return 0, 0, 0
	}
	oldN, newN = n.oldNext, n.newNext
	n.oldNext, n.newNext = n.oldNext+dOld, n.newNext+dNew
	n.oldRem, n.newRem = n.oldRem-dOld, n.newRem-dNew
	n.open = n.oldRem > 0 || n.newRem > 0
	if kind == 0 {
		return 0, 0, 0
	}
	return kind, oldN, newN
}
