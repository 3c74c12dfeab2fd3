package syntax

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
)

// samplePath is a file name of lang.
func samplePath(lang string) string {
	return map[string]string{
		"c": "x.c", "cpp": "x.cpp", "go": "x.go", "java": "X.java", "javascript": "x.js",
		"python": "x.py", "rust": "x.rs", "tsx": "x.tsx", "typescript": "x.ts",
	}[lang]
}

// FuzzOutline hands any bytes to a language's parser (C code, in our
// process; the input picks the language): no crash, no hang (the call's
// deadline), and every line, column and identifier within src.
//
//	go test -run '^$' -fuzz '^FuzzOutline$' -fuzztime=60000x -fuzzminimizetime=5s ./internal/syntax/
func FuzzOutline(f *testing.F) {
	for i, fx := range fixtures {
		lang, _ := LanguageOf(fx.path)
		f.Add([]byte(fx.src), "target", uint8(slices.Index(Languages(), lang)))
		f.Add([]byte(fx.src), "x", uint8(i)) // as another language
	}
	f.Add([]byte("\xff\xfe\x00{{{{((((\"\n'"), "x", uint8(0))
	f.Add([]byte("#define A(x) A(x) /* A */ \"A\"\n"), "A", uint8(0))
	f.Fuzz(func(t *testing.T, src []byte, name string, pick uint8) {
		lines := bytes.Count(src, []byte("\n")) + 1
		lang := Languages()[int(pick)%len(Languages())]
		path := samplePath(lang)
		file, err := Outline(context.Background(), path, src)
		if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrTimeout) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		checkFile(t, lang, file, lines)
		refs, file, err := Identifiers(context.Background(), path, src, name)
		if errors.Is(err, ErrTimeout) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		checkFile(t, lang, file, lines)
		index := lineStarts(src)
		for i, r := range refs {
			if r.Line < 1 || r.Line > lines || r.Column < 1 {
				t.Fatalf("%s: ref %+v outside %d lines", lang, r, lines)
			}
			at := index[r.Line-1] + r.Column - 1
			if at+len(name) > len(src) || string(src[at:at+len(name)]) != name {
				t.Fatalf("%s: ref %+v is not at %q", lang, r, name)
			}
			if i > 0 && (refs[i-1].Line > r.Line || refs[i-1].Line == r.Line && refs[i-1].Column >= r.Column) {
				t.Fatalf("%s: refs out of order: %+v", lang, refs)
			}
		}
	})
}

func checkFile(t *testing.T, lang string, f *File, lines int) {
	t.Helper()
	for _, s := range f.Symbols {
		if s.Name == "" || s.StartLine < 1 || s.StartLine > s.Line || s.Line > s.EndLine || s.EndLine > lines || s.Column < 1 {
			t.Fatalf("%s: symbol %+v outside %d lines", lang, s, lines)
		}
	}
	if len(f.ErrorLines) > maxErrorLines || f.Errors < len(f.ErrorLines) || f.Errors > 0 && len(f.ErrorLines) == 0 {
		t.Fatalf("%s: %d errors at %v", lang, f.Errors, f.ErrorLines)
	}
	for _, l := range f.ErrorLines {
		if l < 1 || l > lines {
			t.Fatalf("%s: error line %d outside %d lines", lang, l, lines)
		}
	}
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}
