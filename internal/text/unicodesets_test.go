package text

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestHiddenSetIsUnicodes walks every code point of each property the
// hidden set is made of (Default_Ignorable_Code_Point as Unicode derives it,
// Bidi_Control, Variation_Selector, the Cf category, the Hangul fillers and
// U+2800): each is hidden, named, and found by a scan in a line of text
// (so the scan's fast path knows its lead byte); and no other code point
// is hidden. Review 3's finding 09 (U+3164, U+115F, U+FFA0, U+180E, U+034F,
// U+2800, the variation selectors) is among them. docs/security.md, review 3.
func TestHiddenSetIsUnicodes(t *testing.T) {
	dicp := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		d := unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector) &&
			!unicode.Is(unicode.White_Space, r) && (r < 0xFFF9 || r > 0xFFFB) && (r < 0x13430 || r > 0x13440) &&
			!unicode.Is(unicode.Prepended_Concatenation_Mark, r)
		if d {
			dicp++
		}
		want := d || unicode.In(r, unicode.Bidi_Control, unicode.Variation_Selector, unicode.Cf) ||
			r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 || r == 0x2800
		if IsDefaultIgnorable(r) != d {
			t.Errorf("IsDefaultIgnorable(%U) = %v", r, !d)
		}
		if IsHidden(r) != want {
			t.Errorf("IsHidden(%U) = %v, want %v", r, !want, want)
			continue
		}
		if !want || !utf8.ValidRune(r) {
			continue
		}
		if h := ScanText([]byte("x = 1\nlet a"+string(r)+" = 2\n"), 1); !h.Found() || h.Lines[0] != 2 || h.Points[0] != r {
			t.Errorf("a line holding %U is not found: %+v", r, h)
		}
		if n := HiddenName(r); !strings.HasPrefix(n, "U+") || len(n) < 8 {
			t.Errorf("HiddenName(%U) = %q", r, n)
		}
		if !IsUnseen(r) {
			t.Errorf("IsUnseen(%U) = false for a hidden character", r)
		}
	}
	// DerivedCoreProperties.txt of Unicode 15.0: "Total code points: 4174".
	if unicode.Version == "15.0.0" && dicp != 4174 {
		t.Errorf("Default_Ignorable_Code_Point has %d code points, Unicode 15.0 says 4174", dicp)
	}
	for _, c := range []struct {
		r    rune
		name string
	}{{0x3164, "U+3164 HANGUL FILLER"}, {0xFE0F, "U+FE0F VARIATION SELECTOR-16"}, {0xE0100, "U+E0100 VARIATION SELECTOR-17"}, {0x2800, "U+2800 BRAILLE PATTERN BLANK"}} {
		if got := HiddenName(c.r); got != c.name {
			t.Errorf("HiddenName(%U) = %q, want %q", c.r, got, c.name)
		}
	}
}

// TestUnseenSetIsUnicodes: what the framing rule removes is the hidden set,
// White_Space and every C0 and C1 control, code point by code point.
func TestUnseenSetIsUnicodes(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := IsHidden(r) || unicode.Is(unicode.White_Space, r) || r < 0x20 || (r >= 0x7f && r <= 0x9f)
		if IsUnseen(r) != want {
			t.Errorf("IsUnseen(%U) = %v, want %v", r, !want, want)
		}
	}
}
