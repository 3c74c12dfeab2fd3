package text

import (
	"strings"
	"unicode/utf8"
)

// Items cuts s into texts of at most limit each, counted in u, that joined
// in order are s: the text items of a result for a client that takes each
// item by itself (VS Code files a text item over 8,192 UTF-16 units, not a
// result: docs/clients.md). An item ends after a line break where one
// leaves it at least half full, so lines stay whole; a line longer than
// that is cut between two characters, never where what follows would read
// as one of the server's lines. A limit under 64 units is taken as 64.
func Items(s string, limit int, u Unit) []string {
	limit = max(limit, 64)
	var out []string
	for {
		if _, n := Lengths(s, u); n <= limit {
			return append(out, s)
		}
		cut := itemCut(s, limit, u)
		out, s = append(out, s[:cut]), s[cut:]
	}
}

// itemCut is where the first item of s ends: s costs more than limit.
func itemCut(s string, limit int, u Unit) int {
	most := unitPrefix(s, limit, u)
	if nl := strings.LastIndexByte(s[:most], '\n'); nl >= 0 {
		if _, n := Lengths(s[:nl+1], u); 2*n >= limit {
			return nl + 1
		}
	}
	// Within a long line: step back over characters while the rest would
	// start as one of the server's lines does (a "[note: …" in a file).
	cut := most
	for cut > 0 && ReadsAsOurs(lineOf(s[cut:])) {
		_, size := utf8.DecodeLastRuneInString(s[:cut])
		cut -= size
	}
	if cut == 0 {
		return most // the whole window reads as ours: nothing better
	}
	return cut
}

// unitPrefix is the longest prefix of s, cut between characters, that
// costs at most limit in u (at least one character).
func unitPrefix(s string, limit int, u Unit) int {
	n := 0
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		_, c := Lengths(s[i:i+size], u)
		if n+c > limit {
			return max(i, size)
		}
		n += c
		i += size
	}
	return len(s)
}

// lineOf is s up to its first line break.
func lineOf(s string) string {
	if i := strings.IndexAny(s, "\n\r"); i >= 0 {
		return s[:i]
	}
	return s
}
