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
// shown", or, of a page that holds none from an offset past the end, so
// (PastEnd): never a range that runs backwards, "files 51–50 of 50"
// (docs/security.md, review 4, finding 19).
func ShownRange(from, n, total int, thing string) string {
	switch {
	case n == 0 && from >= total:
		return PastEnd(from, total, thing)
	case n == 0:
		return fmt.Sprintf("no %s from offset %d (there are %d)", Plural(thing), from, total)
	}
	return fmt.Sprintf("%s %d–%d of %d shown", Plural(thing), from+1, from+n, total)
}

// PastEnd says that offset is past the last of the total things a list
// has: "offset 50 is past the last of 6 matches".
func PastEnd(offset, total int, thing string) string {
	switch total {
	case 0:
		return fmt.Sprintf("offset %d is past the end: there are no %s", offset, Plural(thing))
	case 1:
		return fmt.Sprintf("offset %d is past the only %s", offset, thing)
	}
	return fmt.Sprintf("offset %d is past the last of %d %s", offset, total, Plural(thing))
}

// Thousands writes n with commas: 55000 → "55,000".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
