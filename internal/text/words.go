package text

import (
	"fmt"
	"strconv"
	"strings"
)

// Count says n things in words: "1 file", "3 files", "0 files".
func Count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %s", n, Plural(thing))
}

// Plural is the plural of the nouns replies count: "entries", "matches".
func Plural(thing string) string {
	switch {
	case strings.HasSuffix(thing, "y"):
		return strings.TrimSuffix(thing, "y") + "ies"
	case strings.HasSuffix(thing, "ch"), strings.HasSuffix(thing, "sh"), strings.HasSuffix(thing, "s"), strings.HasSuffix(thing, "x"):
		return thing + "es"
	}
	return thing + "s"
}

// ShownRange says which items of a list a page holds: "files 3–4 of 9
// shown", or that it holds none from an offset past the end.
func ShownRange(from, n, total int, thing string) string {
	if n == 0 {
		return fmt.Sprintf("no %s from offset %d (there are %d)", Plural(thing), from, total)
	}
	return fmt.Sprintf("%s %d–%d of %d shown", Plural(thing), from+1, from+n, total)
}

// Thousands writes n with commas: 55000 → "55,000".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
