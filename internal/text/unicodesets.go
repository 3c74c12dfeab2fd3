package text

import (
	"unicode"
	"unicode/utf8"
)

// The character sets the framing rule and the hidden-character notes use,
// computed from the Unicode tables Go ships (package unicode), not kept by
// hand: a newer Go brings a newer Unicode with it (docs/security.md,
// review 3, items 3 and 4).

// IsDefaultIgnorable: r has Unicode's derived property
// Default_Ignorable_Code_Point, computed as DerivedCoreProperties.txt
// defines it: Other_Default_Ignorable_Code_Point + Cf + Variation_Selector,
// less White_Space, the interlinear annotation characters U+FFF9–U+FFFB,
// the Egyptian hieroglyph format controls U+13430–U+13440 and the
// Prepended_Concatenation_Mark characters (format characters that are
// shown).
func IsDefaultIgnorable(r rune) bool {
	if !unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector) {
		return false
	}
	return !unicode.Is(unicode.White_Space, r) && (r < 0xFFF9 || r > 0xFFFB) && (r < 0x13430 || r > 0x13440) &&
		!unicode.Is(unicode.Prepended_Concatenation_Mark, r)
}

// isHangulFiller: the Hangul fillers, letters that show as nothing (U+3164
// is the "invisible JavaScript backdoor" identifier).
func isHangulFiller(r rune) bool { return r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 }

// brailleBlank, U+2800, is a letter that shows as a space.
const brailleBlank = 0x2800

// isHiddenProp is the hidden set by its definition: Default_Ignorable_Code_Point,
// Bidi_Control, Variation_Selector, the Cf category, the Hangul fillers and
// U+2800. IsHidden answers from a table built from it once.
func isHiddenProp(r rune) bool {
	return IsDefaultIgnorable(r) || unicode.In(r, unicode.Bidi_Control, unicode.Variation_Selector, unicode.Cf) ||
		isHangulFiller(r) || r == brailleBlank
}

// isUnseenProp is what a reader does not see at the start of a line: the
// hidden set, Unicode White_Space (line and paragraph separators, NEL, the
// no-break and em spaces, …) and every C0 and C1 control (CR, VT, FF, …).
func isUnseenProp(r rune) bool {
	return isHiddenProp(r) || unicode.Is(unicode.White_Space, r) || unicode.Is(unicode.Cc, r)
}

// bmpSet is a bit per code point of the Basic Multilingual Plane; the few
// code points above it are asked of the tables directly.
type bmpSet [0x10000 / 64]uint64

func (s *bmpSet) has(r rune) bool { return s[r>>6]&(1<<(r&63)) != 0 }

// The sets, built once; hiddenLeads are the first bytes of every hidden
// character's UTF-8, which mayHoldHidden looks for.
var hiddenBMP, unseenBMP, hiddenLeads = buildSets()

func buildSets() (hidden, unseen *bmpSet, leads *[256]bool) {
	hidden, unseen, leads = new(bmpSet), new(bmpSet), new([256]bool)
	var buf [utf8.UTFMax]byte
	// Every member is in one of these tables (or is a filler or U+2800,
	// which the tables hold too): only their code points are tried.
	candidates := []*unicode.RangeTable{unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector,
		unicode.Bidi_Control, unicode.White_Space, unicode.Cc, unicode.Hangul, unicode.Braille}
	for _, t := range candidates {
		eachRune(t, func(r rune) {
			h := isHiddenProp(r)
			if h {
				utf8.EncodeRune(buf[:], r)
				leads[buf[0]] = true
			}
			if r > 0xFFFF {
				return
			}
			if h {
				hidden[r>>6] |= 1 << (r & 63)
			}
			if isUnseenProp(r) {
				unseen[r>>6] |= 1 << (r & 63)
			}
		})
	}
	return hidden, unseen, leads
}

// eachRune calls f with each code point of t.
func eachRune(t *unicode.RangeTable, f func(rune)) {
	for _, rg := range t.R16 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			f(r)
		}
	}
	for _, rg := range t.R32 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			f(r)
		}
	}
}

// IsHidden: r is a character the hidden-character notes name: a bidi
// control or a character that shows as nothing (isHiddenProp).
func IsHidden(r rune) bool {
	if r >= 0 && r <= 0xFFFF {
		return hiddenBMP.has(r)
	}
	return isHiddenProp(r)
}

// IsUnseen: r is a character a reader does not see (isUnseenProp), which
// the framing rule removes before it compares a line with ours.
func IsUnseen(r rune) bool {
	if r >= 0 && r <= 0xFFFF {
		return unseenBMP.has(r)
	}
	return isUnseenProp(r)
}
