package text

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden characters: bidi controls, which reorder how a line is shown
// ("Trojan Source", CVE-2021-42574), and invisible characters, which show
// as nothing. A reply that holds one says so in a note; the text itself is
// never changed (docs/architecture.md, "Hidden characters").

// MaxHiddenLines is how many line numbers a Hidden keeps; it counts the
// rest.
const MaxHiddenLines = 20

// Hidden is what a scan of some lines found: the first MaxHiddenLines line
// numbers that hold a hidden character, how many lines do, and each hidden
// code point seen, in ascending order.
type Hidden struct {
	Lines  []int
	Count  int
	Points []rune
}

// Found: some line holds a hidden character.
func (h *Hidden) Found() bool { return h.Count > 0 }

// Add scans line number n; atStart says the line starts its file, where
// U+FEFF is a byte order mark, not hidden.
func (h *Hidden) Add(n int, line []byte, atStart bool) {
	if !mayHoldHidden(line) {
		return
	}
	found := false
	for i := 0; i < len(line); {
		if line[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if IsHidden(r) && (r != 0xFEFF || i != 0 || !atStart) {
			found = true
			if j, ok := slices.BinarySearch(h.Points, r); !ok {
				h.Points = slices.Insert(h.Points, j, r)
			}
		}
		i += size
	}
	if !found {
		return
	}
	h.Count++
	if len(h.Lines) < MaxHiddenLines {
		h.Lines = append(h.Lines, n)
	}
}

// AddText scans lines of text (split at "\n") numbered from first; line 1
// is the start of its file.
func (h *Hidden) AddText(data []byte, first int) {
	if !mayHoldHidden(data) {
		return
	}
	for n := first; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		h.Add(n, line, n == 1)
	}
}

// ScanText is AddText into a new Hidden.
func ScanText(data []byte, first int) Hidden {
	var h Hidden
	h.AddText(data, first)
	return h
}

// ScanShare is ScanText of the share whole[from:to] of a text read in
// parts, its lines numbered as they are in whole.
func ScanShare(whole string, from, to int) Hidden {
	return ScanText([]byte(whole[from:to]), 1+strings.Count(whole[:from], "\n"))
}

// mayHoldHidden is a fast test: every hidden character is encoded with one
// of the lead bytes isHiddenLead knows. ASCII is skipped eight bytes at a
// time.
func mayHoldHidden(b []byte) bool {
	for len(b) > 0 {
		if len(b) >= 8 && binary.LittleEndian.Uint64(b)&0x8080808080808080 == 0 {
			b = b[8:]
			continue
		}
		if isHiddenLead(b[0]) {
			return true
		}
		b = b[1:]
	}
	return false
}

func isHiddenLead(c byte) bool { return hiddenLeads[c] }

var hiddenNames = map[rune]string{
	0x00AD:  "SOFT HYPHEN",
	0x061C:  "ARABIC LETTER MARK",
	0x200B:  "ZERO WIDTH SPACE",
	0x200C:  "ZERO WIDTH NON-JOINER",
	0x200D:  "ZERO WIDTH JOINER",
	0x200E:  "LEFT-TO-RIGHT MARK",
	0x200F:  "RIGHT-TO-LEFT MARK",
	0x202A:  "LEFT-TO-RIGHT EMBEDDING",
	0x202B:  "RIGHT-TO-LEFT EMBEDDING",
	0x202C:  "POP DIRECTIONAL FORMATTING",
	0x202D:  "LEFT-TO-RIGHT OVERRIDE",
	0x202E:  "RIGHT-TO-LEFT OVERRIDE",
	0x2060:  "WORD JOINER",
	0x2061:  "FUNCTION APPLICATION",
	0x2062:  "INVISIBLE TIMES",
	0x2063:  "INVISIBLE SEPARATOR",
	0x2064:  "INVISIBLE PLUS",
	0x2066:  "LEFT-TO-RIGHT ISOLATE",
	0x2067:  "RIGHT-TO-LEFT ISOLATE",
	0x2068:  "FIRST STRONG ISOLATE",
	0x2069:  "POP DIRECTIONAL ISOLATE",
	0xFEFF:  "ZERO WIDTH NO-BREAK SPACE",
	0xE0001: "LANGUAGE TAG",
	0xE007F: "CANCEL TAG",
	0x034F:  "COMBINING GRAPHEME JOINER",
	0x115F:  "HANGUL CHOSEONG FILLER",
	0x1160:  "HANGUL JUNGSEONG FILLER",
	0x3164:  "HANGUL FILLER",
	0xFFA0:  "HALFWIDTH HANGUL FILLER",
	0x180E:  "MONGOLIAN VOWEL SEPARATOR",
	0x2800:  "BRAILLE PATTERN BLANK",
}

// HiddenName names a hidden code point: "U+202E RIGHT-TO-LEFT OVERRIDE".
// A tag character (U+E0020–U+E007E) is named with the ASCII character it
// stands for, which is how tags smuggle text no one sees; a variation
// selector with its number (they smuggle bytes after an emoji). Go ships
// no character names: the rest are named by the property that makes them
// hidden.
func HiddenName(r rune) string {
	if n, ok := hiddenNames[r]; ok {
		return fmt.Sprintf("U+%04X %s", r, n)
	}
	switch {
	case r >= 0xE0020 && r <= 0xE007E:
		return fmt.Sprintf("U+%04X TAG %q", r, rune(r-0xE0000))
	case r >= 0xE0000 && r <= 0xE007F:
		return fmt.Sprintf("U+%04X TAG", r)
	case r >= 0xFE00 && r <= 0xFE0F:
		return fmt.Sprintf("U+%04X VARIATION SELECTOR-%d", r, r-0xFE00+1)
	case r >= 0xE0100 && r <= 0xE01EF:
		return fmt.Sprintf("U+%04X VARIATION SELECTOR-%d", r, r-0xE0100+17)
	case unicode.Is(unicode.Bidi_Control, r):
		return fmt.Sprintf("U+%04X (a bidi control)", r)
	case unicode.Is(unicode.Cf, r):
		return fmt.Sprintf("U+%04X (a format character)", r)
	}
	return fmt.Sprintf("U+%04X (an invisible character)", r)
}

// maxNamedPoints is how many code points a description names.
const maxNamedPoints = 5

// PointNames names the code points found, the first maxNamedPoints of them.
func (h *Hidden) PointNames() []string {
	var out []string
	for i, r := range h.Points {
		if i == maxNamedPoints {
			out = append(out, fmt.Sprintf("and %d more", len(h.Points)-i))
			break
		}
		out = append(out, HiddenName(r))
	}
	return out
}

// LineList is the line numbers kept, and the count when it is more:
// "3, 7, 9" or "3, 7, … (25 lines)".
func (h *Hidden) LineList() string {
	var b strings.Builder
	for i, n := range h.Lines {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", n)
	}
	if h.Count > len(h.Lines) {
		fmt.Fprintf(&b, ", … (%d lines)", h.Count)
	}
	return b.String()
}

// Merge adds what o found, in lines after h's, to h.
func (h *Hidden) Merge(o Hidden) {
	for _, n := range o.Lines {
		if len(h.Lines) < MaxHiddenLines {
			h.Lines = append(h.Lines, n)
		}
	}
	h.Count += o.Count
	for _, r := range o.Points {
		if j, ok := slices.BinarySearch(h.Points, r); !ok {
			h.Points = slices.Insert(h.Points, j, r)
		}
	}
}
