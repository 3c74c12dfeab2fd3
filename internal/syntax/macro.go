//go:build cgo

package syntax

import "sort"

// macroIdent tells whether the name of n bytes at arg[at:] is an
// identifier of a preprocessor body (#define F(x) name(x)), which the C
// grammars leave as one opaque token: a whole word outside the body's
// comments, strings and char literals; call when a '(' follows.
func macroIdent(arg []byte, at, n int) (call, ok bool) {
	if at > 0 && isWordByte(arg[at-1]) || at+n < len(arg) && isWordByte(arg[at+n]) {
		return false, false
	}
	for i := 0; i < at; i++ {
		switch {
		case arg[i] == '"' || arg[i] == '\'':
			q := arg[i]
			for i++; i < len(arg) && arg[i] != q; i++ {
				if arg[i] == '\\' {
					i++
				}
			}
			if i >= at {
				return false, false
			}
		case arg[i] == '/' && i+1 < len(arg) && arg[i+1] == '*':
			for i += 2; i+1 < len(arg) && (arg[i] != '*' || arg[i+1] != '/'); i++ {
			}
			if i >= at {
				return false, false
			}
			i++
		case arg[i] == '/' && i+1 < len(arg) && arg[i+1] == '/':
			return false, false // the rest of the body is a comment
		}
	}
	j := at + n
	for j < len(arg) && (arg[j] == ' ' || arg[j] == '\t') {
		j++
	}
	return j < len(arg) && arg[j] == '(', true
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// lineIndex maps a byte offset to its 1-based line and byte column.
type lineIndex struct{ starts []int }

func newLineIndex(src []byte) *lineIndex {
	l := &lineIndex{starts: []int{0}}
	for i, b := range src {
		if b == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

func (l *lineIndex) at(off int) (line, col int) {
	i := sort.SearchInts(l.starts, off+1) - 1
	return i + 1, off - l.starts[i] + 1
}
