package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// pullSymbolsView renders get_pull_request_symbols's replies. The reply is
// a list of rows: a symbol, then each of its references not updated; a
// part may start inside a symbol's references, under its line again.
type pullSymbolsView struct {
	s      *Server
	r      *repo.Repository
	in     pullSymbolsIn
	digest string
	pins   []string // base, merge base, head
	out    pullSymbolsOut
	syms   []changedSymbol
	first  bool
}

// symbolRow is a row: symbol sym, and ref its ref'th reference not
// updated (-1: the symbol's own line).
type symbolRow struct{ sym, ref int }

func (v *pullSymbolsView) rows() []symbolRow {
	var rows []symbolRow
	for i, c := range v.syms {
		rows = append(rows, symbolRow{i, -1})
		for k := range c.NotUpdated {
			rows = append(rows, symbolRow{i, k})
		}
	}
	return rows
}

func (v *pullSymbolsView) reply(ctx context.Context, from int) (reply[pullSymbolsOut], error) {
	rows := v.rows()
	if from > len(rows) {
		return reply[pullSymbolsOut]{}, paging.ErrCursor("is damaged or was edited")
	}
	render := func(n int) reply[pullSymbolsOut] {
		shown := rows[from : from+n]
		o := v.out
		o.Symbols = []changedSymbol{}
		o.Offset = 0
		var b strings.Builder
		b.WriteString(v.head(from, n, len(rows)))
		lastPath := ""
		for k, row := range shown {
			c := v.syms[row.sym]
			if k == 0 || row.ref < 0 {
				part := c
				part.NotUpdated = nil
				o.Symbols = append(o.Symbols, part)
				if k == 0 {
					o.Offset = row.sym
				}
				if c.Path != lastPath {
					b.WriteString("=" + text.Name(c.Path))
					if c.OldPath != "" {
						b.WriteString(" (was " + text.Name(c.OldPath) + ")")
					}
					b.WriteString("\n")
					lastPath = c.Path
				}
				b.WriteString(c.entry(row.ref >= 0))
			}
			if row.ref >= 0 {
				m := c.NotUpdated[row.ref]
				last := &o.Symbols[len(o.Symbols)-1]
				last.NotUpdated = append(last.NotUpdated, m)
				in := ""
				if m.Enclosing != "" {
					in = " in " + text.Name(m.Enclosing)
				}
				fmt.Fprintf(&b, "  %s:%d:%d %s%s: %s\n", text.Name(m.Path), m.Line, m.Column, m.Kind, in, text.Line(m.Text))
			}
		}
		if v.first {
			b.WriteString(v.notes())
		}
		rep := reply[pullSymbolsOut]{Text: b.String(), Out: o}
		if from+n < len(rows) {
			rep.Out.Status = "partial"
			c := paging.Cursor{Tool: "get_pull_request_symbols", Args: v.digest, Commits: v.pins, File: from + n}
			next := v.in
			next.Cursor = v.s.cursors.Encode(c, v.r.FullName())
			rep.Next = paging.Continue("get_pull_request_symbols", next)
		}
		return rep
	}
	rep := paging.FitList(v.s.budget(ctx), len(rows)-from, render)
	if len(rep.Out.Symbols) == 0 && len(rows) > from {
		return reply[pullSymbolsOut]{}, errcode.New(errcode.TooLarge, "row %d does not fit in one reply of %d bytes", from+1, v.s.budget(ctx).MaxBytes)
	}
	return rep, nil
}

// head is a reply's first line: the pull request, the counts, the parser.
func (v *pullSymbolsView) head(from, n, rows int) string {
	var added, removed, changed, funcs, unsearched, callers, refs int
	for _, c := range v.syms {
		switch c.Change {
		case "added":
			added++
		case "removed":
			removed++
		default:
			changed++
		}
		switch {
		case c.References != nil:
			funcs++
			if len(c.NotUpdated) > 0 {
				callers++
				refs += len(c.NotUpdated)
			}
		case c.Change != "added" && isFunction(c.Kind):
			unsearched++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "get_pull_request_symbols #%d, merge base %s … head %s (%s; syntactic: by name, no types): %s: %d changed, %d added, %d removed",
		v.out.Index, git.Short(v.out.MergeBase), git.Short(v.out.Head), v.out.Parser, text.Count(len(v.syms), "symbol"), changed, added, removed)
	if funcs+unsearched > 0 {
		fmt.Fprintf(&b, "; of %s changed or removed", text.Count(funcs+unsearched, "function"))
		if unsearched > 0 {
			fmt.Fprintf(&b, " (%d not searched for references: see the note)", unsearched)
		}
		switch callers {
		case 0:
			b.WriteString(", none has a reference at head on a line this pull request did not change")
		case 1:
			fmt.Fprintf(&b, ", 1 has %s at head on lines this pull request did not change", text.Count(refs, "reference"))
		default:
			fmt.Fprintf(&b, ", %d have %s at head on lines this pull request did not change", callers, text.Count(refs, "reference"))
		}
	}
	if n < rows-from || from > 0 {
		fmt.Fprintf(&b, "; rows %d–%d of %d shown", from+1, from+n, rows)
	}
	b.WriteString("\n")
	return b.String()
}

// entry is a symbol's line: "changed function cmd_add: base 455–694, head
// 455–700; 9 at head on lines not changed, of 12 references".
func (c changedSymbol) entry(goesOn bool) string {
	var sides []string
	if c.Base != nil {
		sides = append(sides, "base "+spanText(*c.Base))
	}
	if c.Head != nil {
		sides = append(sides, "head "+spanText(*c.Head))
	}
	more := ""
	if goesOn {
		more = " (goes on)"
	}
	return fmt.Sprintf("%s %s %s%s: %s%s\n", c.Change, c.Kind, text.Name(c.Name), more, strings.Join(sides, ", "), c.refsNote())
}

func spanText(s linesRange) string {
	if s.Start == s.End {
		return fmt.Sprint(s.Start)
	}
	return fmt.Sprintf("%d–%d", s.Start, s.End)
}

// notes say what was not read.
func (v *pullSymbolsView) notes() string {
	var b strings.Builder
	o := v.out
	if n := len(o.Unparsed); n > 0 {
		fmt.Fprintf(&b, "[note: %s changed but not parsed: no parser here reads %s (%s reads %s), or too large: %s; get_pull_request_diff shows them]\n",
			text.Count(n, "file"), map[bool]string{true: "its language", false: "their languages"}[n == 1], syntax.ParserName(), strings.Join(syntax.Languages(), ", "), firstNames(o.Unparsed, 5))
	}
	if n := len(o.Generated); n > 0 {
		fmt.Fprintf(&b, "[note: %s generated or vendored, not read for symbols: %s; get_pull_request_diff shows them]\n", text.Count(n, "changed file"), firstNames(o.Generated, 5))
	}
	if n := len(o.ParseErrors); n > 0 {
		fmt.Fprintf(&b, "[note: syntax errors in %s (symbols near them may be missing): %s; list_symbols says where]\n", text.Count(n, "file"), firstNames(o.ParseErrors, 5))
	}
	if n := len(o.Unsearched); n > 0 {
		fmt.Fprintf(&b, "[note: references of %s not searched (in too many files: a call parses at most %d, or past the %d names a call searches): %s; find_symbol mode=references with paths finds them]\n", text.Count(n, "name"), maxSymbolFiles, maxReferenceNames, firstNames(o.Unsearched, 5))
	}
	return b.String()
}
