package server

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
)

// Which lines a changed line brings, by the parser's outline of its end
// of the file (the old blob's for a removed line, the new blob's for an
// added one):
//
//   - every function, method or macro whose lines hold it, whole (a
//     nested function's outer one too: each function a changed line is
//     in is shown whole);
//   - a line in none: the innermost class, interface or type whose lines
//     hold it and that holds no function, method or macro (a struct, an
//     enum, a Go interface), whole;
//   - else (a class's body between its methods, a file's top level) only
//     the line's own context lines.
//
// An outline with syntax errors (git's C: its macros) is taken when all
// its error lines are known (fewer than the parser lists), none is in a
// range taken, and none is between the functions around a changed line in
// no range: else a function near an error may be cut short or missed, and
// git's heuristic shows the file.

// fileEnds is the outline of each end of a file: old nil for an added
// file, new nil for a deleted one.
type fileEnds struct {
	old, new *syntax.File
	lang     string
	// doubt: a syntax error may have cut a range choose took, or hidden
	// one (see above).
	doubt bool
}

// maxErrorLines is how many error lines the parser lists (syntax.File):
// with fewer, they are all the file's.
const maxErrorLines = 10

// choose is diff.Widen's choice: the ranges each end's changed lines
// bring.
func (e *fileEnds) choose(removed, added []int64) (old, new []diff.Lines) {
	old, oldLoose := wholeRanges(e.old, removed)
	new, newLoose := wholeRanges(e.new, added)
	e.doubt = e.doubt || doubtful(e.old, old, oldLoose) || doubtful(e.new, new, newLoose)
	return old, new
}

// doubtful: f has syntax errors, and one is in a range of ranges, or
// between the functions around a changed line in none (loose).
func doubtful(f *syntax.File, ranges []diff.Lines, loose []int64) bool {
	if f == nil || f.Errors == 0 {
		return false
	}
	for _, e := range f.ErrorLines {
		for _, r := range ranges {
			if r.First <= int64(e) && int64(e) <= r.Last {
				return true
			}
		}
		for _, l := range loose {
			if after, before := gapAround(f, l); after < int64(e) && int64(e) < before {
				return true
			}
		}
	}
	return false
}

// gapAround is the last line of the function before line l and the first
// of the function after it (0 and the largest line when none).
func gapAround(f *syntax.File, l int64) (after, before int64) {
	before = math.MaxInt64
	for _, s := range f.Symbols {
		switch {
		case !wholeFunctionKind(s.Kind):
		case int64(s.EndLine) < l:
			after = max(after, int64(s.EndLine))
		case int64(s.StartLine) > l:
			before = min(before, int64(s.StartLine))
		}
	}
	return after, before
}

// fileEnds is the outlines of a file's ends, or why the parser does not
// read them ("" when it does). An error is the call's own (its end).
func (s *Server) fileEnds(ctx context.Context, r *repo.Repository, opts git.DiffOptions, h diff.Header) (*fileEnds, string, error) {
	e := &fileEnds{}
	for _, end := range []struct {
		skip         bool
		commit, path string
		file         **syntax.File
	}{{h.IsNew, opts.From, h.OldPath, &e.old}, {h.IsDeleted, opts.To, h.NewPath, &e.new}} {
		if end.skip {
			continue
		}
		lang, ok := syntax.LanguageOf(end.path)
		if !ok {
			return nil, whyNotParsed(outlineUnsupported, 0), nil
		}
		if e.lang != "" && e.lang != lang {
			return nil, "its two ends are in different languages", nil
		}
		e.lang = lang
		o, err := s.outlineOf(ctx, r, end.commit, end.commit, end.path)
		switch {
		case ctx.Err() != nil:
			return nil, "", ctx.Err()
		case errors.Is(err, syntax.ErrTimeout):
			return nil, "the parse took too long", nil
		case err != nil:
			return nil, "not read: " + errcode.Message(err), nil
		case o.File == nil:
			return nil, whyNotParsed(o.Status, 0), nil
		case len(o.File.ErrorLines) >= maxErrorLines:
			return nil, whyNotParsed(o.Status, o.File.Errors), nil
		}
		*end.file = o.File
	}
	return e, "", nil
}

// wholeFunctionKind: a symbol a changed line in it brings whole.
func wholeFunctionKind(kind string) bool {
	return kind == "function" || kind == "method" || kind == "macro"
}

// wholeTypeKind: a definition a changed line in it, and in no function,
// brings whole when it holds no function.
func wholeTypeKind(kind string) bool {
	return kind == "class" || kind == "interface" || kind == "type"
}

// wholeRanges are the ranges of f that the changed lines (ascending)
// bring whole, and the changed lines in none of them.
func wholeRanges(f *syntax.File, changed []int64) (_ []diff.Lines, unheld []int64) {
	if f == nil || len(changed) == 0 {
		return nil, nil
	}
	var funcs, types []syntax.Symbol
	last := 0
	for _, sym := range f.Symbols {
		switch {
		case wholeFunctionKind(sym.Kind):
			funcs = append(funcs, sym)
			last = max(last, sym.EndLine)
		case wholeTypeKind(sym.Kind):
			types = append(types, sym)
		}
	}
	// holds: a changed line of those given is in first..last.
	holds := func(lines []int64, first, last int) bool {
		i := sort.Search(len(lines), func(i int) bool { return lines[i] >= int64(first) })
		return i < len(lines) && lines[i] <= int64(last)
	}
	var out []diff.Lines
	inFunc := make([]int32, last+2)
	for _, fn := range funcs {
		if fn.StartLine < 1 || fn.EndLine < fn.StartLine {
			continue
		}
		inFunc[fn.StartLine]++
		inFunc[fn.EndLine+1]--
		if holds(changed, fn.StartLine, fn.EndLine) {
			out = append(out, diff.Lines{First: int64(fn.StartLine), Last: int64(fn.EndLine)})
		}
	}
	for i := 1; i < len(inFunc); i++ {
		inFunc[i] += inFunc[i-1]
	}
	loose := slices.DeleteFunc(slices.Clone(changed), func(l int64) bool { return l < int64(len(inFunc)) && inFunc[l] > 0 })
	if len(loose) == 0 {
		return out, nil
	}
	starts := make([]int, len(funcs))
	for i, fn := range funcs {
		starts[i] = fn.StartLine
	}
	slices.Sort(starts)
	for _, l := range loose {
		var best *syntax.Symbol
		for i := range types {
			t := &types[i]
			if int64(t.StartLine) > l || int64(t.EndLine) < l || (best != nil && t.StartLine < best.StartLine) {
				continue
			}
			if j := sort.SearchInts(starts, t.StartLine); j < len(starts) && starts[j] <= t.EndLine {
				continue // it holds a function
			}
			best = t
		}
		if best != nil {
			out = append(out, diff.Lines{First: int64(best.StartLine), Last: int64(best.EndLine)})
		} else {
			unheld = append(unheld, l)
		}
	}
	return out, unheld
}
