package text

import (
	"bytes"
	"fmt"
	"strings"
)

// A reply that frames a line (Frame) says so in a note: which text, which
// lines, and that the leading Mark is the server's (docs/security.md,
// "Framing"; issue 38, "Exact payloads"). These are the notes' words.

// MaxFramedLines is how many lines of a text a note names; it counts the
// rest. MaxFramedNotes is how many texts of a part get a note; one more
// line counts the rest. FramedNoteLength bounds a note without its name.
const (
	MaxFramedLines   = 5
	MaxFramedNotes   = 5
	FramedNoteLength = 192
)

// Framed are the lines of a text the framing rule marked.
type Framed struct {
	Lines []int // the first MaxFramedLines
	Count int
}

// Add counts line n as framed.
func (f *Framed) Add(n int) {
	f.Count++
	if len(f.Lines) < MaxFramedLines {
		f.Lines = append(f.Lines, n)
	}
}

// Found: a line was framed.
func (f Framed) Found() bool { return f.Count > 0 }

// FramedLines are the lines of data (split at "\n", numbered from first)
// that o frames.
func (o Openers) FramedLines(data []byte, first int) Framed {
	var f Framed
	if !mayReadAsOurs(data) {
		return f
	}
	for n := first; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if mayReadAsOurs(line) && !plainLine(line) && o.ReadsAsOurs(string(line)) {
			f.Add(n)
		}
	}
	return f
}

// FramedNote is the note of what's framed lines (what names the text:
// "app.js", "the description"; side, when not "", the side of a patch:
// "new"), without its brackets; "" when none was.
func FramedNote(what, side string, f Framed) string {
	if !f.Found() {
		return ""
	}
	word := "line "
	if f.Count > 1 {
		word = "lines "
	}
	if side != "" {
		word = side + " " + word
	}
	list := make([]string, len(f.Lines))
	for i, n := range f.Lines {
		list[i] = fmt.Sprint(n)
	}
	if f.Count > len(f.Lines) {
		list = append(list, fmt.Sprintf("… (%d lines)", f.Count))
	}
	return fmt.Sprintf("framed: %s%s of %s: the leading %s is the server's, not in the text", word, strings.Join(list, ", "), what, Mark)
}

// FramedNoteLine is FramedNote as a line of its own; "" when no line was
// framed.
func FramedNoteLine(what, side string, f Framed) string {
	if !f.Found() {
		return ""
	}
	return "[" + FramedNote(what, side, f) + "]\n"
}
