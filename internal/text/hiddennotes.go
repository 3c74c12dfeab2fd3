package text

import (
	"fmt"
	"strings"
)

// Hidden characters (IsHidden) in what a reply shows from the repository
// are told in a note and, with --structured, in a field; the text is shown
// as it is (README, "Safety"). These are the field and the notes' words.

// HiddenChars is what the structured output says of a text's hidden
// characters.
type HiddenChars struct {
	Lines      []int    `json:"lines" jsonschema:"the first 20 lines that hold one (in a patch: lines of the new file, from its + and context lines)"`
	LineCount  int      `json:"lineCount" jsonschema:"how many lines hold one"`
	OldLines   []int    `json:"oldLines,omitempty" jsonschema:"in a patch: the first 20 lines of the old file, from its - lines, that hold one"`
	OldCount   int      `json:"oldLineCount,omitempty" jsonschema:"in a patch: how many - lines hold one"`
	CodePoints []string `json:"codePoints" jsonschema:"each one found, with its name: U+202E RIGHT-TO-LEFT OVERRIDE"`
}

// NewHiddenChars is the field for what was found in new (and, for a
// patch, old); nil when nothing was.
func NewHiddenChars(new, old Hidden) *HiddenChars {
	if !new.Found() && !old.Found() {
		return nil
	}
	h := &HiddenChars{Lines: new.Lines, LineCount: new.Count, OldLines: old.Lines, OldCount: old.Count, CodePoints: uniqueNames(new, old)}
	if h.Lines == nil {
		h.Lines = []int{}
	}
	return h
}

// uniqueNames names the code points of both scans once each.
func uniqueNames(a, b Hidden) []string {
	var all Hidden
	all.Merge(a)
	all.Merge(b)
	return all.PointNames()
}

// HiddenNote is the note of a text's hidden characters: what names the
// text ("app.js", "the patch of app.js", "the message"), the lines and the
// code points. A patch's lines are said to be of the new or the old file.
func HiddenNote(what string, new, old Hidden, patch bool) string {
	var where []string
	if new.Found() {
		where = append(where, linesPhrase(patch, "new", new))
	}
	if old.Found() {
		where = append(where, linesPhrase(patch, "old", old))
	}
	if len(where) == 0 {
		return ""
	}
	return fmt.Sprintf("hidden characters in %s, %s: %s; shown as they are", what, strings.Join(where, "; "), strings.Join(uniqueNames(new, old), ", "))
}

// linesPhrase is "line 3", "lines 3, 7", or in a patch "new lines 3, 7".
func linesPhrase(patch bool, side string, h Hidden) string {
	word := "line "
	if h.Count > 1 {
		word = "lines "
	}
	if patch {
		word = side + " " + word
	}
	return word + h.LineList()
}

// MaxHiddenNotes is how many files of a part get a hidden-character note;
// one more line counts the rest. HiddenNoteLength bounds a note without
// its file's name, and MaxNoteName the name it shows.
const (
	MaxHiddenNotes   = 5
	HiddenNoteLength = 640
	MaxNoteName      = 512
)

// HiddenByName is what the files a reply shows hold, by name: the files
// of a diff's part, or those of a search's lines.
type HiddenByName struct {
	names    []string // the files that hold one, in the reply's order
	new, old map[string]Hidden
}

// Add counts what name's text holds: for a patch, new from its + and
// context lines, old from its - lines.
func (ph *HiddenByName) Add(name string, new, old Hidden) {
	if !new.Found() && !old.Found() {
		return
	}
	if ph.new == nil {
		ph.new, ph.old = map[string]Hidden{}, map[string]Hidden{}
	}
	if _, seen := ph.new[name]; !seen {
		ph.names = append(ph.names, name)
	}
	n, o := ph.new[name], ph.old[name]
	n.Merge(new)
	o.Merge(old)
	ph.new[name], ph.old[name] = n, o
}

// Found: a file holds one.
func (ph *HiddenByName) Found() bool { return ph.names != nil }

// Notes are the hidden-character notes of a part's files (patch) or of
// the lines a search shows.
func (ph HiddenByName) Notes(patch bool) string {
	var b strings.Builder
	for i, name := range ph.names {
		if i == MaxHiddenNotes {
			fmt.Fprintf(&b, "[hidden characters in %d more files]\n", len(ph.names)-i)
			break
		}
		shown := NoteName(name)
		what := shown
		if patch {
			what = "the patch of " + shown
		}
		b.WriteString("[" + HiddenNote(what, ph.new[name], ph.old[name], patch) + "]\n")
	}
	return b.String()
}

// PointsNote is the note of a one-line text's hidden characters: what
// names it ("the title") and the code points.
func PointsNote(what string, h Hidden) string {
	return fmt.Sprintf("[hidden characters in %s: %s; shown as they are]\n", what, strings.Join(h.PointNames(), ", "))
}
