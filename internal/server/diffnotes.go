package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// flagGenerated decides which of the part's files are generated or
// vendored, by the rules of commit (by name alone when r is nil).
func (s *Server) flagGenerated(ctx context.Context, r *repo.Repository, commit string, p *paging.Part) {
	var paths []string
	for _, f := range p.Page.Files {
		if !f.Hidden {
			paths = append(paths, paging.SectionName(f.Header))
		}
	}
	p.Generated = s.generated(ctx, r, commit, paths)
}

// anyHidden: the part left out a file the secrets policy hides.
func anyHidden(p *diff.Page) bool {
	for _, f := range p.Files {
		if f.Hidden {
			return true
		}
	}
	return false
}

// needsNotes: a part changed or left out something of git's patch (a line
// too long for any reply, bytes that are not UTF-8), so even a diff that
// fits whole must come with its notes.
func needsNotes(p *diff.Page) bool {
	for _, f := range p.Files {
		if len(f.LongLines) > 0 || f.Replaced || f.Omitted {
			return true
		}
	}
	return false
}

// partNotes are the lines after a part's patch that say what it left out or
// changed: hidden files, a file whose header lines are too long for any
// reply, lines too long for any reply, bytes that are not UTF-8. readAt is
// the commit a left-out line can be read at.
func (s *Server) partNotes(p *paging.Part, readAt string) string {
	var hidden, replaced, tests, generated []string
	var b strings.Builder
	longNotes := 0
	for _, f := range p.Page.Files {
		name := paging.SectionName(f.Header)
		switch {
		case f.Hidden:
			hidden = append(hidden, s.hiddenName(f.Header))
			continue
		case f.Omitted:
			// A part holds at most one (diff.ReadPage).
			fmt.Fprintf(&b, "[left out: the patch of %s, whose header lines alone are longer than a whole reply at this server's limit; read_file reads the file]\n", text.Name(name))
		case f.Replaced:
			replaced = append(replaced, name)
		}
		if isTestPath(name) && (len(tests) == 0 || tests[len(tests)-1] != name) {
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
			fmt.Fprintf(&b, "[left out: line %d of the %s %s is %d bytes, longer than a whole reply; read_file %s reads the file around it]\n", line, side, text.Name(name), ll.Bytes, text.JSONControls(string(args)))
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
		args := paging.PlainJSON(map[string]any{"path": path, "ref": readAt, "startLine": 1})
		fmt.Fprintf(&b, "[not diffed: %s is %d bytes, too large for git to diff within the server's memory cap; read_file %s reads it]\n", text.Name(path), p.Skipped[path], args)
	}
	if longNotes > maxLongNotes {
		fmt.Fprintf(&b, "[left out: %d more lines longer than a whole reply]\n", longNotes-maxLongNotes)
	}
	room := noteListRoom
	if len(hidden) > 0 {
		fmt.Fprintf(&b, "[hidden by the server's secrets policy: %s]\n", fileList(text.Names(hidden), nil, len(hidden), room, ""))
	}
	if len(replaced) > 0 {
		fmt.Fprintf(&b, "[not UTF-8: bytes shown as U+FFFD in %s]\n", fileList(text.Names(replaced), nil, len(replaced), room, ""))
	}
	if len(tests) > 0 {
		fmt.Fprintf(&b, "[test files: %s]\n", fileList(text.Names(tests), nil, len(tests), room, ""))
	}
	if len(generated) > 0 {
		fmt.Fprintf(&b, "[generated or vendored: %s]\n", fileList(text.Names(generated), nil, len(generated), room, ""))
	}
	b.WriteString(scanPart(p).Notes(true))
	return b.String()
}

// hiddenName is how a part's notes name a section the secrets policy
// hides: by its path, or for a rename or copy with one side hidden, by its
// public side, said to come from or go to a hidden path. The public path
// is not itself hidden (read_file reads it), and the hidden one is refused
// everywhere, so naming it would tell the agent nothing it can act on.
func (s *Server) hiddenName(h diff.Header) string {
	oldHidden, newHidden := s.cfg.Policy.Denied(h.OldPath), s.cfg.Policy.Denied(h.NewPath)
	verb := "renamed"
	if h.Status == diff.StatusCopied {
		verb = "copied"
	}
	switch {
	case oldHidden == newHidden:
		return paging.SectionName(h)
	case oldHidden:
		return fmt.Sprintf("%s (%s from a hidden path)", h.NewPath, verb)
	default:
		return fmt.Sprintf("%s (%s to a hidden path)", h.OldPath, verb)
	}
}

// noteListRoom bounds each list of names in a part's notes.
const (
	noteListRoom   = 1024
	maxLongNotes   = 5
	longNoteLength = 512
)

// partNotesRoom is the most a part's notes take: three lists, a few
// left-out lines and hidden-character notes. A part read from a stream that cannot be read twice (a
// forge's diff) keeps it free.
func (s *Server) partNotesRoom() int {
	return 4*noteListRoom + 2*maxLongNotes*longNoteLength + text.MaxHiddenNotes*(text.HiddenNoteLength+text.MaxNoteName)
}

// scanPart scans each file a part shows.
func scanPart(p *paging.Part) text.HiddenByName {
	var ph text.HiddenByName
	texts := paging.FilesOf(p.Page.Text)
	ti := 0
	for _, f := range p.Page.Files {
		if f.Hidden || ti >= len(texts) {
			continue
		}
		nw, old := diff.ScanHidden(texts[ti])
		ti++
		ph.Add(paging.SectionName(f.Header), nw, old)
	}
	return ph
}

// hasHiddenChars: a page's patch holds a hidden character, so it needs its
// notes even when it would fit whole.
func hasHiddenChars(p *diff.Page) bool {
	ph := scanPart(&paging.Part{Page: p})
	return ph.Found()
}
