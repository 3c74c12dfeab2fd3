package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// symbolFinder renders a find_symbol reply from the matches found.
type symbolFinder struct {
	s              *Server
	r              *repo.Repository
	q              symbolQuery
	raw            findSymbolIn // the call as made
	commit, digest string
	out            findSymbolOut
	all            []symbolMatch
	ws             wordSearch
	sigCut         bool // a signature's line is shown cut
	first          bool // the call has no cursor: its reply says what was not read
}

// notes are the first reply's notes on what was not read (findSymbolOut.notes).
func (f *symbolFinder) notes() string {
	if !f.first {
		return ""
	}
	return f.out.notes()
}

// head is a reply's first line: what was looked for, where, by what,
// and how many were found.
func (f *symbolFinder) head(from, n int) string {
	var b strings.Builder
	what := "definition"
	if f.q.in.Mode == "references" {
		what = "reference"
	}
	fmt.Fprintf(&b, "find_symbol: %s of %s at %s in %s (%s; syntactic: names, no types)", text.Count(len(f.all), what), text.Name(f.q.in.Name), git.Short(f.commit), text.Count(f.out.Files, "file"), f.out.Parser)
	if len(f.all) == 0 {
		fmt.Fprintf(&b, "; git grep -w finds the word in %s", text.Count(len(f.ws.Files), "file"))
		if len(f.ws.Files) > 0 && f.q.in.Mode == "references" {
			b.WriteString(", only in comments, strings or files not parsed")
		} else if len(f.ws.Files) > 0 {
			b.WriteString(", none defining it")
		}
	}
	if n < len(f.all)-from || from > 0 {
		b.WriteString("; " + matchRange(from, n) + " shown")
	}
	b.WriteString("\n")
	return b.String()
}

// perFile is the count of matches in each file, for a first reply that
// cannot show them all: "by file: a.go 3, b.go 12, and 40 more".
func (f *symbolFinder) perFile() string {
	var names []string
	var counts []int
	for _, m := range f.all {
		if n := len(names); n == 0 || names[n-1] != m.Path {
			names, counts = append(names, m.Path), append(counts, 0)
		}
		counts[len(counts)-1]++
	}
	for i, n := range counts {
		names[i] = fmt.Sprintf("%s %d", text.NoteName(names[i]), n)
	}
	return "by file: " + firstNames(names, 20) + "\n"
}

// list is a reply of matches from from on, one line each (a definition's
// signature after it), grouped by file, as many as fit.
func (f *symbolFinder) list(ctx context.Context, from int) (reply[findSymbolOut], error) {
	cands := f.all[from:]
	if l := f.q.in.Limit; l > 0 && l < len(cands) {
		cands = cands[:l]
	}
	if f.q.in.Include == "signature" {
		if err := f.signatures(ctx, cands); err != nil {
			return reply[findSymbolOut]{}, err
		}
	}
	notes := f.notes()
	render := func(n int) reply[findSymbolOut] {
		o := f.out
		o.Offset, o.Matches = from, cands[:n:n]
		if o.Matches == nil {
			o.Matches = []symbolMatch{}
		}
		var b strings.Builder
		b.WriteString(f.head(from, n))
		if from == 0 && n < len(f.all) {
			b.WriteString(f.perFile())
		}
		last := ""
		for _, m := range o.Matches {
			if m.Path != last {
				b.WriteString("=" + text.Name(m.Path) + "\n")
				last = m.Path
			}
			f.writeMatch(&b, m)
		}
		b.WriteString(notes)
		if f.sigCut {
			b.WriteString("[note: a signature's line over " + fmt.Sprint(text.MaxShownLine) + " bytes is cut, ending with …; include=body reads it whole]\n")
		}
		rep := reply[findSymbolOut]{Text: b.String(), Out: o}
		if from+n < len(f.all) {
			rep.Out.Status = "partial"
			rep.Next = f.next(paging.Cursor{File: from + n})
		}
		return rep
	}
	rep := paging.FitList(f.s.budget(ctx), len(cands), render)
	if len(rep.Out.Matches) == 0 && len(cands) > 0 {
		return reply[findSymbolOut]{}, errcode.New(errcode.TooLarge, "match %d (in %s) does not fit in one reply of %d bytes", from+1, text.NoteName(cands[0].Path), f.s.budget(ctx).MaxBytes)
	}
	return rep, nil
}

// writeMatch writes a match's line: "62–90 method Server.Start" and its
// signature's lines, or "120:9 call in Splitter.next: TEXT".
func (f *symbolFinder) writeMatch(b *strings.Builder, m symbolMatch) {
	if f.q.in.Mode == "definitions" {
		b.WriteString(symbolEntry{Name: m.Name, Kind: m.Kind, StartLine: m.StartLine, EndLine: m.EndLine}.line())
		for i, l := range strings.Split(m.Text, "\n") {
			if m.Text != "" {
				fmt.Fprintf(b, "  %d: %s\n", m.StartLine+i, text.Line(l))
			}
		}
		return
	}
	in := ""
	if m.Enclosing != "" {
		in = " in " + text.Name(m.Enclosing)
	}
	if m.LineBytes > 0 {
		b.WriteString(matchPiece(searchMatch{Path: m.Path, Line: m.Line, Text: m.Text, LineBytes: int64(m.LineBytes)}, &f.commit))
	}
	fmt.Fprintf(b, "%d:%d %s%s: %s\n", m.Line, m.Column, m.Kind, in, text.Line(m.Text))
}

// next is the call that goes on from at: the call's own arguments (its
// digest is the cursor's), with the cursor.
func (f *symbolFinder) next(at paging.Cursor) *paging.Call {
	at.Tool, at.Args, at.Commits = "find_symbol", f.digest, []string{f.commit}
	in := f.raw
	in.Cursor = f.s.cursors.Encode(at, f.r.FullName())
	return paging.Continue("find_symbol", in)
}

// maxSignatureLines bounds a signature: its first line to the one that
// opens the body, or this many.
const maxSignatureLines = 8

// signatures sets each definition's Text to its signature: its lines from
// its first to the one that opens its body ("{", or ":" ending a line), at
// most maxSignatureLines, each at most text.MaxShownLine bytes ("…" ends
// one cut).
func (f *symbolFinder) signatures(ctx context.Context, ms []symbolMatch) error {
	for i := 0; i < len(ms); {
		j := i
		for j < len(ms) && ms[j].Path == ms[i].Path {
			j++
		}
		err := f.r.ReadAt(ctx, f.commit, f.commit, ms[i].Path, func(_ git.Object, body io.Reader) error {
			src, err := io.ReadAll(body)
			if err != nil {
				return err
			}
			lines := bytes.Split(src, []byte("\n"))
			for k := i; k < j; k++ {
				var cut bool
				ms[k].Text, cut = signatureOf(lines, ms[k].StartLine, ms[k].EndLine)
				f.sigCut = f.sigCut || cut
			}
			return nil
		})
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

func signatureOf(lines [][]byte, start, end int) (sig string, cut bool) {
	var shownLines []string
	for l := start; l <= end && l <= len(lines) && len(shownLines) < maxSignatureLines; l++ {
		line := strings.TrimSuffix(string(lines[l-1]), "\r")
		shown, c := text.CutUTF8(line, text.MaxShownLine)
		if c {
			shown, cut = shown+"…", true
		}
		shownLines = append(shownLines, shown)
		if t := strings.TrimSpace(line); strings.Contains(t, "{") || strings.HasSuffix(t, ":") || strings.HasSuffix(t, ";") {
			break
		}
	}
	return strings.Join(shownLines, "\n"), cut
}
