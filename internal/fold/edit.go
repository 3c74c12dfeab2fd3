package fold

import "bytes"

// Tokens: a run of identifier bytes (letters, digits, '_' and every byte
// of a multibyte character) or of blanks is one token; any other byte is a
// token alone. An edit is cut at token edges so "the_repository" → "repo"
// is one edit, not "the_re" + "pository" removed.
func isWordByte(c byte) bool {
	return c == '_' || c >= 0x80 || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// tokenClass is 1 for word bytes, 2 for blanks and 0 for a token of its own.
func tokenClass(c byte) int {
	switch {
	case isWordByte(c):
		return 1
	case isBlank(c):
		return 2
	}
	return 0
}

// tokenEnd returns the end of the token starting at s[i].
func tokenEnd(s []byte, i int) int {
	class := tokenClass(s[i])
	j := i + 1
	if class != 0 {
		for j < len(s) && tokenClass(s[j]) == class {
			j++
		}
	}
	return j
}

// tokenStart returns the start of the token ending at s[j-1], not before lo.
func tokenStart(s []byte, lo, j int) int {
	class := tokenClass(s[j-1])
	i := j - 1
	if class != 0 {
		for i > lo && tokenClass(s[i-1]) == class {
			i--
		}
	}
	return i
}

// lineEdit strips the tokens two lines share at their start and at their
// end. What is left is the edit: removed from oldLine, added to newLine at
// byte col. ok is false when oldLine is not newLine with the edit undone,
// which the rule of cutting at shared tokens should never allow: the check
// is what Rebuild relies on.
func lineEdit(oldLine, newLine []byte) (removed, added []byte, col int, ok bool) {
	prefix := 0
	for prefix < len(oldLine) && prefix < len(newLine) {
		eo, en := tokenEnd(oldLine, prefix), tokenEnd(newLine, prefix)
		if eo != en || !bytes.Equal(oldLine[prefix:eo], newLine[prefix:en]) {
			break
		}
		prefix = eo
	}
	oldEnd, newEnd := len(oldLine), len(newLine)
	for oldEnd > prefix && newEnd > prefix {
		so, sn := tokenStart(oldLine, prefix, oldEnd), tokenStart(newLine, prefix, newEnd)
		if oldEnd-so != newEnd-sn || !bytes.Equal(oldLine[so:oldEnd], newLine[sn:newEnd]) {
			break
		}
		oldEnd, newEnd = so, sn
	}
	removed, added, col = oldLine[prefix:oldEnd], newLine[prefix:newEnd], prefix
	rebuilt, ok := undoEdit(newLine, removed, added, col)
	return removed, added, col, ok && bytes.Equal(rebuilt, oldLine)
}

// undoEdit rebuilds the old line: new[:col] + removed + new[col+len(added):].
func undoEdit(newLine, removed, added []byte, col int) ([]byte, bool) {
	if col < 0 || col+len(added) > len(newLine) || !bytes.Equal(newLine[col:col+len(added)], added) {
		return nil, false
	}
	out := make([]byte, 0, len(newLine)-len(added)+len(removed))
	out = append(out, newLine[:col]...)
	out = append(out, removed...)
	return append(out, newLine[col+len(added):]...), true
}
