package diff

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// refSplit is the splitting rule stated without streaming: every line that
// starts with "diff --git " starts a section (inside a hunk such a line is
// not hunk content, so it ends the hunk), and bytes before the first one
// are dropped.
func refSplit(data []byte) [][]byte {
	var out [][]byte
	start := -1
	for i := 0; i < len(data); {
		if bytes.HasPrefix(data[i:], []byte(diffGitPrefix)) {
			if start >= 0 {
				out = append(out, data[start:i])
			}
			start = i
		}
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	if start >= 0 {
		out = append(out, data[start:])
	}
	return out
}

func TestSplitter(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // section paths (NewPath)
	}{
		{"empty", "", nil},
		{"preamble only", "From abc\nSubject: x\n\n diff --git a/x b/x\nxdiff --git a/y b/y\n", nil},
		{
			"preamble then sections",
			"commit 1\n\n    diff --git a/m b/m\n\ndiff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
			[]string{"x"},
		},
		{
			"content lines that look like headers",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n diff --git a/evil b/evil\n-diff --git a/e2 b/e2\n+diff --git a/e3 b/e3\n+@@ -1 +1 @@\n\\ No newline at end of file\ndiff --git a/y b/y\nold mode 100644\nnew mode 100755\n",
			[]string{"x", "y"},
		},
		{
			"sections without hunks",
			"diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\ndiff --git a/m b/m\nold mode 100644\nnew mode 100755\ndiff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n",
			[]string{"b", "m", "e"},
		},
		{
			"hunk counts too large",
			"diff --git a/x b/x\n@@ -1,50 +1,50 @@\n a\n-b\n+c\ndiff --git a/y b/y\n@@ -1 +1 @@\n-a\n+b\n",
			[]string{"x", "y"},
		},
		{
			"hunk counts too small",
			"diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n-extra\n+extra\n diff --git a/no b/no\ndiff --git a/y b/y\n",
			[]string{"x", "y"},
		},
		{
			"CRLF content and no final newline",
			"diff --git a/x b/x\r\nindex 1..2 100644\r\n--- a/x\r\n+++ b/x\r\n@@ -1,2 +1,2 @@\r\n a\r\n\r\n-b\r\n+c",
			[]string{"x"},
		},
		{
			"last line is a header without newline",
			"diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y",
			[]string{"x", "y"},
		},
		{
			"binary patch body",
			"diff --git a/x b/x\nindex 1..2\nGIT binary patch\nliteral 5\nMcmZQzU|?c^0000\n\nliteral 0\nHcmV?d00001\n\ndiff --git a/y b/y\nindex 1..2\nBinary files a/y and b/y differ\n",
			[]string{"x", "y"},
		},
		{
			"Binary files line after a hunk is body",
			"diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\nBinary files a/x and b/x differ\n",
			[]string{"x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := refSplit([]byte(tt.input))
			for _, size := range []int{16, 17, 31, readBufSize} {
				for _, wrap := range []func(io.Reader) io.Reader{
					func(r io.Reader) io.Reader { return r },
					iotest.OneByteReader,
					iotest.DataErrReader,
				} {
					secs := splitAll(t, newSplitterSize(wrap(strings.NewReader(tt.input)), size))
					if len(secs) != len(tt.want) || len(secs) != len(ref) {
						t.Fatalf("size %d: %d sections, want %d (ref %d)", size, len(secs), len(tt.want), len(ref))
					}
					for i, sec := range secs {
						if sec.Header.NewPath != tt.want[i] {
							t.Errorf("section %d: path %q, want %q", i, sec.Header.NewPath, tt.want[i])
						}
						if !bytes.Equal(sec.Raw, ref[i]) {
							t.Errorf("size %d: section %d Raw\n%q\nwant\n%q", size, i, sec.Raw, ref[i])
						}
					}
				}
			}
		})
	}
}

func TestSplitterBinaryFlag(t *testing.T) {
	in := "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\nBinary files a/x and b/x differ\ndiff --git a/y b/y\nindex 1..2\nBinary files a/y and b/y differ\n"
	secs := splitAll(t, NewSplitter(strings.NewReader(in)))
	if len(secs) != 2 || secs[0].Header.IsBinary || !secs[1].Header.IsBinary {
		t.Fatalf("IsBinary must come from the header only: %+v", secs)
	}
}

func TestSplitterHeaderError(t *testing.T) {
	in := "diff --git nonsense\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/ok b/ok\n"
	s := NewSplitter(strings.NewReader(in))
	sec, err := s.Next()
	var he *HeaderError
	if !errors.As(err, &he) || he.Offset != 0 || sec == nil || string(sec.Raw) != "diff --git nonsense\n@@ -1 +1 @@\n-a\n+b\n" {
		t.Fatalf("got %v, %v", sec, err)
	}
	h, size, err := s.NextHeader()
	if err != nil || h.NewPath != "ok" || size != int64(len("diff --git a/ok b/ok\n")) {
		t.Fatalf("after a bad header: %+v, %d, %v", h, size, err)
	}
	if _, err := s.Next(); err != io.EOF {
		t.Fatalf("want io.EOF, got %v", err)
	}
	if _, _, err := s.NextHeader(); err != io.EOF {
		t.Fatalf("want io.EOF again, got %v", err)
	}

	// Offsets count the preamble too.
	s = NewSplitter(strings.NewReader("pre\ndiff --git x\n"))
	if _, err := s.Next(); !errors.As(err, &he) || he.Offset != 4 {
		t.Fatalf("offset: %v", err)
	}
}

func TestSplitterReadError(t *testing.T) {
	boom := errors.New("boom")
	in := "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y\n"
	r := io.MultiReader(strings.NewReader(in), iotest.ErrReader(boom))
	s := NewSplitter(r)
	if sec, err := s.Next(); err != nil || sec.Header.NewPath != "x" {
		t.Fatalf("first section: %v", err)
	}
	if _, err := s.Next(); err != boom {
		t.Fatalf("want boom, got %v", err)
	}
	if _, _, err := s.NextHeader(); err != boom {
		t.Fatalf("error must be sticky, got %v", err)
	}
	s = NewSplitter(iotest.ErrReader(boom))
	if _, err := s.Next(); err != boom {
		t.Fatalf("preamble read error: %v", err)
	}
}

// hugeSection streams one section with a body of about n bytes, without
// holding it in memory.
type hugeSection struct {
	head, line []byte
	left       int
	pos        int
}

func newHugeSection(n int) *hugeSection {
	lines := n / 64
	return &hugeSection{
		head: []byte("diff --git a/big b/big\nindex 1..2 100644\n--- a/big\n+++ b/big\n@@ -1," +
			itoa(lines) + " +1," + itoa(lines) + " @@\n"),
		line: []byte(" " + strings.Repeat("x", 62) + "\n"),
		left: lines,
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

func (h *hugeSection) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(h.head) > 0 {
			c := copy(p[n:], h.head)
			h.head = h.head[c:]
			n += c
			continue
		}
		if h.left == 0 {
			break
		}
		c := copy(p[n:], h.line[h.pos:])
		n += c
		if h.pos += c; h.pos == len(h.line) {
			h.pos = 0
			h.left--
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func TestNextHeaderMemory(t *testing.T) {
	const size = 256 << 20
	r := io.MultiReader(newHugeSection(size), strings.NewReader("diff --git a/after b/after\n"))
	s := NewSplitter(r)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h, n, err := s.NextHeader()
	runtime.ReadMemStats(&after)
	if err != nil || h.NewPath != "big" || n < size-64 {
		t.Fatalf("got %+v, %d, %v", h, n, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("skipping a %d MB section allocated %d bytes", size>>20, grew)
	}
	if h, _, err := s.NextHeader(); err != nil || h.NewPath != "after" {
		t.Fatalf("next: %+v, %v", h, err)
	}
}

func TestNextHeaderCapsHeader(t *testing.T) {
	// A malformed header region that never ends must not be kept whole.
	var b strings.Builder
	b.WriteString("diff --git a/x b/x\n")
	for b.Len() < 3*maxHeaderBytes {
		b.WriteString("index " + strings.Repeat("0", 100) + "\n")
	}
	s := NewSplitter(strings.NewReader(b.String()))
	h, n, err := s.NextHeader()
	if err != nil || h.NewPath != "x" || n != int64(b.Len()) {
		t.Fatalf("got %+v, %d, %v", h, n, err)
	}
	if cap(s.hdr) > 2*maxHeaderBytes {
		t.Errorf("header buffer grew to %d", cap(s.hdr))
	}
}

func TestMixedNextAndNextHeader(t *testing.T) {
	for _, data := range readSamples(t) {
		ref := refSplit(data)
		s := NewSplitter(bytes.NewReader(data))
		for i := range ref {
			if i%2 == 0 {
				sec, err := s.Next()
				if err != nil || !bytes.Equal(sec.Raw, ref[i]) {
					t.Fatalf("section %d: %v", i, err)
				}
			} else if _, n, err := s.NextHeader(); err != nil || n != int64(len(ref[i])) {
				t.Fatalf("section %d: %d, %v", i, n, err)
			}
		}
		if _, err := s.Next(); err != io.EOF {
			t.Fatalf("want io.EOF, got %v", err)
		}
	}
}

func TestNextLargeSection(t *testing.T) {
	// Sections larger than the reused buffer are handed over, not copied,
	// and later sections must not share memory with them.
	var b bytes.Buffer
	b.WriteString("diff --git a/small b/small\n@@ -1 +1 @@\n-a\n+b\n")
	if _, err := io.Copy(&b, newHugeSection(3*maxReuse)); err != nil {
		t.Fatal(err)
	}
	b.WriteString("diff --git a/after b/after\n@@ -1 +1 @@\n-a\n+b\n")
	data := b.Bytes()
	ref := refSplit(data)
	s := NewSplitter(bytes.NewReader(data))
	secs := splitAll(t, s)
	if len(secs) != len(ref) || len(ref) != 3 {
		t.Fatalf("%d sections, want %d", len(secs), len(ref))
	}
	for i := range secs {
		if !bytes.Equal(secs[i].Raw, ref[i]) {
			t.Errorf("section %d differs", i)
		}
	}
	if cap(s.buf) > maxReuse {
		t.Errorf("splitter kept a %d byte buffer", cap(s.buf))
	}
}
