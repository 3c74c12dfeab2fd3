package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIsBinary(t *testing.T) {
	nulAt := func(i, size int) []byte {
		b := []byte(strings.Repeat("a", size))
		b[i] = 0
		return b
	}
	tests := []struct {
		name string
		in   []byte
		want bool
	}{
		{"nil", nil, false},
		{"empty", []byte{}, false},
		{"text", []byte("package main\n"), false},
		{"invalid UTF-8 without NUL is text", []byte("\xff\xfe\x80"), false},
		{"NUL first", nulAt(0, 10), true},
		{"NUL in a short input", nulAt(9, 10), true},
		{"NUL at the last sniffed byte", nulAt(SniffLen-1, SniffLen+100), true},
		{"NUL just past the sniffed bytes", nulAt(SniffLen, SniffLen+100), false},
		{"NUL far after", nulAt(100000, 100001), false},
		{"input exactly SniffLen long, NUL last", nulAt(SniffLen-1, SniffLen), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsBinary(tt.in); got != tt.want {
				t.Errorf("IsBinary = %v, want %v", got, tt.want)
			}
		})
	}
}

// boundaries lists the offsets at which s may be cut without splitting a
// rune, decoding as Go does (an invalid byte is a sequence of its own).
func boundaries(s string) []int {
	b := []int{0}
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		b = append(b, i)
	}
	return b
}

// checkCut checks every property CutUTF8 promises for one input.
func checkCut(t *testing.T, s string, n int) {
	t.Helper()
	got, cut := CutUTF8(s, n)
	if !strings.HasPrefix(s, got) {
		t.Fatalf("CutUTF8(%q, %d) = %q: not a prefix", s, n, got)
	}
	if len(got) > max(n, 0) {
		t.Fatalf("CutUTF8(%q, %d) = %q: longer than %d", s, n, got, n)
	}
	if cut != (len(s) > n) {
		t.Fatalf("CutUTF8(%q, %d) reports cut=%v for a %d-byte input", s, n, cut, len(s))
	}
	if !cut && got != s {
		t.Fatalf("CutUTF8(%q, %d) = %q without a cut", s, n, got)
	}
	if utf8.ValidString(s) && !utf8.ValidString(got) {
		t.Fatalf("CutUTF8(%q, %d) = %q: invalid UTF-8 from valid input", s, n, got)
	}
	want := 0
	for _, b := range boundaries(s) {
		if b <= n {
			want = b
		}
	}
	if len(got) != want {
		t.Fatalf("CutUTF8(%q, %d) = %q (%d bytes); the longest cut is %q (%d bytes)", s, n, got, len(got), s[:want], want)
	}
}

func TestCutUTF8(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		n       int
		want    string
		wantCut bool
	}{
		{"fits", "abc", 3, "abc", false},
		{"fits with room", "abc", 10, "abc", false},
		{"empty", "", 0, "", false},
		{"ascii cut", "abcdef", 3, "abc", true},
		{"zero", "abc", 0, "", true},
		{"negative", "abc", -1, "", true},
		{"cut before a two-byte rune", "aé", 2, "a", true},
		{"cut after a two-byte rune", "aéb", 3, "aé", true},
		{"cut inside a three-byte rune, 1 in", "a€", 2, "a", true},
		{"cut inside a three-byte rune, 2 in", "a€", 3, "a", true},
		{"cut inside a four-byte rune, 3 in", "😀x", 3, "", true},
		{"cut right after a four-byte rune", "😀x", 4, "😀", true},
		{"several runes", "€€€", 7, "€€", true},
		{"invalid bytes are cut anywhere", "\xff\xff\xff\xff", 2, "\xff\xff", true},
		{"stray continuation bytes are cut anywhere", "a\x80\x80\x80\x80\x80", 3, "a\x80\x80", true},
		{"truncated sequence is not a rune", "a\xe2\x82\xe2\x82", 2, "a\xe2", true},
		{"valid rune after invalid bytes", "\xff€", 3, "\xff", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := CutUTF8(tt.in, tt.n)
			if got != tt.want || cut != tt.wantCut {
				t.Errorf("CutUTF8(%q, %d) = %q, %v; want %q, %v", tt.in, tt.n, got, cut, tt.want, tt.wantCut)
			}
			checkCut(t, tt.in, tt.n)
		})
	}
}

func TestCutUTF8EveryLength(t *testing.T) {
	for _, s := range []string{"aé€😀b", "日本語のテキスト", "\xffa\x80\xe2\x82\xacz\xf0\x9f", "ab\u2028cd"} {
		for n := -1; n <= len(s)+1; n++ {
			checkCut(t, s, n)
		}
	}
}

func FuzzCutUTF8(f *testing.F) {
	f.Add("abc", 2)
	f.Add("aé€😀", 5)
	f.Add("a\x80\x80\x80\x80", 3)
	f.Add("\xf0\x9f\x98", 2)
	f.Add("€", 0)
	f.Fuzz(func(t *testing.T, s string, n int) {
		checkCut(t, s, n)
	})
}
