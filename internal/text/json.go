// Package text holds pure helpers for what the tools return: line slicing over
// a stream, JSON-size accounting for reply budgets, binary detection and
// UTF-8-safe cutting. Nothing here does I/O beyond the reader it is handed.
package text

import "unicode/utf8"

// JSONLen returns how many bytes s takes inside a JSON string (without the
// quotes) as encoding/json writes it with HTML escaping on. The MCP wire
// escapes no more than that, so it is an upper bound for reply budgets.
func JSONLen[B []byte | string](s B) int {
	n, _ := Lengths(s, JSONBytes)
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

// Unit is what a client counts a tool result's text in before it cuts or
// files it (docs/clients.md).
type Unit uint8

const (
	// JSONBytes: the text as JSON (Codex counts the content array's), at
	// least what any other unit counts.
	JSONBytes Unit = iota
	// UTF16Units: the text's UTF-16 code units, JavaScript's length (VS
	// Code, Gemini CLI).
	UTF16Units
	// UTF8Bytes: the text's UTF-8 bytes (opencode).
	UTF8Bytes
)

func (u Unit) String() string {
	switch u {
	case UTF16Units:
		return "UTF-16 units"
	case UTF8Bytes:
		return "UTF-8 bytes"
	}
	return "bytes of JSON"
}

// Lengths is s's length as JSON (JSONLen) and in unit u, in one pass. The
// client reads the text as JSON decodes it, so an invalid byte is U+FFFD:
// one UTF-16 unit, three UTF-8 bytes.
func Lengths[B []byte | string](s B, u Unit) (jsonLen, unitLen int) {
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			jsonLen += int(asciiJSONLen[b])
			unitLen++
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		invalid := c == utf8.RuneError && size == 1
		switch {
		case invalid || c == '\u2028' || c == '\u2029':
			jsonLen += 6
		default:
			jsonLen += size
		}
		switch {
		case u == UTF8Bytes && invalid:
			unitLen += 3 // U+FFFD
		case u == UTF8Bytes:
			unitLen += size
		case c >= 0x10000: // a surrogate pair
			unitLen += 2
		default:
			unitLen++
		}
		i += size
	}
	if u == JSONBytes {
		unitLen = jsonLen
	}
	return jsonLen, unitLen
}
