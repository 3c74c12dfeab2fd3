package fold

import (
	"bytes"
	"errors"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
)

// A file's sites are shown under its path, so a fully folded file leaves
// the rest: its header must then be rebuilt from the path alone. Only the
// plain header of a changed file is: "diff --git", "index", "---" and "+++"
// with git's own a/ and b/ names. Every other file stays in the rest whole.

// needsQuote reports whether git (core.quotePath on, the default) writes
// name in C quotes.
func needsQuote(name []byte) bool {
	for _, c := range name {
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			return true
		}
	}
	return false
}

// quoteName writes name as git writes a path: as is, or C-quoted.
func quoteName(name []byte) []byte {
	if !needsQuote(name) {
		return name
	}
	b := make([]byte, 0, len(name)+8)
	b = append(b, '"')
	for _, c := range name {
		if e := cEscape(c); e != 0 {
			b = append(b, '\\', e)
		} else if c < 0x20 || c >= 0x7f {
			b = append(b, '\\', '0'+(c>>6), '0'+((c>>3)&7), '0'+(c&7))
		} else {
			b = append(b, c)
		}
	}
	return append(b, '"')
}

var errBadQuote = errors.New("fold: malformed quoted path")

// unquoteName reverses quoteName for a whole path.
func unquoteName(q []byte) ([]byte, error) {
	if len(q) == 0 || q[0] != '"' {
		return q, nil
	}
	b, n, err := diff.UnquoteC(string(q))
	if err != nil || n != len(q) || !bytes.Equal(quoteName([]byte(b)), q) {
		return nil, errBadQuote // only git's own spelling, so a path has one form
	}
	return []byte(b), nil
}

const (
	escapedBytes = "\a\b\t\n\v\f\r\"\\"
	escapeLetter = "abtnvfr\"\\"
)

// cEscape returns the letter git writes after a backslash for c, or 0.
func cEscape(c byte) byte {
	if i := bytes.IndexByte([]byte(escapedBytes), c); i >= 0 {
		return escapeLetter[i]
	}
	return 0
}

// plainHeader is the header git writes for a changed file at path, without
// its "index" line.
func plainHeader(path []byte) []byte {
	a := quoteName(append([]byte("a/"), path...))
	b := quoteName(append([]byte("b/"), path...))
	var h []byte
	h = append(h, "diff --git "...)
	h = append(h, a...)
	h = append(h, ' ')
	h = append(h, b...)
	h = append(h, '\n')
	h = appendLabel(h, "--- ", a)
	h = appendLabel(h, "+++ ", b)
	return h
}

// appendLabel writes a "---"/"+++" line: git ends a name holding a space
// with a tab, so a reader can tell where it ends.
func appendLabel(h []byte, sign string, name []byte) []byte {
	h = append(h, sign...)
	h = append(h, name...)
	if bytes.IndexByte(name, ' ') >= 0 {
		h = append(h, '\t')
	}
	return append(h, '\n')
}

// withoutIndex drops the header's "index" lines: they name blobs, not lines,
// and a fully folded file does not carry them.
func withoutIndex(header []byte) []byte {
	var out []byte
	for rest := header; len(rest) > 0; {
		line := firstLine(rest)
		rest = rest[len(line):]
		if !bytes.HasPrefix(line, []byte("index ")) {
			out = append(out, line...)
		}
	}
	return out
}

// plainPath returns the path of a file whose header is plain, or nil. The
// path is taken from the "+++" line, then the whole header is rebuilt from it
// and compared, so no spelling of git's is guessed.
func plainPath(header []byte) []byte {
	var lines [][]byte
	for rest := header; len(rest) > 0; {
		line := firstLine(rest)
		lines = append(lines, line)
		rest = rest[len(line):]
	}
	if len(lines) != 4 || !bytes.HasPrefix(lines[1], []byte("index ")) || !bytes.HasPrefix(lines[3], []byte("+++ ")) {
		return nil
	}
	name := bytes.TrimSuffix(lines[3][len("+++ "):], []byte("\n"))
	name = bytes.TrimSuffix(name, []byte("\t"))
	name, err := unquoteName(name)
	if err != nil || !bytes.HasPrefix(name, []byte("b/")) {
		return nil
	}
	path := name[2:]
	if len(path) == 0 || !bytes.Equal(plainHeader(path), withoutIndex(header)) {
		return nil
	}
	return path
}
