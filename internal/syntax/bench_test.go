//go:build cgo

package syntax

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// bigFile is a generated file of about n lines in lang.
func bigFile(lang string, n int) []byte {
	var b strings.Builder
	switch lang {
	case "go":
		b.WriteString("package p\n\n")
		for i := 0; i < n/9; i++ {
			fmt.Fprintf(&b, "// f%d does a thing.\nfunc f%d(a, b int) int {\n\tif a > b {\n\t\treturn g(a, b)\n\t}\n\ts := \"g(a)\"\n\treturn len(s) + b\n}\n\n", i, i)
		}
	case "c":
		for i := 0; i < n/8; i++ {
			fmt.Fprintf(&b, "/* f%d does a thing. */\nstatic int f%d(int a, int b)\n{\n\tif (a > b)\n\t\treturn g(a, b);\n\treturn strlen(\"g(a)\") + b;\n}\n\n", i, i)
		}
	}
	return []byte(b.String())
}

// go test -run '^$' -bench . ./internal/syntax/
func BenchmarkOutline10kLines(b *testing.B) {
	for _, lang := range []string{"go", "c"} {
		src := bigFile(lang, 10000)
		b.Run(lang, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := Outline(context.Background(), samplePath(lang), src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkIdentifiers10kLines(b *testing.B) {
	for _, lang := range []string{"go", "c"} {
		src := bigFile(lang, 10000)
		b.Run(lang, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if refs, _, err := Identifiers(context.Background(), samplePath(lang), src, "g"); err != nil || len(refs) == 0 {
					b.Fatal(err, len(refs))
				}
			}
		})
	}
}

func BenchmarkGoParserOutline10kLines(b *testing.B) {
	src := bigFile("go", 10000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, _, err := goAnalyze(context.Background(), src, ""); err != nil {
			b.Fatal(err)
		}
	}
}
