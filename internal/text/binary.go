package text

import (
	"bytes"
	"unicode/utf8"
)

// SniffLen is how much of a file git looks at to call it binary.
const SniffLen = 8000

// IsBinary decides as git does: a NUL byte within the first SniffLen bytes.
func IsBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), SniffLen)], 0) >= 0
}

// CutUTF8 returns the longest prefix of s that is at most n bytes long and
// does not end inside a UTF-8 sequence, and whether anything was cut.
func CutUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	if n <= 0 {
		return "", true
	}
	i := n
	// Step back over continuation bytes to the start of the cut rune; keep
	// that rune only if it ends exactly at n.
	for i > 0 && i > n-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}
