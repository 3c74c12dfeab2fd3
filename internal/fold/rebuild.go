package fold

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
)

func errSyntax(what string) error { return errors.New("fold: folded text: " + what) }

// sitesOfFile gathers one path's sites, over all patterns.
type sitesOfFile struct {
	path           []byte
	removed, added []numberedLine
	pairs          []pairSite
}

// Rebuild reads a folded text alone and returns Normalize of the patch it
// was folded from.
func Rebuild(folded []byte) ([]byte, error) {
	paths, rest, err := readPatterns(folded)
	if err != nil {
		return nil, err
	}
	restFiles, err := parsePatch(rest)
	if err != nil {
		return nil, err
	}
	out := make([]fileLines, 0, len(restFiles)+len(paths))
	inRest := map[string][]int{}
	for i := range restFiles {
		out = append(out, newFileLines(&restFiles[i]))
		inRest[string(out[i].gitLine)] = append(inRest[string(out[i].gitLine)], i)
	}
	for _, s := range paths {
		header := plainHeader(s.path)
		at := inRest[string(firstLine(header))]
		switch len(at) {
		case 0:
			out = append(out, fileLines{gitLine: firstLine(header), header: header})
			at = []int{len(out) - 1}
		case 1:
		default:
			return nil, errSyntax(fmt.Sprintf("%q is in the rest twice", s.path))
		}
		if err := out[at[0]].addSites(s.removed, s.added, s.pairs); err != nil {
			return nil, err
		}
	}
	return writeNormal(out), nil
}

// readPatterns reads the folded text's parts: the patterns before the
// Separator, the rest after it, and after the rest, past SitesSeparator,
// the sites of each path, which it returns in order with the rest. No
// line of the sites holds "\n", so the last SitesSeparator line is theirs.
func readPatterns(folded []byte) (paths []*sitesOfFile, rest []byte, err error) {
	first := firstLine(folded)
	if len(first) == 0 || first[len(first)-1] != '\n' {
		return nil, nil, errSyntax("no first line")
	}
	pos := len(first)
	var patterns []Pattern
	for {
		line := firstLine(folded[pos:])
		if len(line) == 0 || line[len(line)-1] != '\n' {
			return nil, nil, errSyntax("no Separator line")
		}
		pos += len(line)
		if string(line) == Separator {
			break
		}
		if len(line) < 2 || line[0] != '#' {
			return nil, nil, errSyntax(fmt.Sprintf("unexpected line %.40q before the Separator", line))
		}
		p, err := parsePatternLine(line[1:len(line)-1], len(patterns)+1)
		if err != nil {
			return nil, nil, err
		}
		patterns = append(patterns, p)
	}
	at := bytes.LastIndex(folded[pos-1:], []byte("\n"+SitesSeparator))
	if at < 0 {
		return nil, nil, errSyntax("no SitesSeparator line")
	}
	rest = folded[pos : pos+at]
	if paths, err = readSites(folded[pos+at+len(SitesSeparator):], patterns); err != nil {
		return nil, nil, err
	}
	return paths, rest, nil
}

// readSites reads the sites after SitesSeparator, each path's under its
// "=" line, and checks that each pattern lists as many as it says.
func readSites(b []byte, patterns []Pattern) (paths []*sitesOfFile, err error) {
	listed := make([]int, len(patterns)) // sites listed so far under each pattern
	var file *sitesOfFile
	byPath := map[string]bool{}
	for pos := 0; pos < len(b); {
		line := firstLine(b[pos:])
		if line[len(line)-1] != '\n' {
			return nil, errSyntax("no newline after the last site")
		}
		pos += len(line)
		if file != nil && len(file.removed)+len(file.added)+len(file.pairs) == 0 && line[0] == '=' {
			return nil, errSyntax(fmt.Sprintf("no sites under %q", file.path))
		}
		if len(line) < 2 {
			return nil, errSyntax("an empty line among the sites")
		}
		body := line[1 : len(line)-1]
		switch line[0] {
		case '=':
			path, err := unquoteName(body)
			if err != nil || len(path) == 0 {
				return nil, errSyntax(fmt.Sprintf("bad path %q", body))
			}
			if byPath[string(path)] {
				return nil, errSyntax(fmt.Sprintf("%q is listed twice", path))
			}
			byPath[string(path)] = true
			file = &sitesOfFile{path: path}
			paths = append(paths, file)
		case ':':
			if file == nil {
				return nil, errSyntax("a site before any path")
			}
			if err := addSites(file, patterns, listed, body); err != nil {
				return nil, err
			}
		default:
			return nil, errSyntax(fmt.Sprintf("unexpected line %.40q among the sites", line))
		}
	}
	if file != nil && len(file.removed)+len(file.added)+len(file.pairs) == 0 {
		return nil, errSyntax(fmt.Sprintf("no sites under %q", file.path))
	}
	for i, p := range patterns {
		if listed[i] != p.Sites {
			return nil, errSyntax(fmt.Sprintf("pattern %d says %d lines and lists %d", i+1, p.Sites, listed[i]))
		}
	}
	return paths, nil
}

// parsePatternLine reads "N COUNT line(s) KIND: TEXT[ → TEXT]" (after '#').
func parsePatternLine(body []byte, number int) (Pattern, error) {
	bad := errSyntax(fmt.Sprintf("bad pattern line %.60q", body))
	n, rest, err := parseNumber(body)
	if err != nil || n != number || len(rest) == 0 || rest[0] != ' ' {
		return Pattern{}, bad
	}
	count, rest, err := parseNumber(rest[1:])
	if err != nil {
		return Pattern{}, bad
	}
	switch {
	case bytes.HasPrefix(rest, []byte(" lines ")):
		rest = rest[len(" lines "):]
	case count == 1 && bytes.HasPrefix(rest, []byte(" line ")):
		rest = rest[len(" line "):]
	default:
		return Pattern{}, bad
	}
	p := Pattern{Sites: count}
	var text string
	switch {
	case bytes.HasPrefix(rest, []byte(wordEdited)):
		p.Kind = Edited
		text, rest, err = unquotePrefix(rest[len(wordEdited):])
		if err != nil || !bytes.HasPrefix(rest, []byte(arrow)) {
			return Pattern{}, bad
		}
		p.Removed = []byte(text)
		text, rest, err = unquotePrefix(rest[len(arrow):])
		p.Added = []byte(text)
	case bytes.HasPrefix(rest, []byte(wordRemoved)):
		p.Kind = Removed
		text, rest, err = unquotePrefix(rest[len(wordRemoved):])
		p.Removed = []byte(text)
	case bytes.HasPrefix(rest, []byte(wordAdded)):
		p.Kind = Added
		text, rest, err = unquotePrefix(rest[len(wordAdded):])
		p.Added = []byte(text)
	default:
		return Pattern{}, bad
	}
	if err != nil || len(rest) != 0 {
		return Pattern{}, bad
	}
	return p, nil
}

func unquotePrefix(b []byte) (string, []byte, error) {
	q, err := strconv.QuotedPrefix(string(b))
	if err != nil {
		return "", nil, err
	}
	s, err := strconv.Unquote(q)
	return s, b[len(q):], err
}

// addSites reads ":LINE[:COL]#N[ TEXT]", or ":FIRST-LAST#N,N...[ INDENT]"
// for singles on lines one after the other (after ':'), and counts each
// site in listed.
func addSites(f *sitesOfFile, patterns []Pattern, listed []int, body []byte) error {
	bad := errSyntax(fmt.Sprintf("bad site %.40q", body))
	number, rest, err := parseNumber(body)
	if err != nil || number == 0 {
		return bad
	}
	last, col := number, -1
	if len(rest) > 0 && rest[0] == '-' {
		if last, rest, err = parseNumber(rest[1:]); err != nil || last <= number {
			return bad
		}
	}
	if len(rest) > 0 && rest[0] == ':' {
		if col, rest, err = parseNumber(rest[1:]); err != nil || col == 0 {
			return bad
		}
		col--
	}
	var ns []int
	for sep := byte('#'); len(rest) > 0 && rest[0] == sep; sep = ',' {
		var n int
		if n, rest, err = parseNumber(rest[1:]); err != nil || n == 0 || n > len(patterns) {
			return bad
		}
		ns = append(ns, n)
	}
	if len(ns) != last-number+1 {
		return bad
	}
	var text []byte
	if len(rest) > 0 {
		if rest[0] != ' ' || len(rest) == 1 {
			return bad
		}
		text = rest[1:]
	}
	p := &patterns[ns[0]-1]
	if p.Kind == Edited {
		if implied := impliedCol(text, p.Added); col < 0 {
			col = implied
		} else if col == implied {
			return bad // only the writer's spelling, so a site has one form
		}
		if col < 0 || len(ns) > 1 {
			return bad
		}
		listed[ns[0]-1]++
		f.pairs = append(f.pairs, pairSite{number: number, col: col, text: text, removed: p.Removed, added: p.Added})
		return nil
	}
	var indent string
	if text != nil {
		if indent, rest, err = unquotePrefix(text); err != nil || len(rest) != 0 || indent == "" {
			return bad
		}
	}
	if col >= 0 {
		return bad
	}
	for i, n := range ns {
		q := &patterns[n-1]
		if q.Kind != p.Kind {
			return bad
		}
		listed[n-1]++
		line := append([]byte(indent), q.Removed...)
		if q.Kind == Added {
			line = append([]byte(indent), q.Added...)
		}
		l := numberedLine{number: number + i, body: append(line, '\n')}
		if q.Kind == Removed {
			f.removed = append(f.removed, l)
		} else {
			f.added = append(f.added, l)
		}
	}
	return nil
}

// pairSite is an edited line of a pattern: the new line, and the edit that
// gives back the old one.
type pairSite struct {
	number, col    int
	text           []byte
	removed, added []byte
}

// addSites merges a file's pattern sites with its lines from the rest. The
// old line of an edited pair is not in the folded text: it is the new
// line's number plus the lines removed before its partner less the lines
// added before it. The walk below takes the added lines in order and counts
// a removed line once its place is reached; a pair joins the i-th removed
// and the i-th added line of a run, so both counts stand at the run's start
// plus i when the pair is reached.
func (f *fileLines) addSites(removed, added []numberedLine, pairs []pairSite) error {
	f.removed = append(f.removed, removed...)
	sortLines(f.removed)
	type event struct {
		number int
		pair   int // index in pairs, or -1 for an added line
	}
	events := make([]event, 0, len(f.added)+len(added)+len(pairs))
	for _, l := range f.added {
		events = append(events, event{l.number, -1})
	}
	for _, l := range added {
		events = append(events, event{l.number, -1})
	}
	for i, p := range pairs {
		events = append(events, event{p.number, i})
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].number < events[j].number })
	delta, next := 0, 0
	var partners []numberedLine
	for _, e := range events {
		for next < len(f.removed) && f.removed[next].number-delta <= e.number {
			delta++
			next++
		}
		if e.pair < 0 {
			delta--
			continue
		}
		p := pairs[e.pair]
		oldText, ok := undoEdit(p.text, p.removed, p.added, p.col)
		if !ok {
			return errSyntax(strconv.Itoa(p.number) + ": the edit is not in the line")
		}
		partners = append(partners, numberedLine{number: e.number + delta, body: append(oldText, '\n')})
	}
	f.removed = append(f.removed, partners...)
	sortLines(f.removed)
	f.added = append(f.added, added...)
	for _, p := range pairs {
		f.added = append(f.added, numberedLine{number: p.number, body: append(p.text[:len(p.text):len(p.text)], '\n')})
	}
	sortLines(f.added)
	return nil
}

func sortLines(lines []numberedLine) {
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].number < lines[j].number })
}
