package server

import (
	"bytes"
	"context"
	"io"
	"strconv"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
)

// A pull request's changed lines, file by file, from git's diff with no
// context (-U0): the lines removed, in the merge base's numbers, and the
// lines added, in the head's; a hunk that only removes marks, at the head,
// the place between two lines where it did.

// linesRange is lines start..end, both included.
type linesRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// changedLines is one file's changes.
type changedLines struct {
	OldPath, Path string
	New, Deleted  bool
	// Unread: the file's diff is binary or larger than a call reads.
	Unread  bool
	Removed []linesRange // base lines
	Added   []linesRange // head lines
	// Cuts are the head lines after which lines were removed (and none
	// added there).
	Cuts []int
}

// maxSymbolSection is the most bytes of one file's -U0 diff read for its
// lines: a larger one (a minified file rewritten) is named, not read.
const maxSymbolSection = 4 << 20

// pullChangedLines reads git's -U0 diff of opts, the files no parser
// reads included (they are named as not parsed).
func pullChangedLines(ctx context.Context, r *repo.Repository, opts git.DiffOptions, hide func(diff.Header) bool) ([]changedLines, error) {
	opts.Context = 0
	var files []changedLines
	err := r.Git.Patch(ctx, opts, func(rd io.Reader) error {
		sp := diff.NewSplitter(rd)
		for {
			sec, err := sp.NextWithin(maxSymbolSection, 0)
			if err == io.EOF {
				return nil
			}
			if sec == nil {
				return err
			}
			h := sec.Header
			if err != nil || hide(h) {
				continue // a header git wrote but we cannot read, or a hidden file: not a symbol's
			}
			c := changedLines{OldPath: h.OldPath, Path: h.NewPath, New: h.IsNew, Deleted: h.IsDeleted, Unread: h.IsBinary || sec.Raw == nil}
			if !c.Unread {
				c.read(sec.Raw)
			}
			files = append(files, c)
		}
	})
	return files, paging.GoneCommit(r, true, err)
}

// read takes the hunks' lines from a section's "@@ -a,b +c,d @@" lines.
func (c *changedLines) read(raw []byte) {
	for line := range bytes.Lines(raw) {
		if !bytes.HasPrefix(line, []byte("@@ -")) {
			continue
		}
		a, b, rest := hunkRange(line[len("@@ -"):])
		if len(rest) == 0 || rest[0] != '+' {
			continue
		}
		cStart, d, _ := hunkRange(rest[1:])
		if b > 0 {
			c.Removed = append(c.Removed, linesRange{a, a + b - 1})
		}
		if d > 0 {
			c.Added = append(c.Added, linesRange{cStart, cStart + d - 1})
		} else {
			c.Cuts = append(c.Cuts, cStart)
		}
	}
}

// hunkRange reads "12,3 " (or "12 ", a count of 1) and what follows.
func hunkRange(s []byte) (start, count int, rest []byte) {
	end := bytes.IndexByte(s, ' ')
	if end < 0 {
		return 0, 0, nil
	}
	field, rest := s[:end], s[end+1:]
	count = 1
	if i := bytes.IndexByte(field, ','); i >= 0 {
		count, _ = strconv.Atoi(string(field[i+1:]))
		field = field[:i]
	}
	start, _ = strconv.Atoi(string(field))
	return start, count, rest
}

// meets: a changed line falls in start..end (a cut counts inside it, not
// at its last line).
func meets(spans []linesRange, cuts []int, start, end int) bool {
	for _, s := range spans {
		if s.Start <= end && start <= s.End {
			return true
		}
	}
	for _, c := range cuts {
		if start <= c && c < end {
			return true
		}
	}
	return false
}

// isFunction: a kind whose callers a change may break.
func isFunction(kind string) bool { return kind == "function" || kind == "method" || kind == "macro" }

// touched are the symbols of f that meet a changed line: every function
// that does (nested ones and those around them), and a symbol of another
// kind when a changed line is its own, in no symbol inside it.
func touched(f *syntax.File, spans []linesRange, cuts []int) []syntax.Symbol {
	var out []syntax.Symbol
	for i, sym := range f.Symbols {
		if !meets(spans, cuts, sym.StartLine, sym.EndLine) {
			continue
		}
		if isFunction(sym.Kind) || ownLineChanged(f.Symbols, i, spans, cuts) {
			out = append(out, sym)
		}
	}
	return out
}

// ownLineChanged: a changed line of symbol i is in none of the symbols
// its lines hold.
func ownLineChanged(syms []syntax.Symbol, i int, spans []linesRange, cuts []int) bool {
	outer := syms[i]
	own := func(l int) bool {
		for j, s := range syms {
			if j != i && s.StartLine >= outer.StartLine && s.EndLine <= outer.EndLine && (s.StartLine > outer.StartLine || s.EndLine < outer.EndLine) && s.StartLine <= l && l <= s.EndLine {
				return false
			}
		}
		return true
	}
	for _, s := range spans {
		for l := max(s.Start, outer.StartLine); l <= min(s.End, outer.EndLine); l++ {
			if own(l) {
				return true
			}
		}
	}
	for _, c := range cuts {
		if outer.StartLine <= c && c < outer.EndLine && own(c) {
			return true
		}
	}
	return false
}

// addedAt: line of path at head is one the pull request added.
func addedAt(files []changedLines, path string, line int) bool {
	for _, f := range files {
		if f.Path == path && !f.Deleted {
			return meets(f.Added, nil, line, line)
		}
	}
	return false
}
