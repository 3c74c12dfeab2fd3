package paging

import (
	"strings"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// A text in parts (a long commit message, a pull request's description):
// each part is the longest start of what is left that fits, cut where a
// reader can pick it up again.

// FitText is the longest prefix of s (at most limit bytes) for which fits
// holds: cut after a line where at least one line fits, else inside the
// first line at a UTF-8 boundary. It is never empty when s is not, so
// every part moves on (the reply's backstop catches a part that still
// does not fit).
func FitText(s string, limit int, fits func(string) bool) string {
	if len(s) <= limit && fits(s) {
		return s
	}
	var ends []int // after each line that could fit by its size
	for i := 0; i < len(s) && i < limit; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 || i+j+1 > limit {
			break
		}
		i += j + 1
		ends = append(ends, i)
	}
	// The longest run of whole lines that fits: ends[lo-1] fits, ends[hi-1] does not.
	lo, hi := 0, len(ends)+1
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(s[:ends[mid-1]]) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo > 0 {
		return s[:ends[lo-1]]
	}
	// Not one whole line: as much of the first as fits.
	first := s
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		first = s[:j+1]
	}
	lo, hi = 0, min(len(first), limit)+1 // a cut at lo bytes fits, at hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if cut, _ := text.CutUTF8(first, mid); fits(cut) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if cut, _ := text.CutUTF8(first, lo); cut != "" {
		return cut
	}
	_, size := utf8.DecodeRuneInString(s)
	return s[:size]
}

// CutText keeps the longest start of m whose cost (its JSON as shown) is
// at most room, ending after a newline when one is in its second
// half, and says how many bytes it left out. It keeps at least one
// character, so that a message in parts always moves on.
func CutText(m string, room int, cost func(string) int) (string, int) {
	if cost(m) <= room {
		return m, 0
	}
	lo, hi := 0, len(m) // a cut at lo fits, at hi it does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		cut, _ := text.CutUTF8(m, mid)
		if cost(cut) <= room {
			lo = mid
		} else {
			hi = mid
		}
	}
	cut, _ := text.CutUTF8(m, lo)
	if i := strings.LastIndexByte(cut, '\n'); i >= len(cut)/2 {
		cut = cut[:i+1]
	}
	if cut == "" {
		_, size := utf8.DecodeRuneInString(m)
		cut = m[:size]
	}
	return cut, len(m) - len(cut)
}
