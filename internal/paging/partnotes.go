package paging

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// A part's notes: the lines after its patch that say what it left out or
// changed, and which of its files are tests, generated or hidden. The
// server gives the rules it knows (NoteRules); the part knows the rest.

// NoteRules is what a part's notes need of the server.
type NoteRules struct {
	// ReadAt is the commit a left-out line or file can be read at.
	ReadAt string
	// IsTest tells test files by their path.
	IsTest func(path string) bool
	// Denied tells the paths the secrets policy hides.
	Denied func(path string) bool
}

// NeedsNotes: a part of page changed or left out something of git's
// patch (a file the secrets policy hides, a line too long for any reply,
// bytes that are not UTF-8) or holds a hidden character, so even a diff
// that fits whole must come with its notes.
func NeedsNotes(page *diff.Page) bool {
	for _, f := range page.Files {
		if f.Hidden || len(f.LongLines) > 0 || f.Replaced || f.Omitted {
			return true
		}
	}
	ph := scanPart(&Part{Page: page})
	return ph.Found() || len(framedNotes(&Part{Page: page})) > 0
}

// Notes are the lines after the part's patch that say what it left out or
// changed: hidden files, a file whose header lines are too long for any
// reply, lines too long for any reply, files too large to diff, bytes that
// are not UTF-8; and which files are tests, generated, or hold hidden
// characters.
func (p *Part) Notes(r NoteRules) string {
	readAt := r.ReadAt
	var hidden, replaced, tests, generated []string
	var b strings.Builder
	if p.RenamesSkipped {
		fmt.Fprintf(&b, "[renames not searched: this diff deletes and adds more files than git compares (its rename limit, %d); a file moved and changed shows as deleted and added]\n", git.RenameLimit)
	}
	b.WriteString(bareNote(p))
	longNotes := 0
	for _, f := range p.Page.Files {
		name := SectionName(f.Header)
		switch {
		case f.Hidden:
			hidden = append(hidden, hiddenName(f.Header, r.Denied))
			continue
		case f.Omitted:
			// A part holds at most one (diff.ReadPage).
			shown := text.NoteName(name)
			fmt.Fprintf(&b, "[left out: the patch of %s, whose header lines alone are longer than a whole reply at this server's limit; read_file reads the file]\n", shown)
		case f.Replaced:
			replaced = append(replaced, name)
		}
		if r.IsTest(name) && (len(tests) == 0 || tests[len(tests)-1] != name) {
			tests = append(tests, name)
		}
		if p.Generated != nil && p.Generated(name) && (len(generated) == 0 || generated[len(generated)-1] != name) {
			generated = append(generated, name)
		}
		for _, ll := range f.LongLines {
			if longNotes++; longNotes > maxLongNotes {
				continue
			}
			line, side, at := ll.NewLine, "new", readAt
			if line == 0 {
				line, side = ll.OldLine, "old"
			}
			args, _ := json.Marshal(map[string]any{"path": name, "ref": at, "startLine": max(1, line-20)})
			shown, cut := text.NoteNameCut(name)
			if cut { // the call would be as long as the path
				fmt.Fprintf(&b, "[left out: line %d of the %s %s is %d bytes, longer than a whole reply; read_file reads the file around it]\n", line, side, shown, ll.Bytes)
				continue
			}
			fmt.Fprintf(&b, "[left out: line %d of the %s %s is %d bytes, longer than a whole reply; read_file %s reads the file around it]\n", line, side, shown, ll.Bytes, text.JSONControls(string(args)))
		}
	}
	var skipped []string
	for path := range p.Skipped {
		skipped = append(skipped, path)
	}
	slices.Sort(skipped)
	for i, path := range skipped {
		if i == maxLongNotes {
			fmt.Fprintf(&b, "[not diffed: %d more files too large for git to diff here]\n", len(skipped)-i)
			break
		}
		args := " " + PlainJSON(map[string]any{"path": path, "ref": readAt, "startLine": 1})
		shown, cut := text.NoteNameCut(path)
		if cut { // the call would be as long as the path
			args = ""
		}
		fmt.Fprintf(&b, "[not diffed: %s is %d bytes, too large for git to diff within the server's memory cap; read_file%s reads it]\n", shown, p.Skipped[path], args)
	}
	if longNotes > maxLongNotes {
		fmt.Fprintf(&b, "[left out: %d more lines longer than a whole reply]\n", longNotes-maxLongNotes)
	}
	room := NoteListRoom
	if len(hidden) > 0 {
		fmt.Fprintf(&b, "[hidden by the server's secrets policy: %s]\n", FileList(text.NoteNames(hidden), nil, len(hidden), room, ""))
	}
	if len(replaced) > 0 {
		fmt.Fprintf(&b, "[not UTF-8: bytes shown as U+FFFD in %s]\n", FileList(text.NoteNames(replaced), nil, len(replaced), room, ""))
	}
	if len(tests) > 0 {
		fmt.Fprintf(&b, "[test files: %s]\n", FileList(text.NoteNames(tests), nil, len(tests), room, ""))
	}
	if len(generated) > 0 {
		fmt.Fprintf(&b, "[generated or vendored: %s]\n", FileList(text.NoteNames(generated), nil, len(generated), room, ""))
	}
	b.WriteString(scanPart(p).Notes(true))
	for _, n := range framedNotes(p) {
		b.WriteString(n)
	}
	return b.String()
}

// framedNotes are the notes of the lines the framing rule marked in the
// part's files (text.FramedNote), at most text.MaxFramedNotes and a line
// that counts the rest.
func framedNotes(p *Part) []string {
	var out []string
	texts := FilesOf(p.Page.Text)
	ti, more := 0, 0
	for _, f := range p.Page.Files {
		if f.Hidden || ti >= len(texts) {
			continue
		}
		nw, old := diff.ScanFramed(texts[ti])
		ti++
		if !nw.Found() && !old.Found() {
			continue
		}
		if len(out) == text.MaxFramedNotes {
			more++
			continue
		}
		shown := text.NoteName(SectionName(f.Header))
		what := "the patch of " + shown
		if nw.Found() {
			out = append(out, text.FramedNoteLine(what, "new", nw))
		}
		if old.Found() {
			out = append(out, text.FramedNoteLine(what, "old", old))
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("[framed: lines in %d more files, each with a leading %s that is the server's]\n", more, text.Mark))
	}
	return out
}

// hiddenName is how a part's notes name a section the secrets policy
// hides: by its path, or for a rename or copy with one side hidden, by its
// public side, said to come from or go to a hidden path. The public path
// is not itself hidden (read_file reads it), and the hidden one is refused
// everywhere, so naming it would tell the agent nothing it can act on.
func hiddenName(h diff.Header, denied func(string) bool) string {
	oldHidden, newHidden := denied(h.OldPath), denied(h.NewPath)
	verb := "renamed"
	if h.Status == diff.StatusCopied {
		verb = "copied"
	}
	switch {
	case oldHidden == newHidden:
		return SectionName(h)
	case oldHidden:
		return fmt.Sprintf("%s (%s from a hidden path)", h.NewPath, verb)
	default:
		return fmt.Sprintf("%s (%s to a hidden path)", h.OldPath, verb)
	}
}

// NoteListRoom bounds each list of names in a part's notes.
const (
	NoteListRoom   = 1024
	maxLongNotes   = 5
	longNoteLength = 512
)

// NotesRoom is the most a part's notes take: four lists, a few left-out
// lines, hidden-character and framed-line notes. A part read from a stream that cannot
// be read twice (a forge's diff) keeps it free.
const NotesRoom = 4*NoteListRoom + 2*maxLongNotes*longNoteLength + text.MaxHiddenNotes*(text.HiddenNoteLength+text.MaxNoteName) +
	2*text.MaxFramedNotes*(text.FramedNoteLength+text.MaxNoteName)

// scanPart scans each file a part shows.
func scanPart(p *Part) text.HiddenByName {
	var ph text.HiddenByName
	texts := FilesOf(p.Page.Text)
	ti := 0
	for _, f := range p.Page.Files {
		if f.Hidden || ti >= len(texts) {
			continue
		}
		nw, old := diff.ScanHidden(texts[ti])
		ti++
		ph.Add(SectionName(f.Header), nw, old)
	}
	return ph
}

// bareNote names the part's files that have no patch because, with
// ignoreWhitespace, their changes are all in whitespace: git diff -w
// prints no section for them, and git diff -w --numstat no line (between
// two trees that is the only file of the list without one).
func bareNote(p *Part) string {
	if len(p.Bare) == 0 {
		return ""
	}
	names := make([]string, len(p.Bare))
	for i, c := range p.Bare {
		names[i] = text.Name(c.Path)
	}
	return fmt.Sprintf("[no patch, the changes are all in whitespace (ignoreWhitespace): %s]\n", FileList(names, nil, len(names), NoteListRoom, ""))
}
