package repo

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

func TestCleanPath(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		code errcode.Code // "" when the path is accepted
	}{
		{"empty names the root", "", "", ""},
		{"slash names the root", "/", "", ""},
		{"several slashes name the root", "///", "", ""},
		{"dot names the root", ".", "", ""},
		{"dot slash names the root", "./", "", ""},
		{"plain path", "src/main.go", "src/main.go", ""},
		{"dot and empty segments dropped", "a/./b//c/", "a/b/c", ""},
		{"leading dot segment dropped", "./a", "a", ""},
		{"dots inside a name are legal", "..foo", "..foo", ""},
		{"dots starting a later name are legal", "a/..b", "a/..b", ""},
		{"dots ending a name are legal", "a/b..", "a/b..", ""},
		{"three dots is a name", "...", "...", ""},
		{"spaces and unicode", "docs/a b/über.md", "docs/a b/über.md", ""},
		{"backslash is an ordinary character", `a\..\b`, `a\..\b`, ""},
		{"limit length accepted", strings.Repeat("a/", 2047) + "bc", strings.Repeat("a/", 2047) + "bc", ""},

		{"parent segment first", "../x", "", errcode.PathDenied},
		{"parent segment alone", "..", "", errcode.PathDenied},
		{"climbing past the root", "a/../../x", "", errcode.PathDenied},
		{"parent segment last", "a/..", "", errcode.PathDenied},
		{"parent segment that stays inside", "a/../b", "", errcode.PathDenied},
		{"absolute path", "/etc/passwd", "", errcode.PathDenied},
		{"absolute with double slash", "//etc/passwd", "", errcode.PathDenied},
		{"NUL", "a\x00b", "", errcode.InvalidArgument},
		{"newline", "a\nb", "", errcode.InvalidArgument},
		{"tab", "a\tb", "", errcode.InvalidArgument},
		{"carriage return", "a\r", "", errcode.InvalidArgument},
		{"DEL", "a\x7f", "", errcode.InvalidArgument},
		{"invalid UTF-8", "a\xffb", "", errcode.InvalidArgument},
		{"over the length limit", strings.Repeat("a", 5000), "", errcode.InvalidArgument},
		{"one over the length limit", strings.Repeat("a", maxPathLen+1), "", errcode.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanPath(tt.in)
			if tt.code == "" {
				if err != nil || got != tt.want {
					t.Errorf("CleanPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("CleanPath(%q) = %q, want a %s error", tt.in, got, tt.code)
			}
			if c := errcode.Of(err); c != tt.code {
				t.Errorf("CleanPath(%q): %v; want code %s", tt.in, err, tt.code)
			}
			if got != "" {
				t.Errorf("CleanPath(%q) returned %q with its error", tt.in, got)
			}
		})
	}
}

func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"", "/", "a/./b//c/", "..foo", "../x", "a/..", "/etc", "a\x00", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := CleanPath(p)
		if err != nil {
			if c := errcode.Of(err); c != errcode.PathDenied && c != errcode.InvalidArgument {
				t.Fatalf("CleanPath(%q): %v has code %s", p, err, c)
			}
			return
		}
		if strings.HasPrefix(got, "/") || strings.HasSuffix(got, "/") || strings.Contains(got, "//") {
			t.Fatalf("CleanPath(%q) = %q: not in git's form", p, got)
		}
		for _, seg := range strings.Split(got, "/") {
			if seg == ".." || (seg == "." && got != "") {
				t.Fatalf("CleanPath(%q) = %q has segment %q", p, got, seg)
			}
		}
		if again, err := CleanPath(got); err != nil || again != got {
			t.Fatalf("CleanPath(CleanPath(%q)) = %q, %v; want %q", p, again, err, got)
		}
	})
}
