package server

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Search limits.
const (
	maxQueryLen = 500
	maxGlobs    = 20
)

type searchCodeIn struct {
	Owner         string   `json:"owner,omitempty"`
	Repo          string   `json:"repo,omitempty"`
	Query         string   `json:"query"`
	Regex         bool     `json:"regex,omitempty" jsonschema:"query is a POSIX extended regex"`
	CaseSensitive bool     `json:"caseSensitive,omitempty"`
	PathGlobs     []string `json:"pathGlobs,omitempty" jsonschema:"gitignore-style globs (*.c at any depth, src/**/*.go)"`
	Ref           string   `json:"ref,omitempty" jsonschema:"commit, branch, tag or refs/pull/N/head; omit for the work tree (HEAD if bare)"`
	MaxResults    int      `json:"maxResults,omitempty"`
	ContextLines  int      `json:"contextLines,omitempty"`
	Offset        int      `json:"offset,omitempty"`
	paging.ReplyLimit
}

type searchMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text" jsonschema:"the matching line; of a line over 500 bytes, its first piece (lineBytes says its length; read_file with startLine and startByte goes on)"`
	// LineBytes is the line's length when Text is its first piece.
	LineBytes int64    `json:"lineBytes,omitempty" jsonschema:"the line's length in bytes when text is only its start; absent when text is the whole line"`
	Before    []string `json:"before,omitempty" jsonschema:"context lines before the match"`
	After     []string `json:"after,omitempty" jsonschema:"context lines after the match"`
	// Hidden names the bidi controls and invisible characters of text.
	Hidden []string `json:"hiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters text holds, by code point and name, shown as they are; absent when none"`
}

type searchCodeOut struct {
	Ref          *string       `json:"ref" jsonschema:"the commit searched; null for the work tree"`
	Matches      []searchMatch `json:"matches"`
	Truncated    bool          `json:"truncated" jsonschema:"true when more matches exist than are returned"`
	SkippedLarge int           `json:"skippedLargeFiles" jsonschema:"files not searched because they are larger than the server's limit (--max-search-file-bytes)"`
	paging.Paged
}

// searchCodeTool is search_code's definition (registry.go).
var searchCodeTool = defineTool(toolSpec{
	Name:  "search_code",
	Title: "Search code",
	Description: "Search file contents with git grep: a fixed string (case-insensitive by default) or POSIX extended regex; each match's path, line and text. " +
		"list_files finds files by name, read_file reads around a match. Skips binary, secret and oversized files. " +
		"A line over 500 bytes shows its first piece; its [line …] marker's read_file call reads on." +
		partialNext,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "maxResults", 100, 1, 500)
		argcheck.SetInt(in, "contextLines", 0, 0, 5)
		argcheck.SetInt(in, "offset", 0, 0, 1<<31-1)
		argcheck.Prop(in, "pathGlobs").MaxItems = ptr(maxGlobs)
		argcheck.Prop(in, "query").MaxLength = ptr(maxQueryLen)
	},
}, (*Server).searchCode)

func (s *Server) searchCode(ctx context.Context, in searchCodeIn) (reply[searchCodeOut], error) {
	if err := checkQuery(in.Query); err != nil {
		return reply[searchCodeOut]{}, err
	}
	if in.Regex {
		if err := repo.CheckRegex(in.Query); err != nil {
			return reply[searchCodeOut]{}, err
		}
	}
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return reply[searchCodeOut]{}, err
	}
	globs := in.PathGlobs
	if err := repo.CheckGlobs(globs); err != nil {
		return reply[searchCodeOut]{}, err
	}
	opts := git.GrepOptions{Pattern: in.Query, Regex: in.Regex, CaseSensitive: in.CaseSensitive,
		Globs: globs, Exclude: s.cfg.Policy.GrepExcludes(), MaxFileBytes: s.cfg.MaxSearchFileBytes,
		Hidden: func(p string) bool { return s.cfg.Policy.Denied(p) || r.InGitDir(p) }}
	out := searchCodeOut{Matches: []searchMatch{}}
	where := "the work tree"
	if in.Ref != "" || r.Bare() {
		commit, err := r.ResolveCommit(ctx, in.Ref)
		if err != nil {
			return reply[searchCodeOut]{}, err
		}
		opts.Rev, out.Ref, where = commit, &commit, commit
	}
	c := &grepCollector{s: s, r: r, rev: opts.Rev, skip: in.Offset, max: in.MaxResults, matches: []searchMatch{}}
	res, err := r.Git.Grep(ctx, opts, c.add)
	// git's verdict on the pattern itself ("fatal: -e option, 'a(':
	// Unmatched ( ...") is the caller's to fix; any other failure is not.
	var exit *gitexec.ExitError
	if errors.As(err, &exit) && strings.HasPrefix(strings.TrimSpace(exit.Stderr), "fatal: -e option") {
		return reply[searchCodeOut]{}, errcode.New(errcode.InvalidArgument, "git grep refused the query: %s", strings.TrimPrefix(strings.TrimSpace(exit.Stderr), "fatal: "))
	}
	var many *git.TooManyLargeFilesError
	if errors.As(err, &many) {
		return reply[searchCodeOut]{}, errcode.New(errcode.TooLarge, "%d files in %s are larger than the server's %s search limit (--max-search-file-bytes), too many to skip one by one: narrow the search with pathGlobs", many.Files, where, byteSize(many.Max))
	}
	var changed *git.WorkTreeChangedError
	if errors.As(err, &changed) {
		return reply[searchCodeOut]{}, errcode.New(errcode.TooLarge, "%d files of the work tree differ from its index, more than the %s a work-tree search copies to read them safely: search at a ref (ref \"HEAD\"), or narrow the search with pathGlobs", changed.Files, byteSize(changed.Bytes))
	}
	if err != nil {
		return reply[searchCodeOut]{}, err
	}
	defer res.Searched.Close()
	if in.ContextLines > 0 {
		at := make([]repo.MatchAt, len(c.matches))
		for i, m := range c.matches {
			at[i] = repo.MatchAt{Path: m.Path, Line: m.Line}
		}
		around, err := r.ContextOf(ctx, opts.Rev, res.Searched, at, in.ContextLines)
		if err != nil {
			return reply[searchCodeOut]{}, err
		}
		for i := range c.matches {
			c.matches[i].Before, c.matches[i].After = around[i].Before, around[i].After
		}
	}
	out.Truncated, out.SkippedLarge = c.more, res.Skipped
	// The matches before the offset: all there are when the offset is
	// past the last (finding 19).
	rep := s.fitMatches(ctx, in, where, out, c.matches, in.Offset-c.skip)
	if len(globs) > 0 && len(c.matches) == 0 {
		note, err := globsNote(ctx, r.Git, opts.Rev, globs, opts.Exclude)
		if err != nil {
			return reply[searchCodeOut]{}, err
		}
		rep.Text += note
	}
	return rep, nil
}

// byteSize writes n bytes the way the flags are usually given: "16 MiB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

func checkQuery(q string) error {
	switch {
	case q == "":
		return errcode.New(errcode.InvalidArgument, "query is empty")
	case strings.ContainsAny(q, "\x00\n\r"):
		return errcode.New(errcode.InvalidArgument, "query contains a NUL or line break; search one line at a time")
	}
	return nil
}

// grepCollector turns git grep's matches into the reply's, and stops git
// once one match more than wanted is seen.
type grepCollector struct {
	s    *Server
	r    *repo.Repository
	rev  string
	skip int // matches before the call's offset, left out
	max  int

	matches []searchMatch
	more    bool // a match past max exists
}

func (c *grepCollector) add(m git.GrepMatch) error {
	if c.s.cfg.Policy.Denied(m.Path) || (c.rev == "" && c.r.InGitDir(m.Path)) {
		return nil // git's exclusions, checked again
	}
	if c.skip > 0 {
		c.skip--
		return nil
	}
	if len(c.matches) == c.max {
		c.more = true
		return git.ErrStopGrep // enough: stop git
	}
	match := searchMatch{Path: m.Path, Line: m.Line, Text: string(m.Text)}
	// A line over MaxShownLine: its first piece, and its length; read_file
	// goes on inside it (matchPiece).
	if cut, did := text.CutUTF8(match.Text, text.MaxShownLine); did || m.Cut {
		match.Text, match.LineBytes = cut, m.Bytes
	}
	c.matches = append(c.matches, match)
	return nil
}

// fitMatches renders the reply with as many matches as fit; before is how
// many matches there are before the offset (in.Offset unless it is past
// the last).
func (s *Server) fitMatches(ctx context.Context, in searchCodeIn, where string, out searchCodeOut, all []searchMatch, before int) reply[searchCodeOut] {
	for i, m := range all {
		if h := text.ScanText([]byte(m.Text), m.Line); h.Found() {
			all[i].Hidden = h.PointNames()
		}
	}
	cutNote := "" // the first match's path, shown cut (cut, below)
	render := func(n int) reply[searchCodeOut] {
		out.Matches = all[:n:n]
		if out.Matches == nil {
			out.Matches = []searchMatch{} // [] in the structured result, never null
		}
		o := out
		o.Truncated = out.Truncated || n < len(all)
		var next *paging.Call
		if o.Truncated {
			// The next call goes on from the first match not shown, at
			// the same commit.
			more := in
			more.Offset += n
			if o.Ref != nil {
				more.Ref = *o.Ref
			}
			next = paging.Continue("search_code", more)
		}
		var b strings.Builder
		kind := "literal"
		if in.Regex {
			kind = "regex"
		}
		sens := "case-insensitive"
		if in.CaseSensitive {
			sens = "case-sensitive"
		}
		fmt.Fprintf(&b, "search_code %q (%s, %s) in %s: ", in.Query, kind, sens, where)
		switch {
		case o.Truncated:
			b.WriteString(matchRange(in.Offset, n) + " shown; more follow\n")
		case n == 0 && in.Offset > 0:
			b.WriteString(paging.Shown(in.Offset, 0, before, "match", "search_code", in) + "\n")
		case in.Offset > 0:
			fmt.Fprintf(&b, "%s of %d\n", matchRange(in.Offset, n), in.Offset+n)
		default:
			b.WriteString(text.Count(n, "match") + "\n")
		}
		for i, m := range o.Matches {
			if in.ContextLines > 0 && i > 0 {
				b.WriteString("--\n")
			}
			for j, t := range m.Before {
				fmt.Fprintf(&b, "%s-%d- %s\n", text.Name(m.Path), m.Line-len(m.Before)+j, text.Line(t))
			}
			if m.LineBytes > 0 {
				b.WriteString(matchPiece(m, o.Ref))
			}
			fmt.Fprintf(&b, "%s:%d: %s\n", text.Name(m.Path), m.Line, text.Line(m.Text))
			for j, t := range m.After {
				fmt.Fprintf(&b, "%s-%d- %s\n", text.Name(m.Path), m.Line+1+j, text.Line(t))
			}
		}
		b.WriteString(cutNote)
		b.WriteString(matchesNote(o.Matches))
		if o.SkippedLarge > 0 {
			files := "files larger than the server's %s search limit (--max-search-file-bytes); read_file reads them"
			if o.SkippedLarge == 1 {
				files = "file larger than the server's %s search limit (--max-search-file-bytes); read_file reads it"
			}
			fmt.Fprintf(&b, "[not searched: %d "+files+" in ranges]\n", o.SkippedLarge, byteSize(s.cfg.MaxSearchFileBytes))
		}
		if o.Truncated {
			b.WriteString("[more matches follow: the next call goes on; or narrow the search with pathGlobs" + globExample(all) + " or a more specific query]\n")
		}
		return reply[searchCodeOut]{Text: b.String(), Out: o, Next: next}
	}
	if len(all) == 0 {
		return render(0)
	}
	whole := all[0]
	cut := func(keep int) reply[searchCodeOut] {
		// Not even the first match fits a reply: its path is shown cut,
		// said so, without its context (which names the path again) and
		// without a read_file call (the path is not whole); the next
		// call goes on after it.
		m := whole
		m.Path, _ = text.CutUTF8(whole.Path, keep)
		m.Before, m.After, m.LineBytes = nil, nil, 0
		all[0] = m
		cutNote = cutPathNote(in.Offset+1, "match", whole.Path, m.Path)
		defer func() { cutNote = "" }()
		return render(1)
	}
	return paging.FitListCut(s.budget(ctx), len(all), render, len(whole.Path), cut)
}

// matchRange names the n matches a reply shows after offset: "match 4",
// "matches 4–9".
func matchRange(offset, n int) string {
	if n == 1 {
		return fmt.Sprintf("match %d", offset+1)
	}
	return fmt.Sprintf("matches %d–%d", offset+1, offset+n)
}

// globExample is a pathGlobs example for narrowing a search, from the
// files it matched: " (e.g. [\"*.c\"])" for the extension most matches'
// files have; "" when none has a plain one. A fixed example ("src/**/*.go")
// was another language's in most repositories.
func globExample(matches []searchMatch) string {
	count := map[string]int{}
	best := ""
	for _, m := range matches {
		base := path.Base(m.Path)
		ext := path.Ext(base)
		if ext == base || len(ext) < 2 || strings.ContainsFunc(ext[1:], func(r rune) bool {
			return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' && r != '-' && r != '+'
		}) {
			continue // no extension, a dotfile's name, or one a glob or JSON would have to escape
		}
		count[ext]++
		if c := count[ext]; c > count[best] || c == count[best] && ext < best {
			best = ext
		}
	}
	if best == "" {
		return ""
	}
	return ` (e.g. ["*` + best + `"])`
}

// matchPiece is the marker line before a match whose text is the first
// piece of its line (text.PieceMarker's words), with the read_file call
// that goes on inside the line, at the commit searched (ref nil: the work
// tree).
func matchPiece(m searchMatch, ref *string) string {
	next := readFileIn{Path: m.Path, StartLine: m.Line, StartByte: int64(len(m.Text))}
	if ref != nil {
		next.Ref = *ref
	}
	marker := text.PieceMarker(text.Name(m.Path), text.Piece{Line: m.Line, To: int64(len(m.Text)), Bytes: m.LineBytes})
	return strings.TrimSuffix(marker, text.PieceMore) + "; goes on with read_file " + paging.PlainJSON(paging.Continue("read_file", next).Arguments) + "]\n"
}

// matchesNote says which of the lines a search shows (matches and their
// context) hold hidden characters, by file.
func matchesNote(matches []searchMatch) string {
	var ph text.HiddenByName
	last := map[string]int{} // a line two matches' context share is counted once
	add := func(path string, line int, t string) {
		if line <= last[path] {
			return
		}
		last[path] = line
		h := text.Hidden{}
		h.Add(line, []byte(t), line == 1)
		ph.Add(path, h, text.Hidden{})
	}
	for _, m := range matches {
		for j, t := range m.Before {
			add(m.Path, m.Line-len(m.Before)+j, t)
		}
		add(m.Path, m.Line, m.Text)
		for j, t := range m.After {
			add(m.Path, m.Line+1+j, t)
		}
	}
	return ph.Notes(false)
}

// globsNote is the line a search_code reply without matches adds when
// pathGlobs were given: whether they selected no file at all (where
// searched at, for a commit) or files without a matching line. Hidden
// files (exclude) and submodules do not count.
func globsNote(ctx context.Context, g *git.Repo, rev string, globs, exclude []string) (string, error) {
	some, err := g.GlobsSelectFile(ctx, rev, globs, exclude)
	if err != nil {
		return "", err
	}
	files, where := "files", "at "+rev
	if rev == "" {
		files, where = "tracked files", "in the work tree"
	}
	if some {
		return "[pathGlobs matched " + files + " " + where + ", but no line in them matches the query]\n", nil
	}
	return "[pathGlobs matched no " + strings.TrimSuffix(files, "s") + " " + where + `: a pattern without "/" matches a name at any depth (*.go), one with "/" is anchored at the root (src/*.go, /Makefile), ** crosses directories (src/**/*_test.go), a trailing "/" selects a directory (docs/)]` + "\n", nil
}
