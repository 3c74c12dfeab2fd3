package text

import (
	"bytes"
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The framing rule (docs/security.md, "Framing"): a line of repository or
// forge text that a reader could take for one of the server's own lines is
// never the start of a line of a reply. A piece of a line (a line split at
// whatever a reader may take for a line break: CR, VT, FF, NEL, U+2028,
// U+2029) reads as ours when what a reader sees at its start (skeleton:
// look-alikes folded) starts with one of the openers of the lines the
// reply can hold:
//
//   - a note, marker or next call: "[" and one of BracketOpeners
//     ("[partial reply] Next part: …", "[note: …]", "[hidden characters
//     in …]"); "[submodule …]" and "[remote …]" are not ours;
//   - a section's heading: "---", a space, a lowercase word and a space
//     ("--- comment 12 by …", "--- review 3 by …", "--- thread on …");
//   - only in a reply that writes headers (WithHeaders: get_commit's and
//     get_pull_request's fields and messages, the forge's bodies): one of
//     HeaderKeys and ":" ("Reviews: …", "Head: …"). A file's "Title: …"
//     in a diff or read_file is not framed.
//
// Such a piece is shown prefixed: Mark goes before its first visible
// character, so it starts with a character none of our lines starts
// with. A piece that already starts with Mark and then reads as ours gets
// one more, so that taking one Mark away always gives the text back.
// Names and one-line fields are Go-quoted instead (Name, Line). A reply
// that frames a line says so (FramedNote).

// Mark prefixes a piece of repository text that reads as a server line: a
// backslash, which is also how Markdown escapes a bracket.
const Mark = `\`

// BracketOpeners are the words every bracket line the server writes starts
// with, after its "[". TestEveryBracketLineIsAnOpener checks them against
// the renderers' source, so that a new note cannot be left out.
var BracketOpeners = []string{
	"partial reply", "complete reply", "note:", "framed:", "hidden characters", "hidden by", "not utf-8", "not diffed",
	"not searched", "not counted", "left out", "renames not searched", "test files", "generated or vendored", "no patch",
	"paths named", "message goes on", "a field of this commit", "more matches", "pathglobs matched", "body bytes", "body cut",
	"line ",            // a piece's marker (PieceMarker)
	"paths that match", // paths that match no changed file
}

// HeaderKeys are the words that start the server's header lines
// ("Key: value"). TestOpenersAreOurs checks them against the renderers'
// source, so that a new header cannot be left out.
var HeaderKeys = []string{
	"Author", "Base", "Checks", "Commits", "Committer", "Created", "Description", "Head", "Labels",
	"Merge base", "Parent", "Parents", "Reviews", "State", "Title", "URL",
}

// Openers are the server's lines a reply can hold, which a piece of
// repository text must not pass for.
type Openers struct{ headers bool }

var (
	// Plain replies hold notes, next calls and section headings.
	Plain = Openers{}
	// WithHeaders replies hold header lines as well ("Author: …").
	WithHeaders = Openers{headers: true}
)

// The openers' skeletons, built once.
var bracketSkels, headerSkels = skeletons("[", BracketOpeners), skeletons("", HeaderKeys)

func skeletons(prefix string, words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = skeleton(prefix + w)
	}
	return out
}

// maxOpener is how many runes of a piece's start are compared.
const maxOpener = 32

// isBreak: r may be taken for the end of a line by some reader (a terminal
// returns to column 0 on CR; Unicode's line and paragraph separators).
func isBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// ReadsAsOurs: some piece of s reads as one of the server's lines, headers
// included (Name and Line quote such a value wherever it is shown).
func ReadsAsOurs(s string) bool { return WithHeaders.ReadsAsOurs(s) }

// ReadsAsOurs: some piece of s reads as one of o's lines.
func (o Openers) ReadsAsOurs(s string) bool {
	for piece := range pieces(s) {
		if o.pieceReadsAsOurs(piece) {
			return true
		}
	}
	return false
}

// pieces are s split where a reader may see a line break (isBreak).
func pieces(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			i := strings.IndexFunc(s, isBreak)
			if i < 0 {
				yield(s)
				return
			}
			if !yield(s[:i]) {
				return
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			s = s[i+size:]
		}
	}
}

// pieceReadsAsOurs: the piece's skeleton, any Mark before it skipped,
// starts with one of o's openers.
func (o Openers) pieceReadsAsOurs(p string) bool {
	v := skeleton(p)
	if v == "" {
		return false
	}
	if v[0] == '[' {
		for _, w := range bracketSkels {
			if skelHasPrefix(v, w) {
				return true
			}
		}
		return false
	}
	if w, ok := skelCut(v, "--- "); ok {
		end := 0
		for end < len(w) && (w[end] >= 'a' && w[end] <= 'z' || w[end] == lookLetter) {
			end++
		}
		return end > 0 && end < len(w) && (w[end] == ' ' || w[end] == lookAny)
	}
	if o.headers {
		for _, k := range headerSkels {
			if w, ok := skelCut(v, k); ok {
				w = strings.TrimLeft(w, " ")
				if w != "" && (w[0] == ':' || w[0] == lookAny) {
					return true
				}
			}
		}
	}
	return false
}

// A skeleton's stand-ins for what is not ASCII: lookLetter for a letter or
// number, which may look like any ASCII letter or digit (Cyrillic "р" for
// "p", "𝗉" for "p"); lookAny for punctuation or a symbol, which may look
// like any ASCII punctuation ("꞉" or "：" for ":", "—" for "-");
// lookOther for a letter of a script none of whose letters looks like a
// Latin one (farScripts), which matches nothing. None is in a skeleton
// otherwise (control characters are unseen, so dropped).
const (
	lookLetter = '\x01'
	lookAny    = '\x02'
	lookOther  = '\x03'
)

// farScripts are scripts whose letters are not taken for Latin ones: a
// line of Chinese or Arabic text is not framed for its shape alone.
var farScripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Arabic,
	unicode.Hebrew, unicode.Thai, unicode.Devanagari}

// skeleton is what a reader sees at the start of a piece, up to maxOpener
// characters, folded so that a look-alike of an opener compares as the
// opener does (docs/security.md, "Framing"; review 4, finding 07):
// what comes before the first visible character (unseen characters, and
// a Mark or more) and combining marks dropped; each run of White_Space or
// of characters that show as a blank (the Hangul fillers, U+2800) one
// space, the other unseen characters dropped; fullwidth forms as ASCII;
// ASCII letters lowercased, with "i", "1" and "|" as "l", "0" as "o" and
// "rn" as "m"; any other opening bracket as "["; the rest as lookLetter or
// lookAny. It is "" at once for a piece whose first visible character no
// opener starts with.
func skeleton(p string) string {
	var out [maxOpener]byte
	n, space := 0, false
	for _, r := range p {
		switch {
		case n == 0 && r < utf8.RuneSelf && r > ' ' && r != 0x7f && r != '[' && r != '\\' && r != '-' && (r < 'A' || r > 'Z'):
			return "" // the common case: not an opener's first character
		case n == 0 && r == '\\':
			continue
		case isWhiteSpace(r) || isHangulFiller(r) || r == brailleBlank:
			space = n > 0
			continue
		case IsUnseen(r) || unicode.In(r, unicode.Mn, unicode.Me):
			continue
		}
		if space {
			out[n], space = ' ', false
			if n++; n == maxOpener {
				break
			}
		}
		out[n] = fold(r)
		if n++; n == maxOpener {
			break
		}
	}
	return strings.ReplaceAll(string(out[:n]), "rn", "m")
}

// fold is r as a skeleton holds it (skeleton).
func fold(r rune) byte {
	if r >= 0xFF01 && r <= 0xFF5E { // fullwidth ASCII
		r -= 0xFEE0
	}
	switch {
	case r >= 'A' && r <= 'Z':
		r += 'a' - 'A'
	case r >= utf8.RuneSelf && unicode.Is(unicode.Ps, r):
		return '['
	case r >= utf8.RuneSelf && unicode.In(r, farScripts...):
		return lookOther
	case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsNumber(r)):
		return lookLetter
	case r >= utf8.RuneSelf:
		return lookAny
	}
	switch r {
	case 'i', '1', '|':
		return 'l'
	case '0':
		return 'o'
	}
	return byte(r)
}

// skelHasPrefix: skeleton v starts with w, a skeleton of ASCII, each
// stand-in taken for what it may look like, and a w that ends in a letter
// or digit is not followed by one (a whole word).
func skelHasPrefix(v, w string) bool {
	_, ok := skelCut(v, w)
	if !ok || len(v) == len(w) || !isAlnum(w[len(w)-1]) {
		return ok
	}
	return !isAlnum(v[len(w)]) && v[len(w)] != lookLetter
}

// skelCut is v past a prefix that reads as w (skelHasPrefix, without the
// whole-word test).
func skelCut(v, w string) (string, bool) {
	if len(v) < len(w) {
		return "", false
	}
	for i := 0; i < len(w); i++ {
		c, o := v[i], w[i]
		if c != o && (c != lookAny || o == ' ' || isAlnum(o)) && (c != lookLetter || !isAlnum(o)) {
			return "", false
		}
	}
	return v[len(w):], true
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// StartsAs: some piece of s (split where a reader may see a line break)
// shows prefix at its start to a reader (skeleton: look-alikes too),
// framed by a Mark or not. The last-line guard (paging) asks it of the
// next call's prefix: a framed line of the repository's that ends a reply
// is said to be the repository's as well.
func StartsAs(s, prefix string) bool {
	w := skeleton(prefix)
	for piece := range pieces(s) {
		if _, ok := skelCut(skeleton(piece), w); ok {
			return true
		}
	}
	return false
}

// isWhiteSpace: r is Unicode White_Space, which a reader sees as a space.
func isWhiteSpace(r rune) bool { return unicode.Is(unicode.White_Space, r) }

// Frame is s with Mark before the first visible character of each piece
// that reads as ours (Plain); s as it is when none does (the common case,
// with no copy).
func Frame(s string) string { return Plain.Frame(s) }

// Frame is s with Mark before the first visible character of each piece
// that reads as one of o's lines.
func (o Openers) Frame(s string) string { return o.frame(s, false) }

// frame is Frame, the first piece left as it is when skipFirst.
func (o Openers) frame(s string, skipFirst bool) string {
	if !o.readsAsOurs(s, skipFirst) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for first := true; ; first = false {
		i := strings.IndexFunc(s, isBreak)
		piece := s
		if i >= 0 {
			piece = s[:i]
		}
		if (!first || !skipFirst) && o.pieceReadsAsOurs(piece) {
			j := strings.IndexFunc(piece, func(r rune) bool { return !IsUnseen(r) })
			b.WriteString(piece[:j] + Mark + piece[j:])
		} else {
			b.WriteString(piece)
		}
		if i < 0 {
			return b.String()
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+size])
		s = s[i+size:]
	}
}

// readsAsOurs is ReadsAsOurs, the first piece skipped when skipFirst.
func (o Openers) readsAsOurs(s string, skipFirst bool) bool {
	for piece := range pieces(s) {
		if !skipFirst && o.pieceReadsAsOurs(piece) {
			return true
		}
		skipFirst = false
	}
	return false
}

// FrameBytes is Frame of a text of lines, as bytes: b itself when no piece
// reads as ours.
func FrameBytes(b []byte) []byte {
	if !mayReadAsOurs(b) || plainLine(b) || !Plain.ReadsAsOurs(string(b)) {
		return b
	}
	return []byte(Frame(string(b)))
}

// FramedJSONLen is what b costs in a reply once framed (FrameBytes): its
// JSON length, and two bytes ("\\" in JSON) for each Mark.
func FramedJSONLen(b []byte) int {
	if !mayReadAsOurs(b) || plainLine(b) {
		return JSONLen(b)
	}
	return JSONLen(b) + 2*Marks(string(b))
}

// Marks is how many Marks Frame adds to s.
func Marks(s string) int {
	n := 0
	for piece := range pieces(s) {
		if Plain.pieceReadsAsOurs(piece) {
			n++
		}
	}
	return n
}

// plainLine is a fast test, without a copy, that b cannot read as ours:
// one line (a "\n" at its end aside) that starts, past spaces and tabs,
// with an ASCII character no opener starts with, and holds nothing else a
// reader may take for a line break. Most lines of code are such lines.
func plainLine(b []byte) bool {
	b = bytes.TrimSuffix(b, []byte("\n"))
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i < len(b) {
		if c := b[i]; c >= utf8.RuneSelf || c < ' ' || c == 0x7f || c == '[' || c == '\\' || c == '-' || (c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return !bytes.ContainsAny(b, "\n\r\v\f") && !bytes.Contains(b, []byte("\u0085")) &&
		!bytes.Contains(b, []byte("\u2028")) && !bytes.Contains(b, []byte("\u2029"))
}

// mayReadAsOurs is a fast test: every opener holds "[", ":" or "---", or
// a look-alike of one, which is not ASCII.
func mayReadAsOurs(b []byte) bool {
	return bytes.IndexByte(b, '[') >= 0 || bytes.IndexByte(b, ':') >= 0 || bytes.Contains(b, []byte("---")) ||
		bytes.ContainsFunc(b, func(r rune) bool { return r >= utf8.RuneSelf })
}

// FramePatch is FrameBytes of a patch's hunk line: a "+" or "-" line's
// first piece starts with git's prefix, which no opener starts with, and
// is left as it is, so the patch stays a patch; its other pieces (after a
// CR or U+2028 in the line: review 4, finding 06) are framed, as a context
// line (" ") is after its space.
func FramePatch(b []byte) []byte {
	if !PatchLineFramed(b) {
		return b
	}
	return []byte(Plain.frame(string(b), b[0] == '+' || b[0] == '-'))
}

// PatchLineFramed: FramePatch marks a piece of the hunk line b.
func PatchLineFramed(b []byte) bool {
	if !mayReadAsOurs(b) || len(b) == 0 || plainLine(b[1:]) {
		return false
	}
	return Plain.readsAsOurs(string(b), b[0] == '+' || b[0] == '-')
}
