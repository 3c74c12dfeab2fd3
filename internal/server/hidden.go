package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Hidden characters (text.IsHidden) in what a reply shows from the
// repository are told in a note and, with --structured, in a field; the
// text is shown as it is (README, "Safety").

// hiddenChars is what the structured output says of a text's hidden
// characters.
type hiddenChars struct {
	Lines      []int    `json:"lines" jsonschema:"the first 20 lines that hold one (in a patch: lines of the new file, from its + and context lines)"`
	LineCount  int      `json:"lineCount" jsonschema:"how many lines hold one"`
	OldLines   []int    `json:"oldLines,omitempty" jsonschema:"in a patch: the first 20 lines of the old file, from its - lines, that hold one"`
	OldCount   int      `json:"oldLineCount,omitempty" jsonschema:"in a patch: how many - lines hold one"`
	CodePoints []string `json:"codePoints" jsonschema:"each one found, with its name: U+202E RIGHT-TO-LEFT OVERRIDE"`
}

// newHiddenChars is the field for what was found in new (and, for a
// patch, old); nil when nothing was.
func newHiddenChars(new, old text.Hidden) *hiddenChars {
	if !new.Found() && !old.Found() {
		return nil
	}
	h := &hiddenChars{Lines: new.Lines, LineCount: new.Count, OldLines: old.Lines, OldCount: old.Count, CodePoints: uniqueNames(new, old)}
	if h.Lines == nil {
		h.Lines = []int{}
	}
	return h
}

// uniqueNames names the code points of both scans once each.
func uniqueNames(a, b text.Hidden) []string {
	var all text.Hidden
	all.Merge(a)
	all.Merge(b)
	return all.PointNames()
}

// hiddenNote is the note of a text's hidden characters: what names the
// text ("app.js", "the patch of app.js", "the message"), the lines and the
// code points. A patch's lines are said to be of the new or the old file.
func hiddenNote(what string, new, old text.Hidden, patch bool) string {
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

// noteHidden leaves the note of a text's hidden characters for the reply
// (renderNotes, within paging.NoteReserve), and returns the structured field.
func noteHidden(ctx context.Context, what string, h text.Hidden) *hiddenChars {
	if !h.Found() {
		return nil
	}
	notes.Add(ctx, hiddenNote(what, h, text.Hidden{}, false))
	return newHiddenChars(h, text.Hidden{})
}

// linesPhrase is "line 3", "lines 3, 7", or in a patch "new lines 3, 7".
func linesPhrase(patch bool, side string, h text.Hidden) string {
	word := "line "
	if h.Count > 1 {
		word = "lines "
	}
	if patch {
		word = side + " " + word
	}
	return word + h.LineList()
}

// maxHiddenNotes is how many files of a part get a hidden-character note;
// one more line counts the rest. hiddenNoteLength bounds a note without
// its file's name, and maxNoteName the name it shows.
const (
	maxHiddenNotes   = 5
	hiddenNoteLength = 640
	maxNoteName      = 512
)

// partHidden is what a part's files hold, by name.
type partHidden struct {
	names    []string // the files that hold one, in the part's order
	new, old map[string]text.Hidden
}

// scanPart scans each file a part shows.
func scanPart(p *paging.Part) partHidden {
	var ph partHidden
	texts := paging.FilesOf(p.Page.Text)
	ti := 0
	for _, f := range p.Page.Files {
		if f.Hidden || ti >= len(texts) {
			continue
		}
		nw, old := diff.ScanHidden(texts[ti])
		ti++
		if !nw.Found() && !old.Found() {
			continue
		}
		if ph.new == nil {
			ph.new, ph.old = map[string]text.Hidden{}, map[string]text.Hidden{}
		}
		name := paging.SectionName(f.Header)
		if _, seen := ph.new[name]; !seen {
			ph.names = append(ph.names, name)
		}
		n, o := ph.new[name], ph.old[name]
		n.Merge(nw)
		o.Merge(old)
		ph.new[name], ph.old[name] = n, o
	}
	return ph
}

// notes are the hidden-character notes of a part's files (patch) or of
// the lines a search shows.
func (ph partHidden) notes(patch bool) string {
	var b strings.Builder
	for i, name := range ph.names {
		if i == maxHiddenNotes {
			fmt.Fprintf(&b, "[hidden characters in %d more files]\n", len(ph.names)-i)
			break
		}
		shown, cut := text.CutUTF8(text.Name(name), maxNoteName)
		if cut {
			shown += "…"
		}
		what := shown
		if patch {
			what = "the patch of " + shown
		}
		b.WriteString("[" + hiddenNote(what, ph.new[name], ph.old[name], patch) + "]\n")
	}
	return b.String()
}

// hasHiddenChars: a page's patch holds a hidden character, so it needs its
// notes even when it would fit whole.
func hasHiddenChars(p *diff.Page) bool {
	return scanPart(&paging.Part{Page: p}).names != nil
}

// subjectsNote says which commits of a listing have hidden characters in
// their subjects: the first text.MaxHiddenLines of them, and the code
// points.
func subjectsNote(commits []histCommit) string {
	var shas []string
	var all text.Hidden
	n := 0
	for _, c := range commits {
		if len(c.SubjectHidden) == 0 {
			continue
		}
		if n++; len(shas) < text.MaxHiddenLines {
			shas = append(shas, git.Short(c.SHA))
		}
		all.Merge(text.ScanText([]byte(c.Subject), 1))
	}
	if n == 0 {
		return ""
	}
	which := strings.Join(shas, ", ")
	if n > len(shas) {
		which += fmt.Sprintf(", … (%d commits)", n)
	}
	return fmt.Sprintf("[hidden characters in the subjects of %s: %s; shown as they are]\n", which, strings.Join(all.PointNames(), ", "))
}

// matchesNote says which of the lines a search shows (matches and their
// context) hold hidden characters, by file.
func matchesNote(matches []searchMatch) string {
	var ph partHidden
	last := map[string]int{} // a line two matches' context share is counted once
	add := func(path string, line int, t string) {
		if line <= last[path] {
			return
		}
		last[path] = line
		h := text.Hidden{}
		h.Add(line, []byte(t), line == 1)
		if !h.Found() {
			return
		}
		if ph.new == nil {
			ph.new = map[string]text.Hidden{}
		}
		if _, seen := ph.new[path]; !seen {
			ph.names = append(ph.names, path)
		}
		all := ph.new[path]
		all.Merge(h)
		ph.new[path] = all
	}
	for _, m := range matches {
		for j, t := range m.Before {
			add(m.Path, m.Line-len(m.Before)+j, t)
		}
		add(m.Path, m.Line, m.Text)
		for j, t := range m.After {
			add(m.Path, m.Line+1+j, t)
		}
	}
	return ph.notes(false)
}

// pointsNote is the note of a one-line text's hidden characters: what
// names it ("the title") and the code points.
func pointsNote(what string, h text.Hidden) string {
	return fmt.Sprintf("[hidden characters in %s: %s; shown as they are]\n", what, strings.Join(h.PointNames(), ", "))
}
