package argcheck

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// maxQuoted bounds how many names or characters of input a message repeats.
const (
	maxQuotedNames = 5
	maxQuotedLen   = 40
)

// unknownParams says which names the tool does not take, suggests for each
// the closest one it does take (closestParam; none already given), and
// lists them all.
func unknownParams(unknown, known []string, given map[string]any) string {
	quoted := make([]string, 0, maxQuotedNames)
	var hints []string
	shown := unknown[:min(len(unknown), maxQuotedNames)]
	for _, k := range shown {
		quoted = append(quoted, quoteString(k))
		if c := closestParam(k, known, given); c != "" {
			hint := strconv.Quote(c)
			if len(shown) > 1 {
				hint += " for " + quoteString(k)
			}
			hints = append(hints, hint)
		}
	}
	list := strings.Join(quoted, ", ")
	if len(unknown) > maxQuotedNames {
		list += fmt.Sprintf(" and %d more", len(unknown)-maxQuotedNames)
	}
	what := "there is no parameter " + list
	if len(unknown) > 1 {
		what = "there are no parameters " + list
	}
	if len(hints) > 0 {
		what += "; did you mean " + strings.Join(hints, ", ") + "?"
	}
	if len(known) == 0 {
		return what + " (this tool takes none)"
	}
	return what + " (the parameters are " + strings.Join(known, ", ") + ")"
}

// closestParam is the known name closest to the unknown name u, or "" when
// none is close. Names are compared normalized (lowercase, without "_" and
// "-"), so file_path, filePath and filepath are the same name. In order of
// preference: the same normalized name; a normalized name that begins or
// ends the other (file_path → path, start → startLine), the shorter of
// the two at least 3 letters long; a Levenshtein distance of at most 2, or
// at most a third of the longer name. Within a rule the smaller distance
// wins, then the earlier parameter. Names already given are not suggested.
func closestParam(u string, known []string, given map[string]any) string {
	nu := normalizeParam(u)
	if nu == "" || len(nu) > maxQuotedLen {
		return ""
	}
	best, bestRule, bestDist := "", 3, 0
	for _, k := range known {
		if _, ok := given[k]; ok {
			continue
		}
		nk := normalizeParam(k)
		d := Levenshtein(nu, nk)
		rule := 3 // not close
		switch {
		case nu == nk:
			rule = 0
		case min(len(nu), len(nk)) >= 3 && (strings.HasPrefix(nu, nk) || strings.HasSuffix(nu, nk) ||
			strings.HasPrefix(nk, nu) || strings.HasSuffix(nk, nu)):
			rule = 1
		case d <= 2 || d*3 <= max(len(nu), len(nk)):
			rule = 2
		}
		if rule < bestRule || (rule == bestRule && rule < 3 && d < bestDist) {
			best, bestRule, bestDist = k, rule, d
		}
	}
	return best
}

// normalizeParam is a parameter name lowercased, without "_" and "-".
func normalizeParam(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, name)
}

// Levenshtein is the edit distance between a and b, in bytes (parameter
// names are ASCII; callers bound their length).
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
