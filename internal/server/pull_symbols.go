package server

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type pullSymbolsIn struct {
	Owner  string   `json:"owner,omitempty"`
	Repo   string   `json:"repo,omitempty"`
	Index  int      `json:"index"`
	Paths  []string `json:"paths,omitempty" jsonschema:"only these files or directories"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	paging.ReplyLimit
}

// changedSymbol is a symbol a pull request adds, removes or changes.
type changedSymbol struct {
	Path    string `json:"path" jsonschema:"its file at head (at the merge base when removed)"`
	OldPath string `json:"oldPath,omitempty" jsonschema:"its file at the merge base, when renamed"`
	Name    string `json:"name" jsonschema:"Type.method under its container"`
	Kind    string `json:"kind"`
	Change  string `json:"change" jsonschema:"added, removed or changed"`
	// Base and Head are its lines on each side; nil on the side it is not.
	Base *linesRange `json:"base" jsonschema:"its lines at the merge base; null when added"`
	Head *linesRange `json:"head" jsonschema:"its lines at head; null when removed"`
	// References: a removed or changed function's identifiers at head in
	// code, its own definitions left out; nil when not searched.
	References *int          `json:"references,omitempty" jsonschema:"a removed or changed function's references at head, by name"`
	NotUpdated []symbolMatch `json:"notUpdated,omitempty" jsonschema:"those on lines this pull request did not change (this reply's share)"`
}

type pullSymbolsOut struct {
	Index     int             `json:"index"`
	MergeBase string          `json:"mergeBase" jsonschema:"where its diff starts, a full SHA"`
	Head      string          `json:"head"`
	Parser    string          `json:"parser" jsonschema:"what read the files; syntactic only: names, no type resolution"`
	Status    string          `json:"status" jsonschema:"complete, or partial: the next call goes on"`
	Symbols   []changedSymbol `json:"symbols"`
	Total     int             `json:"total" jsonschema:"symbols changed"`
	Offset    int             `json:"offset" jsonschema:"the index of this reply's first symbol"`
	// What was not read, so that an empty list is never ambiguous.
	Unparsed    []string `json:"unparsed,omitempty" jsonschema:"changed files no parser here reads, or too large"`
	ParseErrors []string `json:"parseErrors,omitempty" jsonschema:"changed files with syntax errors (symbols near them may be missing)"`
	Unsearched  []string `json:"unsearched,omitempty" jsonschema:"names whose references were not searched (in too many files)"`
	Generated   []string `json:"generated,omitempty" jsonschema:"changed files generated or vendored, not read for symbols"`
	paging.Paged
}

// pullSymbolsTool is get_pull_request_symbols's definition (registry.go).
var pullSymbolsTool = defineTool(toolSpec{
	Name:  "get_pull_request_symbols",
	Title: "Get pull request symbols",
	Description: "List the symbols a pull request adds, removes or changes, with their lines at merge base and head, and each changed function's references at head " +
		"on lines it did not change. get_pull_request_diff shows changes, find_symbol one name." + partialNext,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "index", 0, 1, 1<<31-1)
		argcheck.Prop(in, "paths").MaxItems = ptr(maxDiffPaths)
	},
}, (*Server).pullSymbols)

// maxReferenceNames bounds the names whose references one call searches.
const maxReferenceNames = 200

func (s *Server) pullSymbols(ctx context.Context, in pullSymbolsIn) (reply[pullSymbolsOut], error) {
	const tool = "get_pull_request_symbols"
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return reply[pullSymbolsOut]{}, err
	}
	digest := paging.ArgsDigest(in, "cursor")
	var at paging.Cursor
	var pinned *paging.Cursor
	if in.Cursor != "" {
		var err error
		if at, err = s.cursors.Decode(tool, in.Cursor, digest); err != nil {
			return reply[pullSymbolsOut]{}, err
		}
		pinned = &at
	}
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index, pinned)
	if err != nil {
		return reply[pullSymbolsOut]{}, err
	}
	if opts.Paths, err = repo.CleanPaths("paths", in.Paths); err != nil {
		return reply[pullSymbolsOut]{}, err
	}
	out, syms, err := s.pullSymbolsOf(ctx, r, pr, opts)
	if err != nil {
		return reply[pullSymbolsOut]{}, err
	}
	ps := &pullSymbolsView{s: s, r: r, in: in, digest: digest, pins: []string{pr.Base, pr.MergeBase, pr.Head}, out: out, syms: syms, first: in.Cursor == ""}
	return ps.reply(ctx, int(at.File))
}

// pullSymbolsOf is a pull request's changed symbols and the references
// of its changed functions, kept for the next parts (pullSymbolsKept).
func (s *Server) pullSymbolsOf(ctx context.Context, r *repo.Repository, pr *repo.PullRequest, opts git.DiffOptions) (pullSymbolsOut, []changedSymbol, error) {
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%q", r.FullName(), pr.MergeBase, pr.Head, opts.Paths)
	if k, ok := s.pullSymbolsKept.get(key); ok {
		return k.out, k.syms, nil
	}
	out := pullSymbolsOut{Index: pr.Index, MergeBase: pr.MergeBase, Head: pr.Head, Parser: syntax.ParserName(), Status: "complete"}
	files, err := pullChangedLines(ctx, r, opts, s.hiddenSection)
	if err != nil {
		return out, nil, err
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	generated := s.generated(ctx, r, pr.Head, paths)
	var syms []changedSymbol
	for _, f := range files {
		if generated(f.Path) {
			// Minified and vendored code is not reviewed by its symbols:
			// one-letter names there would be "called" everywhere.
			out.Generated = append(out.Generated, f.Path)
			continue
		}
		got, err := s.fileSymbols(ctx, r, pr, f, &out)
		if err != nil {
			return out, nil, err
		}
		syms = append(syms, got...)
	}
	if err := s.unupdatedCallers(ctx, r, pr.Head, files, syms, &out); err != nil {
		return out, nil, err
	}
	out.Total = len(syms)
	cost := len(key) + 512
	for _, c := range syms {
		cost += len(c.Path) + len(c.Name) + 256 + 192*len(c.NotUpdated)
	}
	s.pullSymbolsKept.put(key, pullSymbolsResult{out, syms}, cost, pullSymbolsKeptBytes)
	return out, syms, nil
}

// pullSymbolsKeptBytes bounds the pull requests' symbols kept.
const pullSymbolsKeptBytes = 8 << 20

// pullSymbolsResult is what pullSymbolsOf keeps.
type pullSymbolsResult struct {
	out  pullSymbolsOut
	syms []changedSymbol
}

// fileSymbols are the symbols a file's changed lines meet, on either
// side, paired by name and kind: changed when on both, else added or
// removed.
func (s *Server) fileSymbols(ctx context.Context, r *repo.Repository, pr *repo.PullRequest, f changedLines, out *pullSymbolsOut) ([]changedSymbol, error) {
	_, oldOK := syntax.LanguageOf(f.OldPath)
	_, newOK := syntax.LanguageOf(f.Path)
	if f.Unread || !oldOK && !newOK {
		out.Unparsed = append(out.Unparsed, f.Path)
		return nil, nil
	}
	var base, head *syntax.File
	for _, side := range []struct {
		skip         bool
		commit, path string
		file         **syntax.File
	}{{f.New, pr.MergeBase, f.OldPath, &base}, {f.Deleted, pr.Head, f.Path, &head}} {
		if side.skip {
			*side.file = &syntax.File{}
			continue
		}
		o, err := s.outlineOf(ctx, r, side.commit, side.commit, side.path)
		if err != nil {
			return nil, err
		}
		if o.File == nil {
			out.Unparsed = append(out.Unparsed, side.path)
			return nil, nil
		}
		if o.File.Errors > 0 && !slices.Contains(out.ParseErrors, side.path) {
			out.ParseErrors = append(out.ParseErrors, side.path)
		}
		*side.file = o.File
	}
	path := f.Path
	if f.Deleted {
		path = f.OldPath
	}
	var syms []changedSymbol
	used := map[int]bool{} // head symbols paired
	pair := func(sym syntax.Symbol, in *syntax.File) int {
		for i, h := range in.Symbols {
			if !used[i] && h.Kind == sym.Kind && qualified(h) == qualified(sym) {
				return i
			}
		}
		return -1
	}
	for _, b := range touched(base, f.Removed, nil) {
		c := changedSymbol{Path: path, Name: qualified(b), Kind: b.Kind, Change: "removed", Base: &linesRange{b.StartLine, b.EndLine}}
		if i := pair(b, head); i >= 0 {
			used[i] = true
			h := head.Symbols[i]
			c.Change, c.Head = "changed", &linesRange{h.StartLine, h.EndLine}
		}
		syms = append(syms, c)
	}
	oldUsed := map[int]bool{}
	for _, h := range touched(head, f.Added, f.Cuts) {
		i := slices.IndexFunc(head.Symbols, func(x syntax.Symbol) bool { return x == h })
		if used[i] {
			continue
		}
		c := changedSymbol{Path: path, Name: qualified(h), Kind: h.Kind, Change: "added", Head: &linesRange{h.StartLine, h.EndLine}}
		for j, b := range base.Symbols {
			if !oldUsed[j] && b.Kind == h.Kind && qualified(b) == c.Name {
				oldUsed[j] = true
				c.Change, c.Base = "changed", &linesRange{b.StartLine, b.EndLine}
				break
			}
		}
		syms = append(syms, c)
	}
	slices.SortStableFunc(syms, func(a, b changedSymbol) int { return a.line() - b.line() })
	if f.OldPath != f.Path {
		for i := range syms {
			syms[i].OldPath = f.OldPath
		}
	}
	return syms, nil
}

// line orders a file's symbols: by their head lines, a removed one's by
// its base lines.
func (c changedSymbol) line() int {
	if c.Head != nil {
		return c.Head.Start
	}
	return c.Base.Start
}

// unupdatedCallers finds, for each changed or removed function, its
// references at head (its own definitions left out) and which of them
// are on lines the pull request did not add.
func (s *Server) unupdatedCallers(ctx context.Context, r *repo.Repository, head string, files []changedLines, syms []changedSymbol, out *pullSymbolsOut) error {
	var names []string
	for _, c := range syms {
		_, name, _ := cutLast(c.Name, ".")
		if c.Change == "added" || !isFunction(c.Kind) || slices.Contains(names, name) || slices.Contains(out.Unsearched, name) {
			continue
		}
		if len(names) == maxReferenceNames {
			out.Unsearched = append(out.Unsearched, name)
			continue
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil
	}
	found, over, err := s.searchWords(ctx, r, head, names)
	if err != nil {
		return err
	}
	out.Unsearched = append(out.Unsearched, over...)
	// A reference in generated or vendored code (a minified library's
	// "init") is not a caller to update.
	var refPaths []string
	for _, fs := range found {
		for _, f := range fs {
			refPaths = append(refPaths, f.Path)
		}
	}
	generated := s.generated(ctx, r, head, refPaths)
	for i := range syms {
		c := &syms[i]
		_, name, _ := cutLast(c.Name, ".")
		if c.Change == "added" || !isFunction(c.Kind) || slices.Contains(out.Unsearched, name) {
			continue
		}
		n := 0
		family := languageFamily(c.Path)
		for _, m := range referencesIn(wordSearch{Files: found[name]}, name) {
			if m.Kind == "definition" || languageFamily(m.Path) != family || generated(m.Path) {
				continue // no call of it: a JavaScript function is not Go's
			}
			n++
			if !addedAt(files, m.Path, m.Line) {
				c.NotUpdated = append(c.NotUpdated, m)
			}
		}
		c.References = &n
	}
	return nil
}

// refsNote is a changed function's count of references: "; 9 of its 12
// references at head are on lines not changed".
func (c changedSymbol) refsNote() string {
	switch {
	case c.References == nil:
		return ""
	case *c.References == 0:
		return "; no reference at head"
	case len(c.NotUpdated) == 0:
		return "; " + text.Count(*c.References, "reference") + " at head, all on changed lines"
	}
	return fmt.Sprintf("; %d of its %s at head on lines not changed", len(c.NotUpdated), text.Count(*c.References, "reference"))
}

// languageFamily is the languages whose code can call each other's
// functions by name: C and C++; JavaScript, TypeScript and TSX; each
// other language alone.
func languageFamily(path string) string {
	lang, _ := syntax.LanguageOf(path)
	switch lang {
	case "c", "cpp":
		return "c"
	case "javascript", "typescript", "tsx":
		return "javascript"
	}
	return lang
}
