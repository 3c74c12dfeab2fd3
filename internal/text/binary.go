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
	// Find the last rune start before n; cut before that rune only if it
	// decodes as a valid rune that runs past n. Invalid bytes decode one by
	// one, so a stray continuation byte never makes more than itself go.
	for i := n - 1; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if _, size := utf8.DecodeRuneInString(s[i:]); i+size > n {
				return s[:i], true
			}
			break
		}
	}
	return s[:n], true
}

// CutPoint is the largest m <= n at which b can be cut without splitting
// a valid UTF-8 character (CutUTF8's cut, for bytes).
func CutPoint(b []byte, n int) int {
	if len(b) <= n {
		return len(b)
	}
	for i := n - 1; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if _, size := utf8.DecodeRune(b[i:]); i+size > n {
				return i
			}
			break
		}
	}
	return max(n, 0)
}
