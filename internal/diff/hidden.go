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
			newSide.Add(int(newLine), line[1:], newLine == 1)
			newLine++
		case '-':
			oldSide.Add(int(oldLine), line[1:], oldLine == 1)
			oldLine++
		case ' ':
			newSide.Add(int(newLine), line[1:], newLine == 1)
			oldLine, newLine = oldLine+1, newLine+1
		case '\\':
		default:
			inHunk = false // a new section's header
		}
	}
	return newSide, oldSide
}

// ScanFramed finds the hunk lines of a section, as shown (framed), that
// the framing rule marked (text.PatchLineFramed): "+" and context lines
// by their line in the new file, "-" lines in the old one.
func ScanFramed(section []byte) (newSide, oldSide text.Framed) {
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
			if text.PatchLineFramed(line) {
				newSide.Add(int(newLine))
			}
			newLine++
		case '-':
			if text.PatchLineFramed(line) {
				oldSide.Add(int(oldLine))
			}
			oldLine++
		case ' ':
			if text.PatchLineFramed(line) {
				newSide.Add(int(newLine))
			}
			oldLine, newLine = oldLine+1, newLine+1
		case '\\':
		default:
			inHunk = false // a new section's header
		}
	}
	return newSide, oldSide
}
