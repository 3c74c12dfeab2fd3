package text

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"
)

// jsonLenRef is the definition JSONLen must meet: the length of the JSON
// string encoding/json writes for s, without its quotes.
func jsonLenRef(s string) int {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return len(b) - 2
}

func TestJSONLenMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int // spelled out (-1: not), so a change in encoding/json is noticed too
	}{
		{"empty", "", 0},
		{"ascii", "hello, world", 12},
		{"quote and backslash", `a"b\c`, 7},
		{"short escapes", "\b\f\n\r\t", 10},
		{"html characters", "<>&", 18},
		{"other control characters", "\x00\x01\x1f", 18},
		{"DEL is not escaped", "\x7f", 1},
		{"slash is not escaped", "a/b", 3},
		{"two-byte rune", "é", 2},
		{"three-byte rune", "€", 3},
		{"four-byte rune", "😀", 4},
		{"line separator", "\u2028", 6},
		{"paragraph separator", "\u2029", 6},
		{"neighbours of the separators", "\u2027\u202a", 6},
		{"valid U+FFFD stays as is", "\ufffd", 3},
		{"invalid byte", "\xff", 6},
		{"lone continuation byte", "\x80", 6},
		{"truncated three-byte sequence", "\xe2\x82", 12},
		{"truncated sequence before ASCII", "\xe2\x82a", 13},
		{"overlong encoding", "\xc0\xaf", 12},
		{"surrogate half", "\xed\xa0\x80", 18},
		{"beyond U+10FFFF", "\xf4\x90\x80\x80", 24},
		{"invalid at the very end", "abc\xf0\x9f\x98", 21},
		{"mixed", "<a href=\"x\">\t€\u2028\xff</a>\n", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := jsonLenRef(tt.in)
			if tt.want >= 0 && ref != tt.want {
				t.Fatalf("encoding/json gives %d for %q, the table says %d", ref, tt.in, tt.want)
			}
			if got := JSONLen(tt.in); got != ref {
				t.Errorf("JSONLen(%q) = %d, want %d", tt.in, got, ref)
			}
			if got := JSONLen([]byte(tt.in)); got != ref {
				t.Errorf("JSONLen([]byte(%q)) = %d, want %d", tt.in, got, ref)
			}
		})
	}
}

func TestJSONLenEveryByte(t *testing.T) {
	for b := 0; b < 256; b++ {
		for _, s := range []string{string([]byte{byte(b)}), "x" + string([]byte{byte(b)}) + "y"} {
			if got, want := JSONLen(s), jsonLenRef(s); got != want {
				t.Errorf("JSONLen(%q) = %d, want %d", s, got, want)
			}
		}
	}
}

func TestJSONLenLongInput(t *testing.T) {
	s := strings.Repeat("line <1> & \"two\"\t€\u2028\xff\n", 10000)
	if got, want := JSONLen(s), jsonLenRef(s); got != want {
		t.Errorf("JSONLen of %d bytes = %d, want %d", len(s), got, want)
	}
}

func FuzzJSONLen(f *testing.F) {
	for _, s := range []string{"", "a", "<>&", "\x00\x1f\x7f", "\u2028\u2029", "\xff\xfe", "\xe2\x82", "é€😀", "\"\\\b\f\n\r\t", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := jsonLenRef(s)
		if got := JSONLen(s); got != want {
			t.Errorf("JSONLen(%q) = %d, want %d", s, got, want)
		}
		if got := JSONLen([]byte(s)); got != want {
			t.Errorf("JSONLen([]byte(%q)) = %d, want %d", s, got, want)
		}
	})
}

func BenchmarkJSONLen(b *testing.B) {
	// Source-like text with some escapes and multi-byte runes.
	s := strings.Repeat("\tif a < b && c > d { return \"x\" } // größer €\n", 1500)
	data := []byte(s)
	b.Run("string", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		b.ReportAllocs()
		for b.Loop() {
			JSONLen(s)
		}
	})
	b.Run("bytes", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			JSONLen(data)
		}
	})
}

// Lengths counts a text as a client does once it has decoded the JSON the
// server sent: UTF-16 units as JavaScript's length, UTF-8 bytes of the
// decoded string (an invalid byte is U+FFFD), and JSON as JSONLen.
func TestLengthsAsClientsCount(t *testing.T) {
	ins := []string{"", "plain", "tab\tquote\"newline\n", "日本語", "😀é", "\u2028", "\xff\xfe", "\xe2\x82a", "<a>&\x00",
		strings.Repeat("line <1> & \"two\"\t€\u2028\xff😀\n", 100)}
	for b := range 256 {
		ins = append(ins, "x"+string([]byte{byte(b)})+"y")
	}
	for _, s := range ins {
		enc, _ := json.Marshal(s)
		var decoded string
		if err := json.Unmarshal(enc, &decoded); err != nil {
			t.Fatal(err)
		}
		for u, want := range map[Unit]int{JSONBytes: len(enc) - 2, UTF16Units: len(utf16.Encode([]rune(decoded))), UTF8Bytes: len(decoded)} {
			if j, n := Lengths(s, u); n != want || j != len(enc)-2 {
				t.Errorf("Lengths(%.30q, %v) = %d, %d; want %d, %d", s, u, j, n, len(enc)-2, want)
			}
			if _, n := Lengths([]byte(s), u); n != want {
				t.Errorf("Lengths([]byte(%.30q), %v) = %d, want %d", s, u, n, want)
			}
		}
	}
}
