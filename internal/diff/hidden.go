package diff

import (
	"bytes"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// ScanHidden finds the hidden characters (text.IsHidden) in the lines of
// one file's section of a patch, by their line numbers in the files: "+"
// and context lines in the new file (New), "-" lines in the old one (Old),
// so that read_file at either commit reads them. Header lines are not
// scanned: git quotes the names in them.
func ScanHidden(section []byte) (newSide, oldSide text.Hidden) {
	eachHunkLine(section, func(line []byte, n int64, old bool) {
		if old {
			oldSide.Add(int(n), line[1:], n == 1)
		} else {
			newSide.Add(int(n), line[1:], n == 1)
		}
	})
	return newSide, oldSide
}

// ScanFramed finds the hunk lines of a section, as shown (framed), that
// the framing rule marked (text.PatchLineFramed): "+" and context lines
// by their line in the new file, "-" lines in the old one.
func ScanFramed(section []byte) (newSide, oldSide text.Framed) {
	eachHunkLine(section, func(line []byte, n int64, old bool) {
		switch {
		case !text.PatchLineFramed(line):
		case old:
			oldSide.Add(int(n))
		default:
			newSide.Add(int(n))
		}
	})
	return newSide, oldSide
}

// eachHunkLine hands each "+", "-" and context line of a section's hunks
// to f with its line number: in the old file for a "-" line (old), else
// in the new one.
func eachHunkLine(section []byte, f func(line []byte, n int64, old bool)) {
	var oldLine, newLine int64
	inHunk := false
	for len(section) > 0 {
		line := section
		if i := bytes.IndexByte(section, '\n'); i >= 0 {
			line, section = section[:i], section[i+1:]
		} else {
			section = nil
		}
		if h, ok := parseHunkHead(line); ok {
			oldLine, newLine, inHunk = h.old.first, h.new.first, true
			continue
		}
		if !inHunk || len(line) == 0 {
			continue
		}
		switch line[0] {
		case '+':
			f(line, newLine, false)
			newLine++
		case '-':
			f(line, oldLine, true)
			oldLine++
		case ' ':
			f(line, newLine, false)
			oldLine, newLine = oldLine+1, newLine+1
		case '\\':
		default:
			inHunk = false // a new section's header
		}
	}
}
