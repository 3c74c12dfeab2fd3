// Package gitattr is git's own reading of .gitattributes: the files parsed
// and answered for a path the way `git check-attr` does, their patterns
// matched as git's wildmatch matches them. git 2.39 has no `check-attr
// --source`, and the server reads what a commit says, never a work tree or
// an index: so internal/git reads the files as blobs (Repo.ReadAttrFile) and
// their rules are followed here, with git's semantics (attr.c, wildmatch.c).
// Pure: no process, no file. The globs agents write are package globs.
package gitattr

import (
	"bytes"
	"errors"
	"strings"
)

// State is how an attribute stands for a path.
type State uint8

// The states `git check-attr` reports.
const (
	Unspecified State = iota // no line says anything, or "!name" said so
	Set                      // "name"
	Unset                    // "-name"
	Value                    // "name=value"
)

// Attr is one attribute's state for one path.
type Attr struct {
	State State
	Value string // with State Value
}

// File is one .gitattributes file, parsed.
type File struct {
	Dir   string // the directory it lies in, "" for the root
	Size  int    // bytes parsed, for callers that keep files
	rules []attrRule
	// macros are the "[attr]NAME ..." definitions: git takes them from the
	// root file only.
	macros map[string][]attrAssign
}

type attrRule struct {
	pattern attrPattern
	assigns []attrAssign
}

type attrAssign struct {
	name string
	attr Attr
}

// ErrIgnored marks a .gitattributes that exists but is not read.
var ErrIgnored = errors.New("attributes file ignored")

// maxAttrLine: git ignores a line this long or longer.
const maxAttrLine = 2048

// attrBlank separates the fields of a line, as in git.
const attrBlank = " \t\r\n"

// Parse parses the content of dir/.gitattributes. Lines git would
// refuse (an invalid attribute name, a negative pattern, a macro outside
// the root file, a line of 2048 bytes or more) are dropped, as git drops
// them.
func Parse(dir string, data []byte) *File {
	f := &File{Dir: dir, Size: len(data)}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i] // git reads the file as a C string
	}
	// git skips a byte order mark in a checked-out file, not in a blob;
	// an editor's BOM should not hide the first line either way.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for _, line := range strings.Split(string(data), "\n") {
		f.parseLine(line)
	}
	return f
}

func (f *File) parseLine(line string) {
	rest := strings.TrimLeft(line, attrBlank)
	if rest == "" || rest[0] == '#' || len(line) >= maxAttrLine {
		return
	}
	pattern, states := splitPattern(rest)
	assigns, ok := parseAssigns(states)
	if !ok {
		return
	}
	if len(pattern) > len("[attr]") && strings.HasPrefix(pattern, "[attr]") {
		f.addMacro(pattern[len("[attr]"):], assigns)
		return
	}
	if p, ok := compileAttrPattern(pattern); ok {
		f.rules = append(f.rules, attrRule{pattern: p, assigns: assigns})
	}
}

// addMacro keeps "[attr]NAME attrs..." (name is what follows "[attr]").
// git allows macros in the root file only; a later definition wins.
func (f *File) addMacro(name string, assigns []attrAssign) {
	name = strings.TrimLeft(name, attrBlank)
	if i := strings.IndexAny(name, attrBlank); i >= 0 {
		name = name[:i]
	}
	if f.Dir != "" || !validAttrName(name) {
		return
	}
	if f.macros == nil {
		f.macros = map[string][]attrAssign{}
	}
	f.macros[name] = assigns
}

// splitPattern cuts the pattern off the front of a line: a C-quoted string
// (git 2.39 allows them), or else everything up to the first blank.
func splitPattern(s string) (pattern, rest string) {
	if s[0] == '"' {
		if p, n, ok := unquoteC(s); ok {
			return p, s[n:]
		}
	}
	if i := strings.IndexAny(s, attrBlank); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// unquoteC reads a C-style quoted string at the start of s as git's
// unquote_c_style does: the escapes \a \b \f \n \r \t \v \\ \" and three
// octal digits. It returns the string and the bytes consumed.
func unquoteC(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			r, n, ok := unescapeC(s[i+1:])
			if !ok {
				return "", 0, false
			}
			b.WriteByte(r)
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// unescapeC reads the escape after a backslash: the byte and its length.
func unescapeC(s string) (byte, int, bool) {
	if s == "" {
		return 0, 0, false
	}
	if i := strings.IndexByte(`abfnrtv\"`, s[0]); i >= 0 {
		return "\a\b\f\n\r\t\v\\\""[i], 1, true
	}
	if len(s) < 3 || s[0] < '0' || s[0] > '3' {
		return 0, 0, false
	}
	var v byte
	for _, c := range []byte(s[:3]) {
		if c < '0' || c > '7' {
			return 0, 0, false
		}
		v = v<<3 | (c - '0')
	}
	return v, 3, true
}

// parseAssigns reads "name", "-name", "!name" and "name=value" fields. One
// invalid name makes git drop the whole line.
func parseAssigns(s string) ([]attrAssign, bool) {
	var out []attrAssign
	for _, field := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(attrBlank, r) }) {
		name, value, hasValue := strings.Cut(field, "=")
		a := attrAssign{attr: Attr{State: Set}}
		switch {
		case name == "":
			return nil, false
		case name[0] == '-':
			name, a.attr = name[1:], Attr{State: Unset}
		case name[0] == '!':
			name, a.attr = name[1:], Attr{State: Unspecified}
		case hasValue:
			a.attr = Attr{State: Value, Value: value}
		}
		if !validAttrName(name) {
			return nil, false
		}
		a.name = name
		out = append(out, a)
	}
	return out, true
}

// validAttrName: [-._0-9A-Za-z]+, not starting with "-".
func validAttrName(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for _, c := range []byte(s) {
		if c != '-' && c != '.' && c != '_' && !isDigit(c) && !isAlpha(c) {
			return false
		}
	}
	return true
}
