package text

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNameAndLine(t *testing.T) {
	for _, c := range []struct{ in, name, line string }{
		{"src/a.go", "src/a.go", "src/a.go"},
		{"docs/naïve.md", "docs/naïve.md", "docs/naïve.md"},
		{"a\nb", `"a\nb"`, `"a\nb"`},
		{"cr\rx", `"cr\rx"`, `"cr\rx"`},
		{"esc\x1b[2J", `"esc\x1b[2J"`, `"esc\x1b[2J"`},
		{"del\x7f", `"del\x7f"`, `"del\x7f"`},
		{"c1\u0085nel", `"c1\u0085nel"`, `"c1\u0085nel"`},
		{"csi\u009b", `"csi\u009b"`, `"csi\u009b"`},
		{"ls\u2028x", `"ls\u2028x"`, `"ls\u2028x"`},
		{"\tindented", `"\tindented"`, "\tindented"},
		{`say "hi"`, `"say \"hi\""`, `say "hi"`},
		{`"quoted"`, `"\"quoted\""`, `"\"quoted\""`},
		{" padded ", `" padded "`, " padded "},
		{"", `""`, ""},
		{"bad\xffutf8", `"bad\xffutf8"`, `"bad\xffutf8"`},
		{"evil\u202etxt.exe", `"evil\u202etxt.exe"`, "evil\u202etxt.exe"},
	} {
		if got := Name(c.in); got != c.name {
			t.Errorf("Name(%q) = %s, want %s", c.in, got, c.name)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %s, want %s", c.in, got, c.line)
		}
	}
}

// FuzzQuote: whatever the value, what Name and Line write holds no control
// character but (for Line) a tab, is valid UTF-8, and gives the value back:
// a written value that starts with a quote unquotes to it, any other is it.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"a", "a\nb", "\x1b[2J", "\u0085", `"x"`, " x", "\xff", "\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, q := range []struct {
			name string
			out  string
			tab  bool
		}{{"Name", Name(s), false}, {"Line", Line(s), true}} {
			if !utf8.ValidString(q.out) {
				t.Fatalf("%s(%q) = %q is not UTF-8", q.name, s, q.out)
			}
			if strings.ContainsFunc(q.out, func(r rune) bool { return IsControl(r) && (!q.tab || r != '\t') }) {
				t.Fatalf("%s(%q) = %q holds a control character", q.name, s, q.out)
			}
			back := q.out
			if strings.HasPrefix(q.out, `"`) {
				var err error
				if back, err = strconv.Unquote(q.out); err != nil {
					t.Fatalf("%s(%q) = %q does not unquote: %v", q.name, s, q.out, err)
				}
			}
			if back != s {
				t.Fatalf("%s(%q) = %q gives back %q", q.name, s, q.out, back)
			}
		}
	})
}

func TestJSONControls(t *testing.T) {
	in := `{"path":"a` + "\x7f\u0085\u009b" + `ü"}`
	want := `{"path":"a\u007f\u0085\u009bü"}`
	if got := JSONControls(in); got != want {
		t.Errorf("JSONControls(%q) = %q, want %q", in, got, want)
	}
	var v map[string]string
	if err := json.Unmarshal([]byte(want), &v); err != nil || v["path"] != "a\x7f\u0085\u009bü" {
		t.Errorf("the escaped JSON reads back as %q (%v)", v["path"], err)
	}
}
