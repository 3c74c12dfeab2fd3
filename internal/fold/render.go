package fold

import (
	"bytes"
	"strconv"
	"strings"
)

// Separator ends the patterns; git's diff of the rest follows it, and
// SitesSeparator follows that, before the sites: what breaks a pattern is
// read before where the pattern is.
const (
	Separator      = "## the rest: git's own diff, byte for byte\n"
	SitesSeparator = "## the sites of the patterns, by file\n"
)

// The words of a pattern's line, after "#N COUNT line(s) ".
const (
	wordEdited  = "edited: "
	wordRemoved = "removed: "
	wordAdded   = "added: "
	arrow       = " → "
)

// render writes the folded text: the first line, the patterns, the
// Separator, the rest, the SitesSeparator and the sites by file in git's
// order.
func render(files []patchFile, folded [][][]bool, patterns []Pattern, sites []site, patternLines, fullLines int) []byte {
	var b bytes.Buffer
	b.WriteString(summary(patternLines, fullLines, len(patterns)))
	for i, p := range patterns {
		writePatternLine(&b, i+1, p)
	}
	b.WriteString(Separator)
	writeRest(&b, files, folded)
	b.WriteString(SitesSeparator)
	last := -1
	for i := 0; i < len(sites); {
		s := sites[i]
		if s.file != last {
			b.WriteByte('=')
			b.Write(quoteName(plainPath(files[s.file].header)))
			b.WriteByte('\n')
			last = s.file
		}
		j := i + 1
		for j < len(sites) && followsOn(sites[j-1], sites[j], patterns) {
			j++
		}
		writeSites(&b, sites[i:j], patterns)
		i = j
	}
	return b.Bytes()
}

// followsOn reports whether site b can share a line with site a: both
// lines removed, or both added, on lines one after the other of a file,
// under one indent.
func followsOn(a, b site, patterns []Pattern) bool {
	kind := patterns[a.pattern-1].Kind
	return kind != Edited && patterns[b.pattern-1].Kind == kind &&
		b.file == a.file && b.number == a.number+1 && bytes.Equal(a.text, b.text)
}

// writeSites writes ":LINE[:COL]#N[ TEXT]" for one site, or
// ":FIRST-LAST#N,N...[ INDENT]" for singles that follow on.
func writeSites(b *bytes.Buffer, sites []site, patterns []Pattern) {
	s, p := sites[0], &patterns[sites[0].pattern-1]
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(s.number))
	if len(sites) > 1 {
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(sites[len(sites)-1].number))
	}
	if p.Kind == Edited && impliedCol(s.text, p.Added) != s.col {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(s.col + 1))
	}
	b.WriteByte('#')
	for i, s := range sites {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s.pattern))
	}
	switch {
	case p.Kind == Edited && len(s.text) > 0:
		b.WriteByte(' ')
		b.Write(s.text)
	case p.Kind != Edited && len(s.text) > 0:
		b.WriteByte(' ')
		b.WriteString(quoteText(s.text))
	}
	b.WriteByte('\n')
}

// impliedCol is where an edited site that gives no column has its added
// middle: the one place it occurs in the new line, or the end of the line
// when it is empty; -1 when neither applies, and the site gives its column.
func impliedCol(newLine, added []byte) int {
	if len(added) == 0 {
		return len(newLine)
	}
	i := bytes.Index(newLine, added)
	if i < 0 || bytes.LastIndex(newLine, added) != i {
		return -1
	}
	return i
}

func summary(patternLines, fullLines, patterns int) string {
	total := patternLines + fullLines
	s := strconv.Itoa(patternLines) + " of " + plural(total, "changed line") + " follow " + plural(patterns, "pattern")
	verb := " are"
	if fullLines == 1 {
		verb = " is"
	}
	return s + "; " + strconv.Itoa(fullLines) + verb + " shown in full as git's diff below\n"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func writePatternLine(b *bytes.Buffer, number int, p Pattern) {
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(number))
	b.WriteByte(' ')
	b.WriteString(plural(p.Sites, "line"))
	b.WriteByte(' ')
	switch p.Kind {
	case Edited:
		b.WriteString(wordEdited)
		b.WriteString(quoteText(p.Removed))
		b.WriteString(arrow)
		b.WriteString(quoteText(p.Added))
	case Removed:
		b.WriteString(wordRemoved)
		b.WriteString(quoteText(p.Removed))
	case Added:
		b.WriteString(wordAdded)
		b.WriteString(quoteText(p.Added))
	}
	b.WriteByte('\n')
}

// quoteText writes text as a Go string literal: in backquotes when they show
// it as it is, else double-quoted with escapes, so that a space, a tab, an
// empty text or a byte that is not UTF-8 can be seen.
func quoteText(text []byte) string {
	s := string(text)
	if s != "" && strconv.CanBackquote(s) && !strings.ContainsRune(s, '\t') {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}
