package git

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Globs as agents expect them: the patterns a caller gives (search_code's
// pathGlobs, list_files') are read as lines of a .gitignore are read, and
// TranslateGlob turns each into the :(glob) pathspecs git matches:
//
//	pattern       selects                                  pathspecs (after :(glob))
//	*.c           a.c, xdiff/xutils.c (a name, any depth)  **/*.c, **/*.c/**
//	Makefile      Makefile, sub/Makefile, Makefile/x       **/Makefile, **/Makefile/**
//	src/*.c       src/a.c, not src/sub/b.c (anchored)      src/*.c, src/*.c/**
//	/Makefile     Makefile only (a leading / anchors)      Makefile, Makefile/**
//	src/**/*.go   src/a.go, src/x/y/b.go                   src/**/*.go, src/**/*.go/**
//	docs/         everything under any directory docs      **/docs/**
//	src/util/     everything under src/util                src/util/**
//
// As in .gitignore, a pattern that matches a directory selects everything
// under it; "**" as a whole path segment crosses directories and any other
// run of "*" is one "*"; "?" is one byte but "/"; "[...]" a class ("[!...]"
// or "[^...]" negated); "\" quotes the next character.

// TranslateGlob turns one pattern into the bodies of the :(glob) pathspecs
// (to be given to git after ":(glob)") that together select what the
// pattern selects, read as a .gitignore line: without "/" but a trailing
// one it matches a name at any depth; with a "/" at the start or in the
// middle it is anchored at the root (a leading "/" is dropped); a trailing
// "/" selects the directories it matches, that is everything under them;
// otherwise each body X comes with X/**, for a directory X matches. Empty
// and "." segments are dropped; "" and "/" select every file ("**").
//
// The pattern is not checked otherwise: callers refuse ".." segments and
// what cannot match (an unclosed "[", a trailing "\") before, as
// server.checkGlobs does.
func TranslateGlob(pattern string) []string {
	dirOnly := strings.HasSuffix(pattern, "/")
	trimmed := strings.TrimRight(pattern, "/")
	anchored := strings.Contains(trimmed, "/")
	var segs []string
	for _, seg := range strings.Split(trimmed, "/") {
		switch {
		case seg == "" || seg == ".":
			continue
		case strings.Trim(seg, "*") == "" && len(seg) >= 2:
			seg = "**"
			if len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue // "**/**" is "**"
			}
		default:
			seg = oneStar(seg)
		}
		segs = append(segs, seg)
	}
	body := strings.Join(segs, "/")
	switch {
	case body == "" || body == "**":
		return []string{"**"}
	case !anchored && !strings.HasPrefix(body, "**/"):
		body = "**/" + body
	}
	switch {
	case strings.HasSuffix(body, "/**"):
		return []string{body}
	case dirOnly:
		return []string{body + "/**"}
	}
	return []string{body, body + "/**"}
}

// TranslateGlobs is TranslateGlob of every pattern, in order.
func TranslateGlobs(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		out = append(out, TranslateGlob(p)...)
	}
	return out
}

// oneStar makes every run of unquoted "*" in a segment one "*", as
// .gitignore reads "a**b" (git's pathspecs call such runs invalid).
func oneStar(seg string) string {
	if !strings.Contains(seg, "**") {
		return seg
	}
	var b strings.Builder
	star := false // the byte written last is an unquoted "*"
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case c == '\\' && i+1 < len(seg):
			b.WriteByte(c)
			i++
			b.WriteByte(seg[i])
			star = false
		case c == '*' && star:
		default:
			b.WriteByte(c)
			star = c == '*'
		}
	}
	return b.String()
}

// GlobProblem says why a glob could never select a file the way it is
// written, or "": an unclosed "[" (git would match it only as a literal
// name), an unknown "[:class:]", a trailing "\".
func GlobProblem(glob string) string {
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '\\':
			if i+1 == len(glob) {
				return `it ends with a "\" that quotes nothing`
			}
			i++
		case '[':
			end, _, problem := parseClass(glob, i, false)
			if problem != "" {
				return problem
			}
			i = end
		}
	}
	return ""
}

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

// byteRegexp is the regexp of one byte (as byteRunes maps it).
func byteRegexp(b byte) string { return fmt.Sprintf(`\x{%x}`, b) }

// wildRegexp is the regexp of a wildmatch pattern (see globMatcher), or
// false when the pattern can match nothing. With fold, it matches a path
// lowercased: its own bytes are lowercased too, but for those a "\"
// quotes and the members of a class, which git's wildmatch compares as
// they are.
func wildRegexp(g string, fold bool) (string, bool) {
	// git matches the part before the first wildcard literally and hands
	// wildmatch the rest as a pattern of its own: a "**" there starts it.
	firstWild := strings.IndexAny(g, `*?[\`)
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '\\':
			if i+1 == len(g) {
				return "", false // quotes nothing: git's wildmatch never matches
			}
			i++
			b.WriteString(byteRegexp(g[i]))
		case '?':
			b.WriteString(`[^/]`)
		case '*':
			j := i
			for j < len(g) && g[j] == '*' {
				j++
			}
			atStart := i == 0 || i == firstWild || g[i-1] == '/'
			switch {
			case j-i == 1 || !atStart:
				b.WriteString(`[^/]*`)
			case j == len(g):
				b.WriteString(`.*`)
			case g[j] == '/':
				b.WriteString(`(?:.*/)?`) // any leading directories, none included
				j++
			case g[j] == '\\' && j+1 < len(g) && g[j+1] == '/':
				b.WriteString(`.*`) // then the quoted "/": at least one directory
			default:
				b.WriteString(`[^/]*`)
			}
			i = j - 1
		case '[':
			end, set, problem := parseClass(g, i, fold)
			if problem != "" {
				return "", false
			}
			b.WriteString(classRegexp(set))
			i = end
		default:
			if fold && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteString(byteRegexp(c))
		}
	}
	return b.String(), true
}

// classRegexp is a regexp class of the bytes in set, "/" left out.
func classRegexp(set *[256]bool) string {
	var b strings.Builder
	b.WriteByte('[')
	empty := true
	for lo := 0; lo < 256; lo++ {
		if !set[lo] || lo == '/' {
			continue
		}
		hi := lo
		for hi+1 < 256 && set[hi+1] && hi+1 != '/' {
			hi++
		}
		b.WriteString(byteRegexp(byte(lo)))
		if hi > lo {
			b.WriteString("-" + byteRegexp(byte(hi)))
		}
		empty = false
		lo = hi
	}
	if empty {
		return `[^\x{0}-\x{10FFFF}]` // matches nothing
	}
	b.WriteByte(']')
	return b.String()
}

// parseClass reads the class that starts with the "[" at g[i] as git's
// wildmatch does: an optional "!" or "^" negates it; its first member may
// be "]"; "\" quotes a member; "a-z" is a range unless "-" comes first or
// last; "[:name:]" is a class of the C locale; it ends at the next "]". It
// returns the index of that "]" and the set of bytes (0-255) the class
// matches, as they are compared with a path's byte (lowercased when fold,
// as WM_CASEFOLD does). problem says why the class can match nothing.
func parseClass(g string, i int, fold bool) (end int, set *[256]bool, problem string) {
	var members [256]bool
	var ranges [][2]byte
	var named []string
	j := i + 1
	negated := false
	if j < len(g) && (g[j] == '!' || g[j] == '^') {
		negated = true
		j++
	}
	prev := -1 // the previous single member, which a "-" can start a range from
	unclosed := fmt.Sprintf(`the "[" at byte %d is not closed by a "]"`, i+1)
	for first := true; ; first = false {
		if j >= len(g) {
			return 0, nil, unclosed
		}
		c := g[j]
		if c == ']' && !first {
			break
		}
		switch {
		case c == '\\':
			j++
			if j >= len(g) {
				return 0, nil, unclosed
			}
			members[g[j]] = true
			prev = int(g[j])
		case c == '-' && prev >= 0 && j+1 < len(g) && g[j+1] != ']':
			j++
			hi := g[j]
			if hi == '\\' {
				j++
				if j >= len(g) {
					return 0, nil, unclosed
				}
				hi = g[j]
			}
			ranges = append(ranges, [2]byte{byte(prev), hi})
			prev = -1
		case c == '[' && j+1 < len(g) && g[j+1] == ':':
			k := j + 2
			for k < len(g) && g[k] != ']' {
				k++
			}
			if k >= len(g) {
				return 0, nil, unclosed
			}
			if k-(j+2) < 1 || g[k-1] != ':' {
				members['['] = true // no ":]": the "[" is a member
				prev = '['
				break
			}
			name := g[j+2 : k-1]
			if posixClass(name, 'a', false) == nil {
				return 0, nil, fmt.Sprintf(`"[:%s:]" is not a character class git knows`, name)
			}
			named = append(named, name)
			prev = -1
			j = k
		default:
			members[c] = true
			prev = int(c)
		}
		j++
	}
	set = new([256]bool)
	for t := 0; t < 256; t++ {
		in := members[t]
		for _, r := range ranges {
			if (byte(t) >= r[0] && byte(t) <= r[1]) ||
				(fold && 'a' <= t && t <= 'z' && byte(t-'a'+'A') >= r[0] && byte(t-'a'+'A') <= r[1]) {
				in = true
			}
		}
		for _, n := range named {
			if *posixClass(n, byte(t), fold) {
				in = true
			}
		}
		set[t] = in != negated
	}
	return j, set, ""
}

// posixClass tells whether byte t is in the named class of the C locale
// (nil: no such class). With fold, [:upper:] takes lowercase letters too,
// as git's wildmatch does.
func posixClass(name string, t byte, fold bool) *bool {
	upper, lower, digit := 'A' <= t && t <= 'Z', 'a' <= t && t <= 'z', '0' <= t && t <= '9'
	alpha := upper || lower
	graph := 0x21 <= t && t <= 0x7e
	var in bool
	switch name {
	case "alnum":
		in = alpha || digit
	case "alpha":
		in = alpha
	case "blank":
		in = t == ' ' || t == '\t'
	case "cntrl":
		in = t < 0x20 || t == 0x7f
	case "digit":
		in = digit
	case "graph":
		in = graph
	case "lower":
		in = lower
	case "print":
		in = graph || t == ' '
	case "punct":
		in = graph && !alpha && !digit
	case "space": // git's own isspace: not \v or \f
		in = t == ' ' || t == '\t' || t == '\n' || t == '\r'
	case "upper":
		in = upper || (fold && lower)
	case "xdigit":
		in = digit || ('a' <= t && t <= 'f') || ('A' <= t && t <= 'F')
	default:
		return nil
	}
	return &in
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
		br := bufio.NewReaderSize(stdout, 64<<10)
		var rec []byte
		for n := 0; ; n++ {
			// Each record may be matched twice, over a long path.
			if n%64 == 63 && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			var cut bool
			var err error
			rec, cut, err = readField(br, 0, grepPathMax+128, rec)
			if err == io.EOF && len(rec) == 0 {
				return nil
			}
			if err != nil && err != io.EOF {
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
			if err == io.EOF {
				return nil
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
