package argcheck

import (
	"strings"
	"testing"
)

func TestWholeNumber(t *testing.T) {
	cases := []struct {
		lit              string
		v                int64
		whole, fits, neg bool
	}{
		{"0", 0, true, true, false},
		{"-0", 0, true, true, false},
		{"0.000", 0, true, true, false},
		{"12", 12, true, true, false},
		{"-12", -12, true, true, true},
		{"1.5", 0, false, false, false},
		{"1.50e1", 15, true, true, false},
		{"1500e-2", 15, true, true, false},
		{"1501e-2", 0, false, false, false},
		{"9223372036854775807", 9223372036854775807, true, true, false},
		{"9223372036854775808", 0, true, false, false},
		{"-9223372036854775808", -9223372036854775808, true, true, true},
		{"-9223372036854775809", 0, true, false, true},
		{"1e19", 0, true, false, false},
		{"1E18", 1e18, true, true, false},
		{"1e+2", 100, true, true, false},
		{"1e400", 0, true, false, false},
		{"-1e999999999999999999999", 0, true, false, true},
		{"1e-999999999999999999999", 0, false, false, false},
		{"0e999999999999", 0, true, true, false},
	}
	for _, c := range cases {
		v, whole, fits, neg := wholeNumber(c.lit)
		if v != c.v || whole != c.whole || fits != c.fits || (c.whole && !c.fits && neg != c.neg) {
			t.Errorf("wholeNumber(%s) = %d, whole %t, fits %t, neg %t; want %d, %t, %t, %t", c.lit, v, whole, fits, neg, c.v, c.whole, c.fits, c.neg)
		}
	}
}

func TestClosestParam(t *testing.T) {
	known := []string{"owner", "repo", "path", "ref", "startLine", "endLine", "contextLines", "maxBytes", "paths"}
	for _, c := range []struct{ unknown, want string }{
		{"file_path", "path"},
		{"FILE-PATH", "path"},
		{"Path", "path"},
		{"pathes", "path"}, // "path" begins it: a prefix comes before "paths", one edit away
		{"start_line", "startLine"},
		{"STARTLINE", "startLine"},
		{"line", "endLine"},       // ends both: endLine is fewer edits away
		{"lines", "contextLines"}, // ends contextLines only
		{"max_bytes", "maxBytes"},
		{"max", "maxBytes"},
		{"refs", "ref"},
		{"ownr", "owner"},
		{"repos", "repo"},
		{"branch", ""},
		{"x", ""},
		{"re", "ref"}, // two edits from repo too: ref comes first in distance
		{"", ""},
		{"_", ""},
		{strings.Repeat("path", 20), ""}, // too long to compare
	} {
		if got := closestParam(c.unknown, known, nil); got != c.want {
			t.Errorf("closestParam(%q) = %q, want %q", c.unknown, got, c.want)
		}
	}
}

func TestIsNumberLiteral(t *testing.T) {
	numbers := []string{"0", "-0", "950", "-1", "2.0", "1e3", "1E+3", "1.5e-2", "99999999999999999999"}
	others := []string{"", "-", " 950", "950 ", "+1", "01", "1.", ".5", "1e", "1e+", "0x10", "1_000", "NaN", "Infinity", "true", "1,5"}
	for _, s := range numbers {
		if !isNumberLiteral(s) {
			t.Errorf("isNumberLiteral(%q) = false, want true", s)
		}
	}
	for _, s := range others {
		if isNumberLiteral(s) {
			t.Errorf("isNumberLiteral(%q) = true, want false", s)
		}
	}
}
