package globs

import (
	"regexp"
	"strings"
)

// Set matches paths as git matches :(glob) pathspecs (with icase
// magic when fold), every body an alternative. Its MatchString is what
// grepSkips asks. Each body is matched on its own, its wildcard regexp run
// only on a path that holds every literal run of the body: one regexp of
// all the policy's bodies kept hundreds of states alive along a path, some
// milliseconds for an 800-byte path, a minute for a tree naming one large
// file under 20,000 such paths.
type Set struct {
	alts []globAlt
	fold bool
}

// globAlt is one body: its literal reading, and its wildcard one.
type globAlt struct {
	literal string         // names the path or a directory above it
	wild    *regexp.Regexp // nil: no wildcard, or one that matches nothing
	needs   []string       // runs of bytes every path wild matches holds
}

// Filter is the test of a path against globs as agents write them (the
// rules of Translate), matched as git matches the pathspecs they
// become: what search_code's pathGlobs select, for callers that filter a
// listing themselves (list_files). nil for no globs.
func Filter(globs []string) func(path string) bool {
	m := Compile(TranslateAll(globs), false)
	if m == nil {
		return nil
	}
	return m.MatchString
}

// MatchString reports whether one of the pathspecs selects path.
func (g *Set) MatchString(path string) bool {
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

// Compile turns :(glob) pathspec bodies into one matcher that selects
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
func Compile(globs []string, fold bool) *Set {
	if len(globs) == 0 {
		return nil
	}
	set := &Set{fold: fold}
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
