package text

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// trojanLine is the "commenting-out" example of the Trojan Source paper
// (CVE-2021-42574): shown, it reads as a comment and then an if; compiled,
// the whole line is one comment.
var trojanLine = "/*\u202E } \u2066if (isAdmin)\u2069 \u2066 begin admins only */"

func TestScanTextTrojanSource(t *testing.T) {
	data := []byte("int main() {\n    bool isAdmin = false;\n    " + trojanLine + "\n        printf(\"You are an admin.\\n\");\n    /* end admins only \u202E { \u2066*/\n}\n")
	h := ScanText(data, 1)
	if !slices.Equal(h.Lines, []int{3, 5}) || h.Count != 2 {
		t.Errorf("lines %v (count %d), want [3 5] (2)", h.Lines, h.Count)
	}
	want := []string{"U+202E RIGHT-TO-LEFT OVERRIDE", "U+2066 LEFT-TO-RIGHT ISOLATE", "U+2069 POP DIRECTIONAL ISOLATE"}
	if got := h.PointNames(); !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	if got := h.LineList(); got != "3, 5" {
		t.Errorf("LineList() = %q", got)
	}
}

func TestIsHiddenRanges(t *testing.T) {
	hidden := []rune{0x202A, 0x202E, 0x2066, 0x2069, 0x200E, 0x200F, 0x061C, 0x200B, 0x200D, 0x2060, 0x2064, 0xFEFF, 0x00AD, 0xE0000, 0xE0041, 0xE007F,
		0x2065, 0x206A, 0xE0080} // reserved and deprecated: Default_Ignorable_Code_Point all the same
	shown := []rune{'a', 0x2029, 0x2070, 0x200A, 0x2010, 0x00AC, 0x00AE, 0xFEFE, 0x061B, 'ï', 0x00A0, 0x3000}
	for _, r := range hidden {
		if !IsHidden(r) {
			t.Errorf("IsHidden(%U) = false", r)
		}
		if n := HiddenName(r); !strings.HasPrefix(n, fmt.Sprintf("U+%04X ", r)) {
			t.Errorf("HiddenName(%U) = %q", r, n)
		}
	}
	for _, r := range shown {
		if IsHidden(r) {
			t.Errorf("IsHidden(%U) = true", r)
		}
	}
	if got := HiddenName(0xE0041); got != "U+E0041 TAG 'A'" {
		t.Errorf("a tag names the character it stands for: %q", got)
	}
}

func TestScanTextByteOrderMark(t *testing.T) {
	if h := ScanText([]byte("\uFEFFpackage a\n"), 1); h.Found() {
		t.Errorf("a byte order mark at the start of a file is flagged: %v", h.Lines)
	}
	if h := ScanText([]byte("\uFEFFpackage a\n"), 2); !h.Found() {
		t.Error("U+FEFF at the start of a line other than the first is not flagged")
	}
	if h := ScanText([]byte("a\uFEFF\n"), 1); !h.Found() {
		t.Error("U+FEFF inside the first line is not flagged")
	}
}

func TestScanTextCountsPastTheKeptLines(t *testing.T) {
	data := strings.Repeat("x\u200By\n", 25)
	h := ScanText([]byte(data), 10)
	if len(h.Lines) != MaxHiddenLines || h.Count != 25 || h.Lines[0] != 10 || h.Lines[19] != 29 {
		t.Errorf("lines %v count %d", h.Lines, h.Count)
	}
	if got := h.LineList(); !strings.HasSuffix(got, ", 29, … (25 lines)") {
		t.Errorf("LineList() = %q", got)
	}
}

// FuzzScanText: the scan finds a line exactly when decoding it finds a
// hidden character (the byte order mark of line 1 aside), and names each
// code point it found once, in order.
func FuzzScanText(f *testing.F) {
	f.Add([]byte(trojanLine + "\nplain\n\uFEFFbom"))
	f.Add([]byte("\xe2\x80\xae\xff\xf3\xa0\x81"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := ScanText(data, 1)
		var want []int
		for i, line := range strings.Split(string(data), "\n") {
			s := line
			if i == 0 {
				s = strings.TrimPrefix(s, "\uFEFF")
			}
			if strings.ContainsFunc(s, IsHidden) {
				want = append(want, i+1)
			}
		}
		if h.Count != len(want) || !slices.Equal(h.Lines, want[:min(len(want), MaxHiddenLines)]) {
			t.Fatalf("lines %v (count %d), want %v", h.Lines, h.Count, want)
		}
		if !slices.IsSorted(h.Points) || len(slices.Compact(slices.Clone(h.Points))) != len(h.Points) {
			t.Fatalf("points %U not sorted and distinct", h.Points)
		}
		for _, r := range h.Points {
			if !IsHidden(r) || !utf8.ValidRune(r) {
				t.Fatalf("point %U is not hidden", r)
			}
		}
	})
}

// BenchmarkScanText scans a 64 KB part: plain ASCII (the fast path) and
// text full of typographic punctuation (U+2014, U+201C, whose lead byte
// is a hidden character's, so every line is decoded).
func BenchmarkScanText(b *testing.B) {
	for _, c := range []struct{ name, line string }{
		{"ascii", "\tif err := run(ctx, args); err != nil { return err }\n"},
		{"punctuation", "“Quoted” — and so on… “again” — and again…\n"},
	} {
		data := []byte(strings.Repeat(c.line, 64<<10/len(c.line)))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				ScanText(data, 1)
			}
		})
	}
}
