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
// U+2029) reads as ours when, with what a reader does not see removed
// (IsUnseen), it starts with one of our line openers:
//
//   - a bracket line: "[", a lowercase letter, and a space or a colon before
//     the first "]" ("[partial reply] Next part: …", "[note: …]",
//     "[hidden characters in …]": every note, marker and next call the
//     server writes has this shape);
//   - a header: one of HeaderKeys and ":" ("Reviews: …", "Head: …");
//   - a section's heading: "---", a space, a lowercase word and a space
//     ("--- comment 12 by …", "--- review 3 by …", "--- thread on …").
//
// Such a piece is shown prefixed: Mark goes before its first visible
// character, so it starts with a character none of our lines starts
// with. A piece that already starts with Mark and then reads as ours gets
// one more, so that taking one Mark away always gives the text back.
// Names and one-line fields are Go-quoted instead (Name, Line).

// Mark prefixes a piece of repository text that reads as a server line: a
// backslash, which is also how Markdown escapes a bracket.
const Mark = `\`

// HeaderKeys are the words that start the server's header lines
// ("Key: value"). TestOpenersAreOurs checks them against the renderers'
// source, so that a new header cannot be left out.
var HeaderKeys = []string{
	"Author", "Base", "Checks", "Commits", "Committer", "Created", "Description", "Head", "Labels",
	"Merge base", "Parent", "Parents", "Reviews", "State", "Title", "URL",
}

// maxOpener is how many visible bytes a piece's start is compared on.
const maxOpener = 32

// isBreak: r may be taken for the end of a line by some reader (a terminal
// returns to column 0 on CR; Unicode's line and paragraph separators).
func isBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// ReadsAsOurs: some piece of s reads as one of the server's lines.
func ReadsAsOurs(s string) bool {
	for piece := range pieces(s) {
		if pieceReadsAsOurs(piece) {
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

// pieceReadsAsOurs: the piece's visible start, any Mark before it
// skipped, reads as one of our openers.
func pieceReadsAsOurs(p string) bool { return isOpener(visibleStart(p)) }

// visibleStart is what a reader sees at the start of a piece, up to
// maxOpener bytes: what comes before the first visible character (unseen
// characters, and a Mark or more) dropped, then each run of
// White_Space shown as one space and the other unseen characters dropped.
// It is "" at once for a piece whose first visible character no opener
// starts with.
func visibleStart(p string) string {
	var vis [maxOpener + utf8.UTFMax]byte
	n, space := 0, false
	for _, r := range p {
		switch {
		case n == 0 && r < utf8.RuneSelf && r > ' ' && r != 0x7f && r != '[' && r != '\\' && r != '-' && (r < 'A' || r > 'Z'):
			return "" // the common case: not an opener's first character
		case n == 0 && r == '\\':
			continue
		case IsUnseen(r):
			space = space || (n > 0 && isWhiteSpace(r))
			continue
		}
		if space {
			vis[n], space = ' ', false
			n++
		}
		n += utf8.EncodeRune(vis[n:], r)
		if n >= maxOpener {
			break
		}
	}
	return string(vis[:n])
}

// StartsAs: some piece of s (split where a reader may see a line break)
// shows prefix at its start to a reader (visibleStart), framed by a Mark
// or not. The last-line guard (paging) asks it of the next call's prefix:
// a framed line of the repository's that ends a reply is said to be the
// repository's as well.
func StartsAs(s, prefix string) bool {
	for piece := range pieces(s) {
		if strings.HasPrefix(visibleStart(piece), prefix) {
			return true
		}
	}
	return false
}

// isWhiteSpace: r is Unicode White_Space, which a reader sees as a space.
func isWhiteSpace(r rune) bool { return unicode.Is(unicode.White_Space, r) }

// isOpener: v, a piece's visible start, starts with one of our openers.
func isOpener(v string) bool {
	if strings.HasPrefix(v, "[") {
		w := strings.TrimLeft(v[1:], " ")
		if w == "" || w[0] < 'a' || w[0] > 'z' {
			return false
		}
		if end := strings.IndexByte(w, ']'); end >= 0 {
			w = w[:end]
		}
		// Ours hold a space or a colon: "[partial reply]", "[note: …]";
		// "[package]" and "[tool.poetry]" do not.
		return strings.ContainsAny(w, " :")
	}
	if w, ok := strings.CutPrefix(v, "--- "); ok {
		end := strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' })
		return end > 0 && w[end] == ' '
	}
	for _, k := range HeaderKeys {
		if strings.HasPrefix(v, k) && strings.HasPrefix(strings.TrimLeft(v[len(k):], " "), ":") {
			return true
		}
	}
	return false
}

// Frame is s with Mark before the first visible character of each piece
// that reads as ours; s as it is when none does (the common case, with no
// copy).
func Frame(s string) string {
	if !ReadsAsOurs(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for {
		i := strings.IndexFunc(s, isBreak)
		piece := s
		if i >= 0 {
			piece = s[:i]
		}
		if pieceReadsAsOurs(piece) {
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

// FrameBytes is Frame of a text of lines, as bytes: b itself when no piece
// reads as ours.
func FrameBytes(b []byte) []byte {
	if !mayReadAsOurs(b) || plainLine(b) || !ReadsAsOurs(string(b)) {
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
		if pieceReadsAsOurs(piece) {
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

// mayReadAsOurs is a fast test: every opener holds "[", ":" or "---".
func mayReadAsOurs(b []byte) bool {
	return bytes.IndexByte(b, '[') >= 0 || bytes.IndexByte(b, ':') >= 0 || bytes.Contains(b, []byte("---"))
}

// FramePatch is FrameBytes of a patch's hunk line: a "+" or "-" line
// starts with git's prefix, which no opener starts with a reader sees
// first, and is left as it is, so the patch stays a patch; a context
// line (" ") is framed after its space.
func FramePatch(b []byte) []byte {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		return b
	}
	return FrameBytes(b)
}
