// Package text holds pure helpers for what the tools return: line slicing over
// a stream, JSON-size accounting for reply budgets, binary detection and
// UTF-8-safe cutting. Nothing here does I/O beyond the reader it is handed.
package text

import "unicode/utf8"

// JSONLen returns how many bytes s takes inside a JSON string (without the
// quotes) as encoding/json writes it with HTML escaping on. The MCP wire
// escapes no more than that, so it is an upper bound for reply budgets.
func JSONLen[B []byte | string](s B) int {
	n := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			n += int(asciiJSONLen[b])
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		switch {
		case c == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case c == '\u2028' || c == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// asciiJSONLen is what each ASCII byte takes in a JSON string.
var asciiJSONLen = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		switch {
		case b == '\\' || b == '"' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
			t[b] = 2
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			t[b] = 6 // \u00XX
		default:
			t[b] = 1
		}
	}
	return t
}()
