package fold

import (
	"bytes"
	"strconv"
	"strings"
)

// separator ends the patterns; git's diff of the rest follows it.
const separator = "## the rest: git's own diff, byte for byte\n"

// The words of a pattern's line, after "#N COUNT line(s) ".
const (
	wordEdited  = "edited: "
	wordRemoved = "removed: "
	wordAdded   = "added: "
	arrow       = " → "
)

type shownPattern struct {
	Pattern
	sites []site
}

func render(files []patchFile, folded [][][]bool, patterns []shownPattern, patternLines, fullLines int) []byte {
	var b bytes.Buffer
	b.WriteString(summary(patternLines, fullLines, len(patterns)))
	for i, p := range patterns {
		writePatternLine(&b, i+1, p.Pattern)
		last := -1
		for _, s := range p.sites {
			if s.file != last {
				b.WriteByte('=')
				b.Write(quoteName(plainPath(files[s.file].header)))
				b.WriteByte('\n')
				last = s.file
			}
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(s.number))
			if p.Kind == Edited {
				b.WriteByte(':')
				b.WriteString(strconv.Itoa(s.col + 1))
				b.WriteByte(' ')
				b.Write(s.text)
			} else if len(s.text) > 0 {
				b.WriteByte(' ')
				b.WriteString(quoteText(s.text))
			}
			b.WriteByte('\n')
		}
	}
	b.WriteString(separator)
	writeRest(&b, files, folded)
	return b.Bytes()
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
