package git

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// globSet matches paths as git matches :(glob) pathspecs (with icase
// magic when fold), every body an alternative. Its MatchString is what
// grepSkips asks. Each body is matched on its own, its wildcard regexp run
// only on a path that holds every literal run of the body: one regexp of
// all the policy's bodies kept hundreds of states alive along a path, some
// milliseconds for an 800-byte path, a minute for a tree naming one large
// file under 20,000 such paths.
type globSet struct {
	alts []globAlt
	fold bool
}

// globAlt is one body: its literal reading, and its wildcard one.
type globAlt struct {
	literal string         // names the path or a directory above it
	wild    *regexp.Regexp // nil: no wildcard, or one that matches nothing
	needs   []string       // runs of bytes every path wild matches holds
}

// GlobFilter is the test of a path against globs as agents write them (the
// rules of TranslateGlob), matched as git matches the pathspecs they
// become: what search_code's pathGlobs select, for callers that filter a
// listing themselves (list_files). nil for no globs.
func GlobFilter(globs []string) func(path string) bool {
	m := globMatcher(TranslateGlobs(globs), false)
	if m == nil {
		return nil
	}
	return m.MatchString
}

// MatchString reports whether one of the pathspecs selects path.
func (g *globSet) MatchString(path string) bool {
	if g.fold {
		path = asciiLower(path)
	}
	runes := ""
	for i := range g.alts {
		a := &g.alts[i]
		if path == a.literal || (strings.HasPrefix(path, a.literal) && path[len(a.literal)] == '/') {
			return true
		}
		if a.wild == nil || !containsAll(path, a.needs) {
			continue
		}
		if runes == "" {
			runes = byteRunes(path)
		}
		if a.wild.MatchString(runes) {
			return true
		}
	}
	return false
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// globMatcher turns :(glob) pathspec bodies into one matcher that selects
// a path when git would, read as git reads them (dir.c's
// match_pathspec_item): the body itself, taken literally, naming the path
// or a directory above it; else the body as a wildmatch pattern with
// WM_PATHNAME over the whole path: "*" and "?" stay within a segment, "**"
// as a whole segment crosses them ("**/" any leading directories, "/**"
// anything below), "[...]" a class that never matches "/" ("[!...]" or
// "[^...]" negated, ranges, [:alpha:] and the other classes of the C
// locale), "\" quotes. A class that is not closed, a class name git does
// not know and a trailing "\" make the pattern match nothing. Matching is
// on bytes, as git's is, and with fold ignores ASCII case as icase magic
// does (a class's own letters, as in git, are not folded). nil for no
// globs.
func globMatcher(globs []string, fold bool) *globSet {
	if len(globs) == 0 {
		return nil
	}
	set := &globSet{fold: fold}
	for _, g := range globs {
		a := globAlt{literal: g}
		if fold {
			a.literal = asciiLower(g)
		}
		if strings.ContainsAny(g, `*?[\`) {
			if re, ok := wildRegexp(g, fold); ok {
				a.wild = regexp.MustCompile(`^(?s:` + re + `)$`)
				a.needs = literalRuns(g, fold)
			}
		}
		set.alts = append(set.alts, a)
	}
	return set
}

// literalRuns lists the runs of plain bytes of a wildmatch pattern (no
// wildcard, class, quoted byte or "/" in them, "/" being optional next to
// "**"), lowercased with fold as wildRegexp lowercases them: every path
// the pattern matches holds each.
func literalRuns(g string, fold bool) []string {
	var runs []string
	var run strings.Builder
	flush := func() {
		if run.Len() > 0 {
			runs = append(runs, run.String())
			run.Reset()
		}
	}
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*', '?', '/':
			flush()
		case '\\':
			flush()
			i++
		case '[':
			flush()
			if end, _, problem := parseClass(g, i, fold); problem == "" {
				i = end
			}
		default:
			if fold && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			run.WriteByte(c)
		}
	}
	flush()
	return runs
}

// byteRunes maps each byte of s to the rune of the same number, so that a
// regexp matches bytes as git does: "?" is one byte, even of a UTF-8
// sequence.
func byteRunes(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// GlobsSelectFile reports whether globs (patterns as TranslateGlob reads
// them) select at least one file a search at rev (a full commit id; "" for
// the work tree's tracked files) would read: submodules do not count, nor
// files exclude removes (:(exclude,glob,icase) bodies, as
// GrepOptions.Exclude). It lists the commit's tree (or the index) and stops
// at the first file selected; for a commit the answer is kept.
func (r *Repo) GlobsSelectFile(ctx context.Context, rev string, globs, exclude []string) (bool, error) {
	include, drop := globMatcher(TranslateGlobs(globs), false), globMatcher(exclude, true)
	if include == nil {
		return true, nil
	}
	key := ""
	if rev != "" {
		key = "globs-select\x00" + rev + "\x00" + strings.Join(globs, "\x00") + "\x00\x00" + strings.Join(exclude, "\x00")
		if v, ok := r.memo.get(key); ok {
			return v.(bool), nil
		}
	}
	c := gitCommand("ls-files", "-z", "--stage") // "MODE OID STAGE\tPATH": the index only
	if rev != "" {
		c = gitCommand("ls-tree", "-r", "-z", "--full-tree").revs(rev) // "MODE TYPE OID\tPATH"
	}
	found := false
	err := r.stream(ctx, c, func(stdout io.Reader) error {
		// Each record may be matched twice, over a long path.
		z := newNulRecords(ctx, bufio.NewReaderSize(stdout, 64<<10), grepPathMax+128, 64)
		for {
			rec, cut, err := z.next()
			if err == io.EOF {
				return nil
			}
			if err != nil && err != io.ErrUnexpectedEOF {
				return err
			}
			head, path, ok := strings.Cut(string(rec), "\t")
			if !ok {
				return fmt.Errorf("git %s: unexpected record %q", c.sub(), rec)
			}
			if !cut && !strings.HasPrefix(head, "160000 ") && include.MatchString(path) && (drop == nil || !drop.MatchString(path)) {
				found = true
				return nil // enough: git is stopped
			}
			if err != nil {
				return nil // the last record, without its NUL
			}
		}
	})
	if err != nil {
		return false, err
	}
	if key != "" {
		r.memo.put(key, found, len(key))
	}
	return found, nil
}
