package globs

import (
	"fmt"
	"strings"
)

// byteRegexp is the regexp of one byte (as byteRunes maps it).
func byteRegexp(b byte) string { return fmt.Sprintf(`\x{%x}`, b) }

// wildRegexp is the regexp of a wildmatch pattern (see Compile), or
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
