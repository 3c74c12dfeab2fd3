package fold

import (
	"bytes"
	"errors"
	"fmt"
)

// hunkLine is one line of a hunk's body. old and new are where it stands
// on each side: its own number on its side, and on the other side the number
// of the next line there.
type hunkLine struct {
	sign     byte   // ' ', '-' or '+'
	raw      []byte // the line as git wrote it, newline included
	body     []byte // the line after its sign, newline included
	marker   []byte // the "\ No newline at end of file" line after it, verbatim; nil if none
	old, new int
}

// number is the line's number on its side: old for '-', new otherwise.
func (l *hunkLine) number() int {
	if l.sign == '-' {
		return l.old
	}
	return l.new
}

// hunk is one "@@" section. oldStart and newStart are the numbers of the
// first line each side covers: git writes the line before ("-5,0") when a
// side has no lines, so they are one more than the header says then.
type hunk struct {
	raw                []byte // the header line through the last body line, as git wrote them
	oldStart, newStart int
	oldCount, newCount int
	lines              []hunkLine
}

// oldEnd is the first old line after the hunk.
func (h *hunk) oldEnd() int { return h.oldStart + h.oldCount }

// changed counts the hunk's removed and added lines.
func (h *hunk) changed() int {
	n := 0
	for _, l := range h.lines {
		if l.sign != ' ' {
			n++
		}
	}
	return n
}

// patchFile is one "diff --git" section: its header lines as git wrote them,
// then its hunks (none for a binary file, a pure rename or a mode change).
type patchFile struct {
	header []byte
	hunks  []hunk
}

// gitLine is the file's "diff --git" line, newline included.
func (f *patchFile) gitLine() []byte { return firstLine(f.header) }

var (
	errNoFinalNewline = errors.New("fold: the patch does not end with a newline")
	errNotGitDiff     = errors.New(`fold: the patch does not start with "diff --git"`)
)

var (
	prefixGit  = []byte("diff --git ")
	prefixHunk = []byte("@@ -")
)

// firstLine returns b up to and including its first newline (all of b if none).
func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1]
	}
	return b
}

// parsePatch splits a git patch into files and hunks. The slices point into
// p. A hunk's body is read by its line counts, so a removed line that reads
// "--- x" or an added "++ y" is never taken for a header.
func parsePatch(p []byte) ([]patchFile, error) {
	if len(p) == 0 {
		return nil, nil
	}
	if p[len(p)-1] != '\n' {
		return nil, errNoFinalNewline
	}
	if !bytes.HasPrefix(p, prefixGit) {
		return nil, errNotGitDiff
	}
	var files []patchFile
	pos := 0
	for pos < len(p) {
		start := pos
		pos += len(firstLine(p[pos:]))
		for pos < len(p) {
			line := p[pos:]
			if bytes.HasPrefix(line, prefixGit) || bytes.HasPrefix(line, prefixHunk) {
				break
			}
			pos += len(firstLine(line))
		}
		f := patchFile{header: p[start:pos]}
		for pos < len(p) && bytes.HasPrefix(p[pos:], prefixHunk) {
			h, end, err := parseHunk(p, pos)
			if err != nil {
				return nil, err
			}
			f.hunks = append(f.hunks, h)
			pos = end
		}
		if pos < len(p) && !bytes.HasPrefix(p[pos:], prefixGit) {
			return nil, fmt.Errorf("fold: unexpected line after a hunk at byte %d: %.40q", pos, firstLine(p[pos:]))
		}
		files = append(files, f)
	}
	return files, nil
}

// parseHunk reads the hunk whose header starts at p[pos:] and returns it with
// the offset just past it.
func parseHunk(p []byte, pos int) (hunk, int, error) {
	start := pos
	header := firstLine(p[pos:])
	o, n, m, k, err := parseRange(header)
	if err != nil {
		return hunk{}, 0, fmt.Errorf("fold: hunk header at byte %d: %w", pos, err)
	}
	h := hunk{oldStart: o, newStart: m, oldCount: n, newCount: k}
	if n == 0 {
		h.oldStart++
	}
	if k == 0 {
		h.newStart++
	}
	pos += len(header)
	oldNum, newNum := h.oldStart, h.newStart
	oldLeft, newLeft := n, k
	attachMarker := func(line []byte) error {
		if len(h.lines) == 0 || h.lines[len(h.lines)-1].marker != nil {
			return fmt.Errorf(`fold: stray "\" line at byte %d`, pos)
		}
		h.lines[len(h.lines)-1].marker = line
		return nil
	}
	for oldLeft > 0 || newLeft > 0 {
		if pos >= len(p) {
			return hunk{}, 0, fmt.Errorf("fold: hunk at byte %d ends early", start)
		}
		line := firstLine(p[pos:])
		l := hunkLine{raw: line, old: oldNum, new: newNum}
		switch line[0] {
		case ' ', '\n': // an empty line is a context line whose space was dropped (diff.suppressBlankEmpty)
			if oldLeft == 0 || newLeft == 0 {
				return hunk{}, 0, fmt.Errorf("fold: hunk at byte %d holds more lines than its header says", start)
			}
			l.sign = ' '
			oldLeft--
			newLeft--
			oldNum++
			newNum++
		case '-':
			if oldLeft == 0 {
				return hunk{}, 0, fmt.Errorf("fold: hunk at byte %d removes more lines than its header says", start)
			}
			l.sign = '-'
			oldLeft--
			oldNum++
		case '+':
			if newLeft == 0 {
				return hunk{}, 0, fmt.Errorf("fold: hunk at byte %d adds more lines than its header says", start)
			}
			l.sign = '+'
			newLeft--
			newNum++
		case '\\':
			if err := attachMarker(line); err != nil {
				return hunk{}, 0, err
			}
			pos += len(line)
			continue
		default:
			return hunk{}, 0, fmt.Errorf("fold: unexpected line in the hunk at byte %d: %.40q", start, line)
		}
		if line[0] != '\n' {
			l.body = line[1:]
		} else {
			l.body = line
		}
		h.lines = append(h.lines, l)
		pos += len(line)
	}
	if pos < len(p) && p[pos] == '\\' {
		line := firstLine(p[pos:])
		if err := attachMarker(line); err != nil {
			return hunk{}, 0, err
		}
		pos += len(line)
	}
	h.raw = p[start:pos]
	return h, pos, nil
}

// parseRange reads "@@ -o[,n] +m[,k] @@" at the start of a hunk header.
func parseRange(line []byte) (o, n, m, k int, err error) {
	rest := line[len(prefixHunk):]
	if o, n, rest, err = parsePair(rest); err != nil {
		return
	}
	if !bytes.HasPrefix(rest, []byte(" +")) {
		return 0, 0, 0, 0, errors.New(`no " +"`)
	}
	if m, k, rest, err = parsePair(rest[2:]); err != nil {
		return
	}
	if !bytes.HasPrefix(rest, []byte(" @@")) {
		return 0, 0, 0, 0, errors.New(`no closing " @@"`)
	}
	return o, n, m, k, nil
}

// parsePair reads "start[,count]"; a missing count is 1, as git writes it.
func parsePair(b []byte) (start, count int, rest []byte, err error) {
	if start, b, err = parseNumber(b); err != nil {
		return
	}
	count = 1
	if len(b) > 0 && b[0] == ',' {
		if count, b, err = parseNumber(b[1:]); err != nil {
			return
		}
	}
	return start, count, b, nil
}

// maxNumber bounds a line number or count, so sums of them cannot overflow.
const maxNumber = 1 << 40

func parseNumber(b []byte) (int, []byte, error) {
	i, v := 0, 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		v = v*10 + int(b[i]-'0')
		if v > maxNumber {
			return 0, nil, errors.New("number too large")
		}
		i++
	}
	if i == 0 {
		return 0, nil, errors.New("number expected")
	}
	return v, b[i:], nil
}
