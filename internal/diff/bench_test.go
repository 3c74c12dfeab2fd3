package diff

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchDiff generates a diff of files sections of roughly 3.4 KB each.
func benchDiff(files int) []byte {
	var b bytes.Buffer
	body := strings.Repeat("x", 70)
	for f := 0; f < files; f++ {
		name := fmt.Sprintf("dir%03d/file name %05d.go", f%100, f)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1234567..89abcde 100644\n--- a/%s\t\n+++ b/%s\t\n", name, name, name, name)
		b.WriteString("@@ -10,40 +10,40 @@ func context()\n")
		for l := 0; l < 40; l++ {
			switch l % 10 {
			case 3:
				fmt.Fprintf(&b, "-%s %d\n+%s %d\n", body, l, body, l+1)
			case 7:
				b.WriteString(" diff --git a/not b/a header\n")
			default:
				fmt.Fprintf(&b, " %s %d\n", body, l)
			}
		}
	}
	return b.Bytes()
}

func BenchmarkSplitter(b *testing.B) {
	data := benchDiff(3000)
	b.Logf("input: %.1f MB, 3000 files", float64(len(data))/1e6)
	b.Run("Next", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			s := NewSplitter(bytes.NewReader(data))
			n := 0
			for {
				_, err := s.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != 3000 {
				b.Fatalf("%d sections", n)
			}
		}
	})
	b.Run("NextHeader", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			s := NewSplitter(bytes.NewReader(data))
			var total int64
			for {
				_, n, err := s.NextHeader()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				total += n
			}
			if total != int64(len(data)) {
				b.Fatalf("sizes sum to %d", total)
			}
		}
	})
}

func BenchmarkParseHeader(b *testing.B) {
	headers := map[string][]string{
		"modify": {"diff --git a/cmd/main.go b/cmd/main.go\n", "index 1234567..89abcde 100644\n", "--- a/cmd/main.go\n", "+++ b/cmd/main.go\n"},
		"rename": {"diff --git a/old name.go b/new name.go\n", "similarity index 91%\n", "rename from old name.go\n", "rename to new name.go\n", "index 1234567..89abcde 100644\n", "--- a/old name.go\t\n", "+++ b/new name.go\t\n"},
		"quoted": {"diff --git \"a/na\\303\\257ve\\tcaf\\303\\251.md\" \"b/na\\303\\257ve\\tcaf\\303\\251.md\"\n", "new file mode 100644\n", "index 0000000..89abcde\n", "--- /dev/null\n", "+++ \"b/na\\303\\257ve\\tcaf\\303\\251.md\"\n"},
	}
	for name, lines := range headers {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseHeader(lines); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A part that starts deep in a large file's patch: ReadPage reads the
// section's lines before the start, following its hunks (seekLine), here
// 2,700 hunks of 13 lines, as in the paging bench's 1.6 MB file.
func BenchmarkReadPageDeepStart(b *testing.B) {
	var in bytes.Buffer
	in.WriteString("diff --git a/big.go b/big.go\nindex 1234567..89abcde 100644\n--- a/big.go\n+++ b/big.go\n")
	for h := range 2700 {
		fmt.Fprintf(&in, "@@ -%d,12 +%d,12 @@ func f%d()\n", 1+h*20, 1+h*20, h)
		for l := range 12 {
			if l%4 == 1 {
				fmt.Fprintf(&in, "-\told value %d of a line of typical length\n+\tnew value %d of a line of typical length\n", l, l)
			} else {
				fmt.Fprintf(&in, " \tcontext %d of a line of typical length\n", l)
			}
		}
	}
	data := in.Bytes()
	b.Logf("input: %.1f MB", float64(len(data))/1e6)
	b.SetBytes(int64(len(data)) / 2)
	b.ReportAllocs()
	for b.Loop() {
		page, err := ReadPage(bytes.NewReader(data), PageOptions{Start: Pos{Line: 20000}, Room: 64 << 10})
		if err != nil || page.Next == nil {
			b.Fatal(err, page)
		}
	}
}
