package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type listSymbolsIn struct {
	Owner  string   `json:"owner,omitempty"`
	Repo   string   `json:"repo,omitempty"`
	Path   string   `json:"path"`
	Ref    string   `json:"ref,omitempty" jsonschema:"commit, branch, tag or refs/pull/N/head; omit for HEAD"`
	Kinds  []string `json:"kinds,omitempty"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	paging.ReplyLimit
}

// symbolEntry is one symbol of an outline.
type symbolEntry struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Container string `json:"container" jsonschema:"the symbol whose lines hold this one's (\"\" at top level)"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
}

type listSymbolsOut struct {
	Path     string `json:"path"`
	Ref      string `json:"ref" jsonschema:"the commit read, a full SHA"`
	Language string `json:"language" jsonschema:"the file's language (\"\" when no parser reads it)"`
	Parser   string `json:"parser" jsonschema:"what read the file; syntactic only: names and lines, no type resolution"`
	// Status tells an empty list apart.
	Status      string        `json:"status" jsonschema:"complete, partial (the next call goes on), unsupported (no parser for its language), tooLarge (over the parser's cap) or binary"`
	Symbols     []symbolEntry `json:"symbols"`
	Total       int           `json:"total" jsonschema:"symbols of the kinds asked for in the whole file"`
	Offset      int           `json:"offset" jsonschema:"the index of this reply's first symbol"`
	ParseErrors int           `json:"parseErrors" jsonschema:"syntax errors the parser met (symbols near them may be missing)"`
	ErrorLines  []int         `json:"errorLines,omitempty" jsonschema:"the lines of the first of them"`
	paging.Paged
}

// symbolKinds are the kinds an outline holds (internal/syntax).
var symbolKinds = []string{"class", "constant", "function", "interface", "macro", "method", "module", "type"}

// listSymbolsTool is list_symbols's definition (registry.go).
var listSymbolsTool = defineTool(toolSpec{
	Name:  "list_symbols",
	Title: "List symbols",
	Description: "List a file's symbols at a ref, parsed without a checkout: functions, methods, classes, types… with kind, container and lines; syntactic, no types. " +
		"read_file reads their lines." + partialNext,
	Tune: func(in *jsonschema.Schema) {
		argcheck.Prop(in, "kinds").Items = &jsonschema.Schema{Type: "string", Enum: stringsAny(symbolKinds)}
	},
}, (*Server).listSymbols)

func stringsAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func (s *Server) listSymbols(ctx context.Context, in listSymbolsIn) (reply[listSymbolsOut], error) {
	const tool = "list_symbols"
	path, err := s.cfg.Policy.Check(in.Path)
	if err != nil {
		return reply[listSymbolsOut]{}, err
	}
	if path == "" {
		return reply[listSymbolsOut]{}, errcode.New(errcode.InvalidArgument, "path is empty: give the path of a file")
	}
	for _, k := range in.Kinds {
		if !slices.Contains(symbolKinds, k) {
			return reply[listSymbolsOut]{}, errcode.New(errcode.InvalidArgument, "kinds: %q is not a kind; kinds are %s", k, strings.Join(symbolKinds, ", "))
		}
	}
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return reply[listSymbolsOut]{}, err
	}
	digest := paging.ArgsDigest(in, "cursor")
	var commit string
	from := 0
	if in.Cursor != "" {
		cur, err := s.cursors.Decode(tool, in.Cursor, digest)
		if err != nil {
			return reply[listSymbolsOut]{}, err
		}
		pins, err := paging.CheckPins(ctx, r, &cur, 1)
		if err != nil {
			return reply[listSymbolsOut]{}, err
		}
		commit, from = pins[0], cur.File
	} else if commit, err = r.ResolveCommit(ctx, in.Ref); err != nil {
		return reply[listSymbolsOut]{}, err
	}
	o, err := s.outlineOf(ctx, r, commit, in.Ref, path)
	if err != nil {
		return reply[listSymbolsOut]{}, err
	}
	lang, _ := syntax.LanguageOf(path)
	out := listSymbolsOut{Path: path, Ref: commit, Language: lang, Parser: syntax.ParserName(), Status: o.Status, Symbols: []symbolEntry{}}
	where := fmt.Sprintf("%s: %s at %s", r.FullName(), text.NoteName(path), git.Short(commit))
	if o.File == nil {
		out.Language = ""
		return reply[listSymbolsOut]{Text: where + ": " + whyNoOutline(o, path) + "\n", Out: out}, nil
	}
	var all []symbolEntry
	for _, sym := range o.File.Symbols {
		if len(in.Kinds) == 0 || slices.Contains(in.Kinds, sym.Kind) {
			all = append(all, symbolEntry{Name: sym.Name, Kind: sym.Kind, Container: sym.Container, StartLine: sym.StartLine, EndLine: sym.EndLine})
		}
	}
	if from > len(all) {
		return reply[listSymbolsOut]{}, paging.ErrCursor("is damaged or was edited")
	}
	out.Total, out.Offset, out.ParseErrors, out.ErrorLines = len(all), from, o.File.Errors, o.File.ErrorLines
	render := func(n int) reply[listSymbolsOut] {
		o := out
		o.Symbols = all[from : from+n]
		var b strings.Builder
		fmt.Fprintf(&b, "%s (%s, %s; syntactic: names and lines, no types): %s", where, lang, syntax.ParserName(), text.Count(len(all), "symbol"))
		if len(in.Kinds) > 0 {
			b.WriteString(" of kinds " + strings.Join(in.Kinds, ", "))
		}
		if n < len(all) {
			fmt.Fprintf(&b, "; %d–%d shown", from+1, from+n)
		}
		b.WriteString("\n")
		for _, e := range o.Symbols {
			b.WriteString(e.line())
		}
		if o.ParseErrors > 0 {
			fmt.Fprintf(&b, "[note: %s, at lines %s: symbols near them may be missing or cut short]\n", text.Count(o.ParseErrors, "syntax error"), joinInts(o.ErrorLines))
		}
		rep := reply[listSymbolsOut]{Text: b.String(), Out: o}
		if from+n < len(all) {
			o.Status = "partial"
			rep.Out = o
			c := paging.Cursor{Tool: tool, Args: digest, Commits: []string{commit}, File: from + n}
			rep.Next = paging.Continue(tool, withSymbolsCursor(in, s.cursors.Encode(c, r.FullName())))
		}
		return rep
	}
	rep := paging.FitList(s.budget(ctx), len(all)-from, render)
	if len(rep.Out.Symbols) == 0 && len(all) > from {
		return reply[listSymbolsOut]{}, errcode.New(errcode.TooLarge, "symbol %d (a name of %d bytes) does not fit in one reply of %d bytes", from+1, len(all[from].Name), s.budget(ctx).MaxBytes)
	}
	return rep, nil
}

func withSymbolsCursor(in listSymbolsIn, c string) listSymbolsIn {
	in.Cursor = c
	return in
}

// line is a symbol as the text shows it: its lines, kind and name, a
// method's under its container ("62–90 method Server.Start").
func (e symbolEntry) line() string {
	name := text.Name(e.Name)
	if e.Container != "" {
		name = text.Name(e.Container) + "." + name
	}
	lines := fmt.Sprintf("%d–%d", e.StartLine, e.EndLine)
	if e.StartLine == e.EndLine {
		lines = fmt.Sprint(e.StartLine)
	}
	return fmt.Sprintf("%s %s %s\n", lines, e.Kind, name)
}

// whyNoOutline says why a file has no outline, and what reads it instead.
func whyNoOutline(o outline, path string) string {
	switch o.Status {
	case outlineTooLarge:
		return fmt.Sprintf("not parsed: %d bytes, over the %d a file is parsed up to; read_file reads it, search_code finds names in it", o.Size, syntax.MaxFileBytes)
	case outlineBinary:
		return "not parsed: a binary file"
	}
	return fmt.Sprintf("not parsed: no parser here reads its language (%s reads %s); read_file reads it, search_code finds names in it", syntax.ParserName(), strings.Join(syntax.Languages(), ", "))
}

// joinInts is "12, 40, 41".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
