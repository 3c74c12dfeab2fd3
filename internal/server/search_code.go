package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Search limits.
const (
	maxQueryLen  = 500
	maxGlobs     = 20
	maxLineBytes = 500 // a longer line is cut (on a UTF-8 boundary) with a marker
)

type searchCodeIn struct {
	Owner         string   `json:"owner,omitempty" jsonschema:"repository owner; optional when one repository is served"`
	Repo          string   `json:"repo,omitempty" jsonschema:"repository name; optional when one repository is served"`
	Query         string   `json:"query" jsonschema:"text to find (a fixed string unless regex is true)"`
	Regex         bool     `json:"regex,omitempty" jsonschema:"treat query as a POSIX extended regular expression"`
	CaseSensitive bool     `json:"caseSensitive,omitempty" jsonschema:"match case exactly"`
	PathGlobs     []string `json:"pathGlobs,omitempty" jsonschema:"only search paths matching these globs: * stays within a directory, ** crosses directories (src/**/*.go)"`
	Ref           string   `json:"ref,omitempty" jsonschema:"branch, tag or commit to search; omit to search the work tree (HEAD for a bare repository)"`
	MaxResults    int      `json:"maxResults,omitempty" jsonschema:"most matches to return"`
	ContextLines  int      `json:"contextLines,omitempty" jsonschema:"lines of context before and after each match"`
}

type searchMatch struct {
	Path   string   `json:"path"`
	Line   int      `json:"line"`
	Text   string   `json:"text" jsonschema:"the matching line (lines over 500 bytes are cut, with a marker)"`
	Before []string `json:"before,omitempty" jsonschema:"context lines before the match"`
	After  []string `json:"after,omitempty" jsonschema:"context lines after the match"`
}

type searchCodeOut struct {
	Ref       *string       `json:"ref" jsonschema:"the commit searched; null for the work tree"`
	Matches   []searchMatch `json:"matches"`
	Truncated bool          `json:"truncated" jsonschema:"true when more matches exist than are returned"`
}

func (s *Server) addSearchCode() {
	t := &mcp.Tool{
		Name: "search_code",
		Description: "Search file contents with git grep, at a ref or in the work tree: a fixed string by default (case-insensitive), or a POSIX extended regex. " +
			"Returns path, line and text of each match, with optional context lines; binary files and files hidden by the secrets policy are skipped. " +
			"Stops at maxResults: narrow with pathGlobs or a more specific query when truncated.",
		Annotations: readOnly("Search code"),
	}
	addTool(s, t, reflect.TypeFor[searchCodeOut](), func(in *jsonschema.Schema) {
		setDefault(in, "regex", false)
		setDefault(in, "caseSensitive", false)
		setInt(in, "maxResults", 100, 1, 500)
		setInt(in, "contextLines", 0, 0, 5)
		prop(in, "pathGlobs").MaxItems = ptr(maxGlobs)
		prop(in, "query").MaxLength = ptr(maxQueryLen)
	}, s.searchCode)
}

func (s *Server) searchCode(ctx context.Context, in searchCodeIn) (reply, error) {
	if err := checkQuery(in.Query); err != nil {
		return reply{}, err
	}
	if in.Regex {
		if err := checkRegex(in.Query); err != nil {
			return reply{}, err
		}
	}
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return reply{}, err
	}
	globs, err := cleanList("pathGlobs", in.PathGlobs)
	if err != nil {
		return reply{}, err
	}
	opts := git.GrepOptions{Pattern: in.Query, Regex: in.Regex, CaseSensitive: in.CaseSensitive,
		Globs: globs, Exclude: s.cfg.Policy.GrepExcludes(), Context: in.ContextLines}
	out := searchCodeOut{Matches: []searchMatch{}}
	where := "the work tree"
	if in.Ref != "" || r.Bare() {
		commit, err := r.ResolveCommit(ctx, in.Ref)
		if err != nil {
			return reply{}, err
		}
		opts.Rev, out.Ref, where = commit, &commit, commit
	}
	c := &grepCollector{s: s, r: r, rev: opts.Rev, max: in.MaxResults, context: in.ContextLines, checked: map[string]bool{}}
	err = r.Git.Grep(ctx, opts, c.read)
	// git's verdict on the pattern itself ("fatal: -e option, 'a(':
	// Unmatched ( ...") is the caller's to fix; any other failure is not.
	var exit *git.ExitError
	if errors.As(err, &exit) && strings.HasPrefix(strings.TrimSpace(exit.Stderr), "fatal: -e option") {
		return reply{}, errcode.New(errcode.InvalidArgument, "git grep refused the query: %s", strings.TrimPrefix(strings.TrimSpace(exit.Stderr), "fatal: "))
	}
	if err != nil {
		return reply{}, err
	}
	out.Truncated = c.more
	return s.fitMatches(in, where, out, c.matches), nil
}

func checkQuery(q string) error {
	switch {
	case q == "":
		return errcode.New(errcode.InvalidArgument, "query is empty")
	case utf8.RuneCountInString(q) > maxQueryLen:
		return errcode.New(errcode.InvalidArgument, "query is %d characters long; the limit is %d", utf8.RuneCountInString(q), maxQueryLen)
	case strings.ContainsAny(q, "\x00\n\r"):
		return errcode.New(errcode.InvalidArgument, "query contains a NUL or line break; search one line at a time")
	}
	return nil
}

// grepCollector turns git grep's output into matches with their context,
// and stops git once one match more than wanted is seen.
type grepCollector struct {
	s       *Server
	r       *repo.Repository
	rev     string
	max     int
	context int

	matches []searchMatch
	more    bool            // a match past max exists
	checked map[string]bool // work-tree paths: may be served?
	pending []contextLine   // context lines since the last match, same file
}

type contextLine struct {
	path string
	line int
	text string
}

// maxRecordHead bounds what is kept of one output line: a path of up to 4
// KiB, the numbers, and the text up to the cut.
const maxRecordHead = 8 << 10

func (c *grepCollector) read(stdout io.Reader) error {
	br := bufio.NewReaderSize(stdout, 64<<10)
	for {
		rec, err := readHead(br, maxRecordHead)
		if err == io.EOF && len(rec) == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		if string(rec) == "--" {
			c.pending = c.pending[:0]
			continue
		}
		path, line, text, isMatch, ok := c.parse(rec)
		if !ok || !c.allowed(path) {
			continue
		}
		if !isMatch {
			c.context1(path, line, text)
			continue
		}
		if len(c.matches) == c.max {
			c.more = true
			return nil // enough: stop git
		}
		m := searchMatch{Path: path, Line: line, Text: text}
		for _, p := range c.pending {
			if p.path == path && p.line >= line-c.context {
				m.Before = append(m.Before, p.text)
			}
		}
		c.pending = c.pending[:0]
		c.matches = append(c.matches, m)
	}
}

// context1 files a context line as the last match's after-context and keeps
// it for the next match's before-context.
func (c *grepCollector) context1(path string, line int, text string) {
	if n := len(c.matches); n > 0 {
		last := &c.matches[n-1]
		if last.Path == path && line > last.Line && line <= last.Line+c.context {
			last.After = append(last.After, text)
		}
	}
	c.pending = append(c.pending, contextLine{path, line, text})
	if len(c.pending) > c.context {
		c.pending = c.pending[1:]
	}
}

// parse reads "PATH\0LINE\0COLUMN\0TEXT" (a match) or "PATH\0LINE\0TEXT"
// (context).
func (c *grepCollector) parse(rec []byte) (path string, line int, text string, isMatch, ok bool) {
	p, rest, ok1 := bytes.Cut(rec, []byte{0})
	n, rest, ok2 := bytes.Cut(rest, []byte{0})
	if !ok1 || !ok2 {
		return "", 0, "", false, false
	}
	line, err := strconv.Atoi(string(n))
	if err != nil {
		return "", 0, "", false, false
	}
	path = string(p)
	if c.rev != "" {
		path = strings.TrimPrefix(path, c.rev+":")
	}
	if col, after, found := bytes.Cut(rest, []byte{0}); found && isDigits(col) {
		isMatch, rest = true, after
	}
	return path, line, cutLine(rest), isMatch, true
}

func isDigits(b []byte) bool {
	for _, x := range b {
		if x < '0' || x > '9' {
			return false
		}
	}
	return len(b) > 0
}

// cutLine cuts a line at maxLineBytes on a UTF-8 boundary, with a marker.
func cutLine(b []byte) string {
	s := strings.TrimSuffix(string(b), "\n")
	if cut, did := text.CutUTF8(s, maxLineBytes); did {
		return cut + " …[line cut]"
	}
	return s
}

// allowed double-checks git's exclusions against the policy and, in the
// work tree, that the file's real path stays inside it (git follows
// symlinked directories).
func (c *grepCollector) allowed(path string) bool {
	if c.s.cfg.Policy.Denied(path) {
		return false
	}
	if c.rev != "" {
		return true
	}
	ok, seen := c.checked[path]
	if !seen {
		ok = c.r.CheckWorkTreePath(c.s.cfg.Policy, path) == nil
		c.checked[path] = ok
	}
	return ok
}

// readHead reads one line and returns at most n bytes of it (the rest is
// skipped), without its newline.
func readHead(br *bufio.Reader, n int) ([]byte, error) {
	var head []byte
	for {
		frag, err := br.ReadSlice('\n')
		if room := n - len(head); room > 0 {
			head = append(head, frag[:min(len(frag), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(head, []byte{'\n'}), err
	}
}

// fitMatches renders the reply with as many matches as fit.
func (s *Server) fitMatches(in searchCodeIn, where string, out searchCodeOut, all []searchMatch) reply {
	render := func(n int) reply {
		out.Matches = all[:n]
		o := out
		o.Truncated = out.Truncated || n < len(all)
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
			fmt.Fprintf(&b, "%d matches shown; more exist\n", n)
		default:
			fmt.Fprintf(&b, "%d matches\n", n)
		}
		for i, m := range o.Matches {
			if in.ContextLines > 0 && i > 0 {
				b.WriteString("--\n")
			}
			for j, t := range m.Before {
				fmt.Fprintf(&b, "%s-%d- %s\n", m.Path, m.Line-len(m.Before)+j, t)
			}
			fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
			for j, t := range m.After {
				fmt.Fprintf(&b, "%s-%d- %s\n", m.Path, m.Line+1+j, t)
			}
		}
		if o.Truncated {
			b.WriteString("[more matches exist: narrow the search with pathGlobs (e.g. [\"src/**/*.go\"]) or a more specific query")
			if in.MaxResults < 500 && n == in.MaxResults {
				b.WriteString(", or raise maxResults (at most 500)")
			}
			b.WriteString("]\n")
		}
		return reply{text: b.String(), structured: o}
	}
	return s.fitPage(len(all), render)
}
