package diff

import "strings"

const devNull = "/dev/null"

// splitPair splits "A<sep>B" into its two names, either of which may be
// C-quoted. Unquoted names may themselves contain sep (git only quotes
// control characters, double quotes, backslashes and non-ASCII), so an
// unquoted pair is split only at its middle, and only when both halves name
// the same path after their two-byte a/ b/ prefixes, which holds for every
// git header except renames and copies. Callers fall back to splitOnce.
func splitPair(s, sep string) (a, b string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		if a, n, err := UnquoteC(s); err == nil {
			if rest, found := strings.CutPrefix(s[n:], sep); found {
				return a, oneName(rest), true
			}
		}
	}
	if strings.HasSuffix(s, `"`) {
		// Unquoted A, quoted B: try every sep followed by a quote. Each try
		// stops at the next unescaped quote, so this stays linear.
		for off := 0; ; {
			i := strings.Index(s[off:], sep)
			if i < 0 {
				break
			}
			i += off
			if j := i + len(sep); j < len(s) && s[j] == '"' {
				if b, n, err := UnquoteC(s[j:]); err == nil && j+n == len(s) {
					return s[:i], b, true
				}
			}
			off = i + 1
		}
	}
	if rest, found := strings.CutPrefix(s, devNull); found && strings.HasPrefix(rest, sep) {
		return devNull, rest[len(sep):], true
	}
	if first, found := strings.CutSuffix(s, devNull); found && strings.HasSuffix(first, sep) {
		return first[:len(first)-len(sep)], devNull, true
	}
	if n := len(s) - len(sep); n >= 4 && n%2 == 0 {
		h1, h2 := s[:n/2], s[n/2+len(sep):]
		if s[n/2:n/2+len(sep)] == sep && h1[2:] == h2[2:] {
			return h1, h2, true
		}
	}
	return "", "", false
}

// splitOnce is the weak fallback for unquoted pairs: split at sep when it
// occurs exactly once, so that the split cannot be wrong.
func splitOnce(s, sep string) (a, b string, ok bool) {
	i := strings.Index(s, sep)
	if i < 0 || strings.LastIndex(s, sep) != i {
		return "", "", false
	}
	return s[:i], s[i+len(sep):], true
}

// oneName decodes s if it is quoted; the quoted form must span all of s,
// otherwise s is taken verbatim (an unquoted name that starts with '"').
func oneName(s string) string {
	if !strings.HasPrefix(s, `"`) {
		return s
	}
	name, n, err := UnquoteC(s)
	if err != nil || n != len(s) {
		return s
	}
	return name
}

// sideName turns one side of a pair ("a/x", "b/x" or /dev/null) into a path.
// null reports /dev/null; ok is false when the expected prefix is missing.
func sideName(name, prefix string) (path string, null, ok bool) {
	if name == devNull {
		return "", true, true
	}
	path, ok = strings.CutPrefix(name, prefix)
	if !ok || path == "" {
		return "", false, false
	}
	return path, false, true
}

// fileLineName parses the name on a "--- " or "+++ " line (v is the text
// after that marker). Git and GNU diff append a TAB to unquoted names that
// contain spaces, and GNU diff a TAB plus timestamp, so an unquoted name
// ends at its last TAB; a quoted name ends at its closing quote.
func fileLineName(v, prefix string) (path string, null, ok bool) {
	if strings.HasPrefix(v, `"`) {
		if name, _, err := UnquoteC(v); err == nil {
			return sideName(name, prefix)
		}
	}
	if i := strings.LastIndexByte(v, '\t'); i >= 0 {
		v = v[:i]
	}
	return sideName(v, prefix)
}
