package repo

import (
	"bufio"
	"context"
	"io"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// MatchAt is where a search matched: a file and its line.
type MatchAt struct {
	Path string
	Line int
}

// MatchContext is the lines around a match, each cut as text.CutLine cuts.
type MatchContext struct{ Before, After []string }

// ContextOf reads the n lines before and after each match from its file:
// git grep's own context lines (-C) cannot be told from matches in its -z
// output when they hold a NUL. at is in git's order (by file, lines
// rising). Only the files of the matches are read, each up to its last
// match's context: at rev, or in the work tree (rev "") the content git
// searched (searched), never the file again. A file that cannot be read
// gets no context.
func (r *Repository) ContextOf(ctx context.Context, rev string, searched *git.SearchedFiles, at []MatchAt, n int) ([]MatchContext, error) {
	out := make([]MatchContext, len(at))
	byPath := map[string][]int{} // match indexes, in line order (git's)
	var paths []string
	for i, m := range at {
		if byPath[m.Path] == nil {
			paths = append(paths, m.Path)
		}
		byPath[m.Path] = append(byPath[m.Path], i)
	}
	for _, p := range paths {
		idx := byPath[p]
		fill := func(body io.Reader) error { return fillContext(body, at, out, idx, n) }
		var err error
		if rev != "" {
			var e git.Entry
			if e, err = r.Git.Lookup(ctx, rev, p); err == nil {
				err = r.Git.ReadObject(ctx, e.OID, func(_ git.Object, body io.Reader) error { return fill(body) })
			}
		} else {
			err = searched.Read(ctx, p, fill)
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		_ = err // no context for this file
	}
	return out, nil
}

// fillContext reads a file's lines and gives each of its matches (idx, in
// line order) the n lines before and after it.
func fillContext(r io.Reader, at []MatchAt, out []MatchContext, idx []int, n int) error {
	last := at[idx[len(idx)-1]].Line + n
	br := bufio.NewReaderSize(r, 64<<10)
	lo := 0 // first match whose context may still come
	var buf []byte
	for line := 1; line <= last; line++ {
		var cut bool
		var err error
		buf, cut, err = text.ReadLineHead(br, buf)
		if err == io.EOF && len(buf) == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		for lo < len(idx) && at[idx[lo]].Line+n < line {
			lo++
		}
		var shown string
		for _, i := range idx[lo:] {
			m := at[i]
			if m.Line-n > line {
				break
			}
			if line == m.Line {
				continue
			}
			if shown == "" {
				shown = text.CutLine(buf, cut)
			}
			if line < m.Line {
				out[i].Before = append(out[i].Before, shown)
			} else {
				out[i].After = append(out[i].After, shown)
			}
		}
		if err == io.EOF {
			return nil
		}
	}
	return nil
}
