package fold

import (
	"bytes"
	"strconv"
)

// contextLines is how much of git's context a piece of a cut hunk keeps on
// each side, git's default.
const contextLines = 3

// writeRest writes git's diff of what the patterns do not show: every file
// but those all of whose hunks fold away, with its header as git wrote it,
// and its hunks: untouched ones as git wrote them, cut ones in pieces.
// folded[file][hunk] marks a hunk's folded lines, nil if it has none.
func writeRest(b *bytes.Buffer, files []patchFile, folded [][][]bool) {
	for fi := range files {
		f := &files[fi]
		gone := len(f.hunks) > 0
		for hi := range f.hunks {
			gone = gone && allChangesFolded(&f.hunks[hi], folded[fi][hi])
		}
		if gone {
			continue
		}
		b.Write(f.header)
		for hi := range f.hunks {
			h, marks := &f.hunks[hi], folded[fi][hi]
			switch {
			case marks == nil:
				b.Write(h.raw)
			case !allChangesFolded(h, marks):
				writePieces(b, h, marks)
			}
		}
	}
}

func allChangesFolded(h *hunk, marks []bool) bool {
	if marks == nil {
		return false
	}
	for i, l := range h.lines {
		if l.sign != ' ' && !marks[i] {
			return false
		}
	}
	return true
}

// writePieces writes the stretches of a hunk between its folded lines that
// hold a change, each with at most contextLines of context on each side.
// A stretch is a run of the hunk's own lines, so each piece is a valid hunk
// whose lines are git's bytes; only its "@@" line is new.
func writePieces(b *bytes.Buffer, h *hunk, marks []bool) {
	lines := h.lines
	for i := 0; i < len(lines); {
		if marks[i] {
			i++
			continue
		}
		j := i
		for j < len(lines) && !marks[j] {
			j++
		}
		first, last := i, j
		for first < last && lines[first].sign == ' ' {
			first++
		}
		for last > first && lines[last-1].sign == ' ' {
			last--
		}
		if first < last {
			writePiece(b, lines[max(i, first-contextLines):min(j, last+contextLines)])
		}
		i = j
	}
}

func writePiece(b *bytes.Buffer, lines []hunkLine) {
	oldCount, newCount := 0, 0
	for _, l := range lines {
		if l.sign != '+' {
			oldCount++
		}
		if l.sign != '-' {
			newCount++
		}
	}
	b.WriteString("@@ -")
	writeRange(b, lines[0].old, oldCount)
	b.WriteString(" +")
	writeRange(b, lines[0].new, newCount)
	b.WriteString(" @@\n")
	for _, l := range lines {
		b.Write(l.raw)
		b.Write(l.marker)
	}
}

// writeRange writes "start,count" as git does: an empty side names the line
// before it, and a count of one is left out.
func writeRange(b *bytes.Buffer, start, count int) {
	if count == 0 {
		start--
	}
	b.WriteString(strconv.Itoa(start))
	if count != 1 {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(count))
	}
}
