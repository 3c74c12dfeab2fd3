package fold

import (
	"bytes"
	"sort"
	"strconv"
)

// numberedLine is a changed line with its number on its side.
type numberedLine struct {
	number int
	body   []byte // newline included
	marker []byte // "\ No newline at end of file" line, verbatim, or nil
}

// fileLines is what Normalize keeps of a file.
type fileLines struct {
	gitLine        []byte
	header         []byte // without "index" lines
	removed, added []numberedLine
}

func newFileLines(f *patchFile) fileLines {
	fl := fileLines{gitLine: f.gitLine(), header: withoutIndex(f.header)}
	for hi := range f.hunks {
		for _, l := range f.hunks[hi].lines {
			nl := numberedLine{number: l.number(), body: l.body, marker: l.marker}
			switch l.sign {
			case '-':
				fl.removed = append(fl.removed, nl)
			case '+':
				fl.added = append(fl.added, nl)
			}
		}
	}
	return fl
}

// Normalize returns what Rebuild gives back of a patch: every file in byte
// order of its "diff --git" line (a stable sort, so files with one such line
// keep git's order), each as its header without the "index" line, then its
// removed lines as "-OLD " + the line, then its added lines as "+NEW " + the
// line, each in git's order and with the line's own newline, or its
// "\ No newline at end of file" line. Context lines and hunk headers are
// dropped: they are not changes.
func Normalize(patch []byte) ([]byte, error) {
	files, err := parsePatch(patch)
	if err != nil {
		return nil, err
	}
	out := make([]fileLines, len(files))
	for i := range files {
		out[i] = newFileLines(&files[i])
	}
	return writeNormal(out), nil
}

func writeNormal(files []fileLines) []byte {
	sort.SliceStable(files, func(i, j int) bool { return bytes.Compare(files[i].gitLine, files[j].gitLine) < 0 })
	var b []byte
	for _, f := range files {
		b = append(b, f.header...)
		b = appendLines(b, '-', f.removed)
		b = appendLines(b, '+', f.added)
	}
	return b
}

func appendLines(b []byte, sign byte, lines []numberedLine) []byte {
	for _, l := range lines {
		b = append(b, sign)
		b = strconv.AppendInt(b, int64(l.number), 10)
		b = append(b, ' ')
		b = append(b, l.body...)
		b = append(b, l.marker...)
	}
	return b
}
