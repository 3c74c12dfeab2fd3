package diff

import (
	"errors"
	"strings"
)

var errBadQuote = errors.New("diff: malformed quoted name")

// UnquoteC decodes the C-style quoted string at the start of s (s[0] == '"'),
// the form git uses for paths with control characters, '"', '\\' or (with
// core.quotePath) non-ASCII bytes. It returns the decoded bytes and how many
// bytes of s the quoted string occupied, closing quote included.
func UnquoteC(s string) (string, int, error) {
	if len(s) == 0 || s[0] != '"' {
		return "", 0, errBadQuote
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			i++
			if i >= len(s) {
				return "", 0, errBadQuote
			}
			switch e := s[i]; e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '\\', '"':
				b.WriteByte(e)
			case '0', '1', '2', '3':
				// Git always writes exactly three octal digits.
				if i+2 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) {
					return "", 0, errBadQuote
				}
				b.WriteByte((e-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
				i += 2
			default:
				return "", 0, errBadQuote
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errBadQuote // no closing quote
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
