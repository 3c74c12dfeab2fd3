package text

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The one escaping of every name and one-line field a tool's text shows
// (docs/architecture.md, "Framing"): a value that could break the line it
// is on, or act on a terminal, is written Go-quoted (strconv.Quote: \n, \r,
// \t, \x1b, \x7f, \u0085, …), so strconv.Unquote gives it back; any other
// value is written as it is. A line the server frames then holds no control
// byte from the repository, and no repository value can start a line of
// its own.

// Name writes a path or other name (a ref, an author, an email, a label):
// quoted when it holds a control character, a quote, or space at an end,
// is empty or is not UTF-8, any of which would make the line ambiguous; or
// a hidden character (IsHidden), which the quoting shows ("\u202e"): a
// name has no note of its own. A name that reads as one of the server's
// lines (ReadsAsOurs) is quoted too: a name can start a line.
func Name(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return IsControl(r) || r == '"' || IsHidden(r) }) ||
		strings.TrimSpace(s) != s || !utf8.ValidString(s) || ReadsAsOurs(s) {
		return strconv.Quote(s)
	}
	return s
}

// Names is Name of each of ss.
func Names(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Name(s)
	}
	return out
}

// Line writes free text on one line (a subject, a title, a matched line of
// code): quoted when it holds a control character other than a tab, is not
// UTF-8, or starts with a quote (so that a value that is written quoted can
// always be told from one that is not), or reads as one of the server's
// lines (ReadsAsOurs); else as it is, spaces and tabs included, which a
// line of code is full of.
func Line(s string) string {
	if lineQuoted(s) || ReadsAsOurs(s) {
		return strconv.Quote(s)
	}
	return s
}

// LineFramed is Line for the first line of a text shown in full in a reply
// that writes headers (a message's subject, a comment's first line):
// quoted for what Line quotes but reading as ours, which is framed
// (WithHeaders) as the text's other lines are.
func LineFramed(s string) string {
	if lineQuoted(s) {
		return strconv.Quote(s)
	}
	return WithHeaders.Frame(s)
}

// lineQuoted: Line quotes s whatever it reads as.
func lineQuoted(s string) bool {
	return strings.HasPrefix(s, `"`) || strings.ContainsFunc(s, func(r rune) bool { return r != '\t' && IsControl(r) }) ||
		!utf8.ValidString(s)
}

// IsControl: r is a C0 control, DEL, a C1 control (U+0080–U+009F) or a
// Unicode line or paragraph separator (U+2028, U+2029), any of which a
// client may take for a line break or a terminal may act on.
func IsControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029
}

// JSONControls escapes in JSON text what encoding/json leaves raw but a
// terminal or a client may act on: DEL and the C1 controls, as \u007f and
// \u0080–\u009f. They occur in JSON text only inside strings, where the
// escape means the same character.
func JSONControls(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x7f && r <= 0x9f }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0x7f && r <= 0x9f {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// NoteName is Name(s) where a note, a piece's marker or a part's first
// line names a file beside what it says of it: cut, and ended with "…",
// where its JSON would be longer than MaxNoteName, so that a path of
// thousands of bytes (which JSON may escape sixfold) leaves the reply room
// for what it names.
func NoteName(s string) string {
	name, _ := NoteNameCut(s)
	return name
}

// NoteNameCut is NoteName, and whether it cut s: a call that needs the
// whole path cannot be written beside it.
func NoteNameCut(s string) (name string, cut bool) {
	name = Name(s)
	if JSONLen(name) <= MaxNoteName {
		return name, false
	}
	lo, hi := 0, len(name) // a prefix of lo bytes fits, of hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if p, _ := CutUTF8(name, mid); JSONLen(p) <= MaxNoteName-len("…") {
			lo = mid
		} else {
			hi = mid
		}
	}
	p, _ := CutUTF8(name, lo)
	return p + "…", true
}

// NoteNames is NoteName of each of ss.
func NoteNames(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = NoteName(s)
	}
	return out
}
