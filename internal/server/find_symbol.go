package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type findSymbolIn struct {
	Owner   string   `json:"owner,omitempty"`
	Repo    string   `json:"repo,omitempty"`
	Name    string   `json:"name" jsonschema:"identifier, or Type.method"`
	Mode    string   `json:"mode,omitempty"`
	Ref     string   `json:"ref,omitempty" jsonschema:"commit, branch, tag or refs/pull/N/head; omit for HEAD"`
	Paths   []string `json:"paths,omitempty" jsonschema:"only these files or directories"`
	Kinds   []string `json:"kinds,omitempty"`
	Include string   `json:"include,omitempty" jsonschema:"for definitions"`
	Limit   int      `json:"limit,omitempty"`
	Cursor  string   `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	paging.ReplyLimit
}

// symbolMatch is a definition or a reference.
type symbolMatch struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column" jsonschema:"1-based, in bytes"`
	// Kind: a definition's kind; a reference is a call, a reference, or
	// the name where it is defined.
	Kind      string `json:"kind" jsonschema:"a definition's kind; a reference's: call, reference or definition"`
	Name      string `json:"name"`
	Enclosing string `json:"enclosing" jsonschema:"the symbol whose lines hold it (Type.method; \"\" at top level)"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"a definition's first line"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"a definition's last line"`
	// Text: a reference's line, a definition's signature, or this
	// reply's share of its body.
	Text string `json:"text,omitempty" jsonschema:"a reference's line; a definition's signature or body lines shown"`
	// LineBytes: a reference's line is longer than Text.
	LineBytes int `json:"lineBytes,omitempty" jsonschema:"the line's length when text is only its start"`
}

type findSymbolOut struct {
	Name   string `json:"name"`
	Mode   string `json:"mode"`
	Ref    string `json:"ref" jsonschema:"the commit read, a full SHA"`
	Parser string `json:"parser" jsonschema:"what read the files; syntactic only: names, no type resolution"`
	Status string `json:"status" jsonschema:"complete, or partial: the next call goes on"`
	// Matches from Offset on.
	Matches []symbolMatch `json:"matches"`
	Total   int           `json:"total" jsonschema:"matches in all files"`
	Offset  int           `json:"offset" jsonschema:"the index of this reply's first match"`
	Files   int           `json:"files" jsonschema:"files holding a match"`
	// What was not read, so that an empty list is never ambiguous.
	Unparsed    []string `json:"unparsed,omitempty" jsonschema:"files git grep -w finds the name in that no parser here reads"`
	TooLarge    int      `json:"tooLarge,omitempty" jsonschema:"files over the parser's cap, not searched"`
	ParseErrors []string `json:"parseErrors,omitempty" jsonschema:"files with syntax errors (matches near them may be missing)"`
	paging.Paged
}

// The modes and includes of find_symbol.
var (
	symbolModes    = []string{"definitions", "references"}
	symbolIncludes = []string{"location", "signature", "body"}
)

// findSymbolTool is find_symbol's definition (registry.go).
var findSymbolTool = defineTool(toolSpec{
	Name:  "find_symbol",
	Title: "Find symbol",
	Description: "Search the files at a ref for a name's definitions, or its references in code (not comments or strings); syntactic, no types. " +
		"list_symbols outlines a file, search_code finds any text." + partialNext,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetDefault(in, "mode", "definitions")
		argcheck.Prop(in, "mode").Enum = stringsAny(symbolModes)
		argcheck.SetDefault(in, "include", "location")
		argcheck.Prop(in, "include").Enum = stringsAny(symbolIncludes)
		argcheck.Prop(in, "kinds").Items = &jsonschema.Schema{Type: "string", Enum: stringsAny(symbolKinds)}
		argcheck.Prop(in, "paths").MaxItems = ptr(maxDiffPaths)
		argcheck.SetInt(in, "limit", 0, 1, 500)
	},
}, (*Server).findSymbol)

// symbolQuery is a find_symbol call checked.
type symbolQuery struct {
	in              findSymbolIn
	container, name string
	paths           []string
}

func (s *Server) checkSymbolQuery(in findSymbolIn) (symbolQuery, error) {
	q := symbolQuery{in: in}
	var err error
	if q.container, q.name, err = symbolName(in.Name); err != nil {
		return q, err
	}
	if q.in.Mode == "" {
		q.in.Mode = "definitions"
	}
	if q.in.Include == "" {
		q.in.Include = "location"
	}
	switch {
	case !slices.Contains(symbolModes, q.in.Mode):
		return q, errcode.New(errcode.InvalidArgument, "mode %s is not a mode: definitions or references", text.Name(q.in.Mode))
	case !slices.Contains(symbolIncludes, q.in.Include):
		return q, errcode.New(errcode.InvalidArgument, "include %s is not one: location, signature or body", text.Name(q.in.Include))
	case q.in.Mode == "references" && q.container != "":
		return q, errcode.New(errcode.InvalidArgument, "references are found by name alone, without types: give %s, not %s", text.Name(q.name), text.Name(in.Name))
	case q.in.Mode == "references" && len(in.Kinds) > 0:
		return q, errcode.New(errcode.InvalidArgument, "kinds selects definitions: leave it out with mode references")
	case q.in.Mode == "references" && q.in.Include != "location":
		return q, errcode.New(errcode.InvalidArgument, "include %s is for definitions: a reference's line is shown with it", q.in.Include)
	}
	for _, k := range in.Kinds {
		if !slices.Contains(symbolKinds, k) {
			return q, errcode.New(errcode.InvalidArgument, "kinds: %s is not a kind; kinds are %s", text.Name(k), strings.Join(symbolKinds, ", "))
		}
	}
	if q.paths, err = repo.CleanPaths("paths", in.Paths); err != nil {
		return q, err
	}
	for _, p := range q.paths {
		if s.cfg.Policy.Denied(p) {
			return q, errcode.New(errcode.InvalidArgument, "paths: %s is not served", text.Name(p))
		}
	}
	return q, nil
}

func (s *Server) findSymbol(ctx context.Context, in findSymbolIn) (reply[findSymbolOut], error) {
	const tool = "find_symbol"
	q, err := s.checkSymbolQuery(in)
	if err != nil {
		return reply[findSymbolOut]{}, err
	}
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return reply[findSymbolOut]{}, err
	}
	digest := paging.ArgsDigest(in, "cursor")
	var commit string
	var at paging.Cursor
	if in.Cursor != "" {
		if at, err = s.cursors.Decode(tool, in.Cursor, digest); err != nil {
			return reply[findSymbolOut]{}, err
		}
		pins, err := paging.CheckPins(ctx, r, &at, 1)
		if err != nil {
			return reply[findSymbolOut]{}, err
		}
		commit = pins[0]
	} else if commit, err = r.ResolveCommit(ctx, in.Ref); err != nil {
		return reply[findSymbolOut]{}, err
	}
	ws, err := s.searchWord(ctx, r, commit, q.name, q.paths, q.in.Mode == "references")
	if err != nil {
		return reply[findSymbolOut]{}, err
	}
	out := findSymbolOut{Name: in.Name, Mode: q.in.Mode, Ref: commit, Parser: syntax.ParserName(), Status: "complete", TooLarge: ws.TooLarge}
	var all []symbolMatch
	if q.in.Mode == "references" {
		all = referencesIn(ws, q.name)
	} else {
		all = definitionsIn(ws, q.container, q.name, in.Kinds)
	}
	seen := map[string]bool{}
	for _, f := range ws.Files {
		switch {
		case f.File == nil:
			out.Unparsed = append(out.Unparsed, f.Path)
		case f.File.Errors > 0:
			out.ParseErrors = append(out.ParseErrors, f.Path)
		}
	}
	for _, m := range all {
		if !seen[m.Path] {
			seen[m.Path] = true
			out.Files++
		}
	}
	out.Total = len(all)
	if at.File > len(all) {
		return reply[findSymbolOut]{}, paging.ErrCursor("is damaged or was edited")
	}
	fs := &symbolFinder{s: s, r: r, q: q, raw: in, commit: commit, digest: digest, out: out, all: all, ws: ws, first: in.Cursor == ""}
	if q.in.Include == "body" {
		return fs.bodies(ctx, at)
	}
	return fs.list(ctx, at.File)
}

// definitionsIn are the symbols named name (in container, when given) of
// the kinds asked for (any, when none), file by file.
func definitionsIn(ws wordSearch, container, name string, kinds []string) []symbolMatch {
	var all []symbolMatch
	for _, f := range ws.Files {
		if f.File == nil {
			continue
		}
		for _, sym := range f.File.Symbols {
			if sym.Name != name || container != "" && sym.Container != container || len(kinds) > 0 && !slices.Contains(kinds, sym.Kind) {
				continue
			}
			all = append(all, symbolMatch{Path: f.Path, Line: sym.Line, Column: sym.Column, Kind: sym.Kind, Name: qualified(sym),
				Enclosing: sym.Container, StartLine: sym.StartLine, EndLine: sym.EndLine})
		}
	}
	return all
}

// referencesIn are the identifiers of name in code, file by file, each
// with its line and what encloses it.
func referencesIn(ws wordSearch, name string) []symbolMatch {
	var all []symbolMatch
	for _, f := range ws.Files {
		if f.File == nil || f.Named == nil {
			continue
		}
		for i, ref := range f.Named.Refs {
			kind := "reference"
			switch {
			case ref.Definition:
				kind = "definition"
			case ref.Call:
				kind = "call"
			}
			m := symbolMatch{Path: f.Path, Line: ref.Line, Column: ref.Column, Kind: kind, Name: name, Enclosing: enclosing(f.File, ref.Line, definedAt(f.File, ref)), Text: f.Named.Texts[i]}
			if f.Named.Bytes[i] > len(m.Text) {
				m.LineBytes = f.Named.Bytes[i]
			}
			all = append(all, m)
		}
	}
	return all
}

// definedAt is the symbol a definition's name names, so that what
// encloses it is another one; nil for any other reference.
func definedAt(f *syntax.File, ref syntax.Ref) *syntax.Symbol {
	if !ref.Definition {
		return nil
	}
	for i, sym := range f.Symbols {
		if sym.Line == ref.Line && sym.Column == ref.Column {
			return &f.Symbols[i]
		}
	}
	return nil
}

// notes say which files git grep named that no parser read, and which
// had syntax errors, so that no list is taken for all there is.
func (o findSymbolOut) notes() string {
	var b strings.Builder
	if n := len(o.Unparsed); n > 0 {
		fmt.Fprintf(&b, "[note: %s with the word not parsed: no parser here reads %s (%s reads %s): %s; search_code finds the name in them]\n",
			text.Count(n, "file"), map[bool]string{true: "its language", false: "their languages"}[n == 1], syntax.ParserName(), strings.Join(syntax.Languages(), ", "), firstNames(o.Unparsed, 5))
	}
	if o.TooLarge > 0 {
		fmt.Fprintf(&b, "[note: %s over the %s the parser reads not searched; search_code finds the name in %s]\n", text.Count(o.TooLarge, "file"), byteSize(int64(syntax.MaxFileBytes)), map[bool]string{true: "it", false: "them"}[o.TooLarge == 1])
	}
	if n := len(o.ParseErrors); n > 0 {
		fmt.Fprintf(&b, "[note: syntax errors in %s (matches near them may be missing): %s; list_symbols says where]\n", text.Count(n, "file"), firstNames(o.ParseErrors, 5))
	}
	return b.String()
}

// firstNames is the first few of names, and how many more.
func firstNames(names []string, few int) string {
	shown := text.NoteNames(names[:min(len(names), few)])
	if len(names) > few {
		shown = append(shown, fmt.Sprintf("and %d more", len(names)-few))
	}
	return strings.Join(shown, ", ")
}
