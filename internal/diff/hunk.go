package diff

// section states, in the order they occur within one file's section.
type state uint8

const (
	inHeader state = iota // from "diff --git " up to the first hunk or binary marker
	inHunk                // inside a hunk, counting its remaining lines
	inBody                // between hunks, after them, or in a binary patch
)

// lineClass says what a line means to the splitter.
type lineClass uint8

const (
	classBody      lineClass = iota // part of the section's body
	classHeader                     // part of the section's header
	classFileStart                  // a "diff --git " line: the next section starts here
)

// tracker follows one section line by line. It only ever needs the start of
// a line, so it works on the first fragment of lines longer than the read
// buffer.
//
// Hunk lines are counted from the "@@ -a,b +c,d @@" header so the tracker
// knows where a hunk ends. Inside a hunk every line must start with ' ',
// '-', '+' or a backslash (or be empty: a context line whose space was
// stripped), so a hunk whose counts are wrong cannot desynchronise the split:
//   - counts too large: the first line that is not hunk content ends the
//     hunk early and is classified normally; a "diff --git " line there
//     starts the next file as it should;
//   - counts too small: the excess lines stay in the section as body lines;
//     they start with a prefix character, so none is a "diff --git " line.
//
// As a consequence every line that starts with "diff --git " starts a new
// section, and the counts only decide where a hunk ends.
type tracker struct {
	st             state
	oldRem, newRem int64
	added, deleted int // "+" and "-" lines seen in hunks
}

// classify takes the start of the next line (never empty) and advances the
// state. The "diff --git " line that opens a section is not passed in: a
// tracker starts in inHeader.
func (t *tracker) classify(line []byte) lineClass {
	if t.st == inHunk {
		if t.hunkLine(line) {
			return classBody
		}
		t.st = inBody // the hunk's counts were too large
	}
	switch {
	case hasPrefix(line, diffGitPrefix):
		return classFileStart
	case hasPrefix(line, hunkPrefix):
		t.st = inBody
		if o, n, ok := parseHunkHeader(line); ok && (o > 0 || n > 0) {
			t.st, t.oldRem, t.newRem = inHunk, o, n
		}
		return classBody
	case t.st == inHeader:
		if hasPrefix(line, binaryFilesPrefix) || hasPrefix(line, binaryPatchPrefix) {
			t.st = inBody // this line is the last of the header
		}
		return classHeader
	}
	return classBody
}

// hunkLine counts line against the open hunk and reports whether it is hunk
// content at all.
func (t *tracker) hunkLine(line []byte) bool {
	switch line[0] {
	case ' ', '\n':
		t.oldRem--
		t.newRem--
	case '\r': // an empty context line of CRLF content
		if len(line) < 2 || line[1] != '\n' {
			return false
		}
		t.oldRem--
		t.newRem--
	case '-':
		t.oldRem--
		t.deleted++
	case '+':
		t.newRem--
		t.added++
	case '\\': // "\ No newline at end of file"
	default:
		return false
	}
	if t.oldRem <= 0 && t.newRem <= 0 {
		t.st = inBody
	}
	return true
}

const (
	diffGitPrefix     = "diff --git "
	hunkPrefix        = "@@ -"
	binaryFilesPrefix = "Binary files "
	binaryPatchPrefix = "GIT binary patch"
)

// hasPrefix is bytes.HasPrefix for a string prefix; the comparison does not
// allocate.
func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

// parseHunkHeader reads the line counts b and d of "@@ -a,b +c,d @@"; an
// omitted count means 1. Counts saturate instead of overflowing.
func parseHunkHeader(line []byte) (oldCount, newCount int64, ok bool) {
	rest := line[len(hunkPrefix):]
	oldCount, rest, ok = parseRange(rest)
	if !ok || len(rest) < 2 || rest[0] != ' ' || rest[1] != '+' {
		return 0, 0, false
	}
	newCount, rest, ok = parseRange(rest[2:])
	if !ok || !hasPrefix(rest, " @@") {
		return 0, 0, false
	}
	return oldCount, newCount, true
}

// parseRange parses "start[,count]" and returns count.
func parseRange(b []byte) (count int64, rest []byte, ok bool) {
	_, b, ok = parseNum(b)
	if !ok {
		return 0, nil, false
	}
	if len(b) == 0 || b[0] != ',' {
		return 1, b, true
	}
	return parseNum(b[1:])
}

func parseNum(b []byte) (n int64, rest []byte, ok bool) {
	const limit = 1 << 59 // n*10+9 stays below 1<<63
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if n < limit {
			n = n*10 + int64(b[i]-'0')
		}
	}
	return n, b[i:], i > 0
}
