//go:build cgo

package syntax

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// The copies under queries/ are the grammars' own: each equals, below its
// first line, the tags.scm of the module version go.mod requires, where
// the module cache holds it.
func TestQueriesAreTheGrammars(t *testing.T) {
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	header := regexp.MustCompile(`^; (github\.com/tree-sitter/tree-sitter-[a-z]+) (v[0-9.]+) queries/tags\.scm, MIT licence; copied byte for byte below this line\.\n`)
	files, _ := filepath.Glob("queries/*.scm")
	if len(files) != 8 {
		t.Fatalf("%d copies, want 8: %v", len(files), files)
	}
	for _, file := range files {
		copied, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := header.FindSubmatch(copied)
		if m == nil {
			t.Errorf("%s: no header line naming its module, version and licence", file)
			continue
		}
		module, version := string(m[1]), string(m[2])
		if !bytes.Contains(gomod, []byte("\t"+module+" "+version+"\n")) {
			t.Errorf("%s: %s %s is not what go.mod requires", file, module, version)
		}
		orig, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(cache)), module+"@"+version, "queries", "tags.scm"))
		if errors.Is(err, os.ErrNotExist) {
			t.Logf("%s: %s@%s not in the module cache; not compared", file, module, version)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(copied[len(m[0]):], orig) {
			t.Errorf("%s differs from %s@%s's queries/tags.scm", file, module, version)
		}
	}
}

// Every language's queries compile, and each file has a symbol.
func TestEveryLanguage(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range fixtures {
		file, err := Outline(context.Background(), f.path, []byte(f.src))
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		seen[file.Language] = seen[file.Language] || len(file.Symbols) > 0
	}
	for _, lang := range Languages() {
		if !seen[lang] {
			t.Errorf("%s: no fixture with a symbol", lang)
		}
	}
}

// A syntax error in any language is counted, at its line.
func TestParseErrorsEveryLanguage(t *testing.T) {
	for path, src := range map[string]string{
		"a.c": "int f(void) {\n  return 1 +;\n}\n", "a.cpp": "class A {\n  int x\n};\nint y = (;\n",
		"a.py": "def f(:\n    pass\n", "a.js": "function f( {\n}\n", "a.ts": "let x: = 1;\n",
		"a.tsx": "const a = <div>;\n", "A.java": "class A { void f( }\n", "a.rs": "fn f( {\n}\n",
		"a.go": "package p\nfunc f( {\n}\n",
	} {
		f, err := Outline(context.Background(), path, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if f.Errors == 0 || len(f.ErrorLines) == 0 || f.ErrorLines[0] > 4 {
			t.Errorf("%s: errors %d at lines %v", path, f.Errors, f.ErrorLines)
		}
	}
}

// The parser's own clock stops a parse that runs out of ParseTimeout.
func TestTimeout(t *testing.T) {
	defer func(d time.Duration) { ParseTimeout = d }(ParseTimeout)
	var b strings.Builder
	for b.Len() < 1<<20-200 {
		b.WriteString("int f(int a) { if (a) { return g(a, b[c], \"s\"); } else { while (x) x--; } }\n")
	}
	src := []byte(b.String())
	if _, err := Outline(context.Background(), "big.c", src); err != nil {
		t.Fatalf("with the default timeout: %v", err)
	}
	ParseTimeout = 5 * time.Millisecond
	start := time.Now()
	_, err := Outline(context.Background(), "big.c", src)
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("a 1 MiB parse within 5ms: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("stopped after %v", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	ParseTimeout = time.Minute
	if _, _, err := Identifiers(ctx, "big.c", src, "g"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the caller's deadline: %v", err)
	}
}

// Why parse does not call ParseCtx: it stores to this pointer when the
// context ends first, and it is nil unless set.
func TestParseCtxFlagIsNil(t *testing.T) {
	p := ts.NewParser()
	defer p.Close()
	if p.CancellationFlag() != nil { //nolint:staticcheck // SA1019: the point of the test
		t.Error("the parser has a cancellation flag by default: ParseCtx may now be safe")
	}
}

// Queries are shared by concurrent calls; each call has its own parser,
// tree and cursor.
func TestConcurrentCalls(t *testing.T) {
	want := map[string][]string{}
	for _, f := range fixtures {
		file, err := Outline(context.Background(), f.path, []byte(f.src))
		if err != nil {
			t.Fatal(err)
		}
		want[f.path] = symbolStrings(file.Symbols)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				for _, f := range fixtures {
					file, err := Outline(context.Background(), f.path, []byte(f.src))
					if err != nil {
						t.Error(err)
						return
					}
					if got := symbolStrings(file.Symbols); !slices.Equal(got, want[f.path]) {
						t.Errorf("%s: %q, alone %q", f.path, got, want[f.path])
					}
					if _, _, err := Identifiers(context.Background(), f.path, []byte(f.src), "target"); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
}

// Bytes that are not UTF-8, NULs and a lone BOM parse without a crash.
func TestNotUTF8(t *testing.T) {
	for _, lang := range Languages() {
		path := samplePath(lang)
		for _, src := range []string{"\xff\xfe\x00int f() {}\x80\n", "\xef\xbb\xbf", "def \xc3(x):\n", "fn \xe2\x82(\x00) {}"} {
			if _, err := Outline(context.Background(), path, []byte(src)); err != nil {
				t.Errorf("%s %q: %v", lang, src, err)
			}
			if _, _, err := Identifiers(context.Background(), path, []byte(src), "f"); err != nil {
				t.Errorf("%s %q: %v", lang, src, err)
			}
		}
	}
}
