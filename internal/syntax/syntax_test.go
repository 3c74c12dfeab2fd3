package syntax

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func symbolStrings(syms []Symbol) []string {
	var out []string
	for _, s := range syms {
		out = append(out, fmt.Sprintf("%s %s %s %d-%d %d:%d", s.Kind, s.Name, s.Container, s.StartLine, s.EndLine, s.Line, s.Column))
	}
	return out
}

func refStrings(refs []Ref) []string {
	var out []string
	for _, r := range refs {
		s := fmt.Sprintf("%d:%d", r.Line, r.Column)
		if r.Call {
			s += ":call"
		}
		if r.Definition {
			s += ":def"
		}
		out = append(out, s)
	}
	return out
}

// runnable are the fixtures this build parses.
func runnable(t *testing.T) []fixture {
	var out []fixture
	for _, f := range fixtures {
		if _, ok := LanguageOf(f.path); ok {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatal("no fixture for this build")
	}
	return out
}

// The same expectations hold in both builds: tree-sitter's Go and
// go/parser's agree.
func TestOutlines(t *testing.T) {
	for _, f := range runnable(t) {
		if f.symbols == nil {
			continue
		}
		t.Run(f.path, func(t *testing.T) {
			file, err := Outline(context.Background(), f.path, []byte(f.src))
			if err != nil {
				t.Fatal(err)
			}
			if file.Errors != 0 {
				t.Errorf("%d syntax errors, lines %v", file.Errors, file.ErrorLines)
			}
			if got := symbolStrings(file.Symbols); !slices.Equal(got, f.symbols) {
				t.Errorf("symbols:\n got %q\nwant %q", got, f.symbols)
			}
		})
	}
}

func TestIdentifiers(t *testing.T) {
	for _, f := range runnable(t) {
		if f.refs == nil {
			continue
		}
		t.Run(f.path, func(t *testing.T) {
			refs, file, err := Identifiers(context.Background(), f.path, []byte(f.src), "target")
			if err != nil {
				t.Fatal(err)
			}
			if file.Errors != 0 {
				t.Errorf("%d syntax errors, lines %v", file.Errors, file.ErrorLines)
			}
			if got := refStrings(refs); !slices.Equal(got, f.refs) {
				t.Errorf("refs:\n got %q\nwant %q", got, f.refs)
			}
		})
	}
}

func TestLanguageOf(t *testing.T) {
	for path, want := range map[string]string{
		"a.go": "go", "dir/x.c": "c", "x.h": "c", "x.cc": "cpp", "x.cpp": "cpp", "x.cxx": "cpp",
		"x.c++": "cpp", "x.hh": "cpp", "x.hpp": "cpp", "x.hxx": "cpp", "x.h++": "cpp",
		"x.py": "python", "x.pyi": "python", "x.js": "javascript", "x.mjs": "javascript",
		"x.cjs": "javascript", "x.jsx": "javascript", "x.ts": "typescript", "x.mts": "typescript",
		"x.cts": "typescript", "x.tsx": "tsx", "X.java": "java", "lib.rs": "rust",
		"README.md": "", "Makefile": "", "go": "", "x.go.orig": "",
	} {
		got, ok := LanguageOf(path)
		if want != "" && !slices.Contains(Languages(), want) {
			want = "" // not parsed by this build
		}
		if got != want || ok != (want != "") {
			t.Errorf("LanguageOf(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
	if !slices.IsSorted(Languages()) || !slices.Contains(Languages(), "go") {
		t.Errorf("Languages() = %v", Languages())
	}
	want := map[string]int{"tree-sitter": 9, "go/parser": 1}[ParserName()]
	if len(Languages()) != want {
		t.Errorf("%s parses %v", ParserName(), Languages())
	}
}

func TestUnsupported(t *testing.T) {
	if _, err := Outline(context.Background(), "README.md", []byte("# x")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Outline of a .md: %v", err)
	}
	if _, _, err := Identifiers(context.Background(), "x.txt", []byte("x"), "x"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Identifiers of a .txt: %v", err)
	}
}

func TestTooLarge(t *testing.T) {
	defer func(n int) { MaxFileBytes = n }(MaxFileBytes)
	MaxFileBytes = 64
	src := []byte("package p\n\nfunc f() {}\n" + strings.Repeat("// pad\n", 10))
	if _, err := Outline(context.Background(), "a.go", src); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Outline over the cap: %v", err)
	}
	if _, _, err := Identifiers(context.Background(), "a.go", src, "f"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Identifiers over the cap: %v", err)
	}
	if _, err := Outline(context.Background(), "a.go", src[:64]); err != nil {
		t.Errorf("Outline at the cap: %v", err)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Outline(ctx, "a.go", []byte("package p")); !errors.Is(err, context.Canceled) {
		t.Errorf("Outline with a canceled context: %v", err)
	}
}

// A syntax error is reported with its line, and the symbols around it
// still come back.
func TestParseErrorsReported(t *testing.T) {
	src := "package p\n\nfunc ok() {}\n\nfunc broken( {\n}\n\nfunc later() {}\n"
	f, err := Outline(context.Background(), "a.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if f.Errors == 0 || len(f.ErrorLines) == 0 || f.ErrorLines[0] < 5 || f.ErrorLines[0] > 6 {
		t.Errorf("errors %d at lines %v; want some at line 5 or 6", f.Errors, f.ErrorLines)
	}
	if len(f.Symbols) == 0 || f.Symbols[0].Name != "ok" {
		t.Errorf("symbols %q; want ok first", symbolStrings(f.Symbols))
	}
}

// ErrorLines keeps the smallest distinct lines, at most maxErrorLines.
func TestAddErrorLine(t *testing.T) {
	var lines []int
	for _, l := range []int{30, 5, 5, 12, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11} {
		lines = addErrorLine(lines, l)
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; !slices.Equal(lines, want) {
		t.Errorf("got %v, want %v", lines, want)
	}
}
