package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Finding a name in code at a commit (find_symbol, get_pull_request_symbols):
// git grep -w names the files where the name is a whole word, and the
// parser reads only those, to tell a definition, or an identifier in code,
// from the same word in a comment or a string. Nothing is indexed: any
// commit is read as it is.

// maxSymbolFiles bounds the files one call parses: a name in more files
// is narrowed with paths.
const maxSymbolFiles = 2000

// wordFile is a file where git grep -w finds the word, and how many lines.
type wordFile struct {
	Path string
	Hits int
}

// parsedWord is a file of a word search as parsed: its outline (or why
// none), and the identifiers of the name when they were asked for.
type parsedWord struct {
	wordFile
	outline
	Named *namedIn
}

// wordSearch is what a word search found at a commit.
type wordSearch struct {
	Files []parsedWord // in git's order: by path
	// TooLarge counts the files over the parser's cap, which git grep did
	// not read.
	TooLarge int
}

// symbolName checks a name find_symbol looks for: an identifier, or a
// container's name and an identifier joined by "." ("Server.Start").
// It returns the container ("" when none) and the identifier.
func symbolName(name string) (container, ident string, err error) {
	container, ident, _ = cutLast(name, ".")
	if !isIdentifier(ident) || container != "" && !isIdentifier(container) {
		return "", "", errcode.New(errcode.InvalidArgument, "name %s is not an identifier: give one name as the code spells it (parseHeader), or a container's and its own (Server.Start)", text.Name(name))
	}
	return container, ident, nil
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return "", s, false
}

// isIdentifier: s is a word git grep -w and every parsed language agree
// on: letters, digits, "_" and "$", not starting with a digit.
func isIdentifier(s string) bool {
	if s == "" || len(s) > 256 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if r != '_' && r != '$' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// searchWord finds the files at commit where word is a whole word (under
// paths, if any) and parses them; with named, it lists the identifiers of
// word in each too. Files are parsed a few at a time: a file already
// parsed at that blob is not parsed again (outlineCache).
func (s *Server) searchWord(ctx context.Context, r *repo.Repository, commit, word string, paths []string, named bool) (wordSearch, error) {
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%t\x00%q", r.FullName(), commit, word, named, paths)
	if ws, ok := s.words.get(key); ok {
		return ws, nil
	}
	ws, err := s.searchWordOnce(ctx, r, commit, word, paths, named)
	if err == nil {
		s.words.put(key, ws)
	}
	return ws, err
}

func (s *Server) searchWordOnce(ctx context.Context, r *repo.Repository, commit, word string, paths []string, named bool) (wordSearch, error) {
	var ws wordSearch
	var files []wordFile
	over := false
	opts := git.GrepOptions{Pattern: word, CaseSensitive: true, Word: true, Rev: commit, Paths: paths,
		Exclude: s.cfg.Policy.GrepExcludes(), MaxFileBytes: int64(syntax.MaxFileBytes)}
	res, err := r.Git.Grep(ctx, opts, func(m git.GrepMatch) error {
		if s.cfg.Policy.Denied(m.Path) {
			return nil
		}
		if n := len(files); n > 0 && files[n-1].Path == m.Path {
			files[n-1].Hits++
			return nil
		}
		if len(files) == maxSymbolFiles {
			over = true
			return git.ErrStopGrep
		}
		files = append(files, wordFile{Path: m.Path, Hits: 1})
		return nil
	})
	var many *git.TooManyLargeFilesError
	if errors.As(err, &many) {
		return ws, errcode.New(errcode.TooLarge, "%d files at %s are over the %s the parser reads, too many to skip one by one: narrow the search with paths", many.Files, git.Short(commit), byteSize(int64(syntax.MaxFileBytes)))
	}
	if err != nil {
		return ws, err
	}
	if over {
		return ws, errcode.New(errcode.TooLarge, "%s is a word in more than %d files at %s, more than one call parses: narrow the search with paths (directories)", text.Name(word), maxSymbolFiles, git.Short(commit))
	}
	ws.TooLarge = res.Skipped
	ws.Files = make([]parsedWord, len(files))
	name := ""
	if named {
		name = word
	}
	err = parallel(ctx, len(files), func(i int) error {
		o, n, err := s.parseAt(ctx, r, commit, commit, files[i].Path, name)
		ws.Files[i] = parsedWord{files[i], o, n}
		if errors.Is(err, syntax.ErrTimeout) {
			return errcode.New(errcode.Unavailable, "parsing %s took longer than %s: narrow the search with paths to leave it out", text.NoteName(files[i].Path), syntax.ParseTimeout)
		}
		return err
	})
	return ws, err
}

// searchWords is searchWord for several names at once (one git grep):
// for each name, its identifiers in the files where it is a word, by
// file in git's order. A name whose files would take the parses past
// maxSymbolFiles is left out, and returned in over.
func (s *Server) searchWords(ctx context.Context, r *repo.Repository, commit string, names []string) (found map[string][]parsedWord, over []string, err error) {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strings.ReplaceAll(n, "$", `\$`)
	}
	files := map[string][]string{} // name -> files, in git's order
	opts := git.GrepOptions{Pattern: strings.Join(quoted, "|"), Regex: true, CaseSensitive: true, Word: true, Rev: commit,
		Exclude: s.cfg.Policy.GrepExcludes(), MaxFileBytes: int64(syntax.MaxFileBytes)}
	last := map[string]string{}
	_, err = r.Git.Grep(ctx, opts, func(m git.GrepMatch) error {
		if s.cfg.Policy.Denied(m.Path) {
			return nil
		}
		for _, n := range names {
			if last[n] == m.Path || !m.Cut && !hasWord(m.Text, n) {
				continue
			}
			last[n] = m.Path
			files[n] = append(files[n], m.Path)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// One parse per file and name, at most maxSymbolFiles in all: the
	// names past that are left out, as a name in too many files is.
	type job struct{ name, path string }
	var jobs []job
	for _, n := range names {
		if len(jobs)+len(files[n]) > maxSymbolFiles {
			over = append(over, n)
			continue
		}
		for _, p := range files[n] {
			jobs = append(jobs, job{n, p})
		}
	}
	// The parses take at most half the time the call has left: the names
	// whose files are not all parsed by then are left out too, so that
	// the reply says so rather than the call running out of time.
	parseCtx, cancel := context.WithTimeout(ctx, parseShare(ctx))
	defer cancel()
	parsed := make([]parsedWord, len(jobs))
	done := make([]bool, len(jobs))
	err = parallel(parseCtx, len(jobs), func(i int) error {
		o, named, err := s.parseAt(parseCtx, r, commit, commit, jobs[i].path, jobs[i].name)
		parsed[i], done[i] = parsedWord{wordFile{Path: jobs[i].path}, o, named}, err == nil
		if errors.Is(err, syntax.ErrTimeout) {
			return errcode.New(errcode.Unavailable, "parsing %s took longer than %s", text.NoteName(jobs[i].path), syntax.ParseTimeout)
		}
		return err
	})
	if err != nil && ctx.Err() == nil && parseCtx.Err() != nil {
		err = nil // out of the parses' share: the names not done are said
	}
	found = map[string][]parsedWord{}
	for i, j := range jobs {
		if !done[i] && !slices.Contains(over, j.name) {
			over = append(over, j.name)
		}
		found[j.name] = append(found[j.name], parsed[i])
	}
	for _, n := range over {
		delete(found, n)
	}
	return found, over, err
}

// parseShare is the time the parses of one call may take: half what is
// left of its deadline, 10 s without one.
func parseShare(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return time.Until(d) / 2
	}
	return 10 * time.Second
}

// hasWord: name is a whole word of line, as git grep -w tells words.
func hasWord(line []byte, name string) bool {
	word := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for at := 0; ; {
		i := bytes.Index(line[at:], []byte(name))
		if i < 0 {
			return false
		}
		i += at
		end := i + len(name)
		if (i == 0 || !word(line[i-1])) && (end == len(line) || !word(line[end])) {
			return true
		}
		at = i + 1
	}
}

// parallel calls each for 0..n-1, a few at a time (parsing is CPU work),
// and returns the first error; after one, the calls not begun are not.
func parallel(ctx context.Context, n int, each func(i int) error) error {
	workers := min(max(runtime.GOMAXPROCS(0), 1), 8, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := each(i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = context.Cause(ctx)
	}
	return first
}

// enclosing is the innermost symbol of f whose lines hold line, other than
// skip (a definition's own symbol), as "Container.Name"; "" when none.
func enclosing(f *syntax.File, line int, skip *syntax.Symbol) string {
	var best *syntax.Symbol
	for i := range f.Symbols {
		sym := &f.Symbols[i]
		if sym.StartLine > line {
			break
		}
		if line > sym.EndLine || skip != nil && *sym == *skip {
			continue
		}
		if best == nil || sym.EndLine-sym.StartLine <= best.EndLine-best.StartLine {
			best = sym
		}
	}
	if best == nil {
		return ""
	}
	return qualified(*best)
}

// qualified is a symbol's name under its container: "Server.Start".
func qualified(sym syntax.Symbol) string {
	if sym.Container != "" {
		return sym.Container + "." + sym.Name
	}
	return sym.Name
}

// wordMemoBytes bounds the word searches kept: what they hold besides the
// outlines, which outlineCache accounts for (and a search keeps alive).
const wordMemoBytes = 8 << 20

// wordMemo keeps word searches by repository, commit, word and paths: a
// commit's files never change.
type wordMemo struct{ lru[string, wordSearch] }

func (m *wordMemo) put(key string, ws wordSearch) {
	cost := len(key) + 128
	for _, f := range ws.Files {
		cost += len(f.Path) + 128
		if f.Named != nil {
			cost += 64 * len(f.Named.Refs)
		}
	}
	m.lru.put(key, ws, cost, wordMemoBytes)
}
