package text

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// refLines splits content the way get_file_content's contract defines it
// (docs/contracts.md): on "\n", a trailing "\n" not starting another line.
// An empty input has no lines (a plain strings.Split would give one empty
// line; Slicer, read_file and `wc -l` all say 0, and a line needs at least
// one byte or a "\n").
func refLines(content string) []string {
	if content == "" {
		return nil
	}
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// refSlice is the reference Slicer: lines From..To clamped to the input,
// stopping at the first line over maxLine (0: no limit) or refused by a
// byte budget (budget <= 0: no Accept), each line costing len+1.
func refSlice(content string, from, to, maxLine, budget int) Slice {
	lines := refLines(content)
	out := Slice{
		First:           max(from, 1),
		Total:           len(lines),
		Size:            int64(len(content)),
		EndsWithNewline: strings.HasSuffix(content, "\n"),
	}
	last := len(lines)
	if to > 0 {
		last = min(to, len(lines))
	}
	out.Last = out.First - 1
	used := 0
	for n := out.First; n <= last; n++ {
		line := lines[n-1]
		if maxLine > 0 && len(line) > maxLine {
			out.Stopped, out.Oversized = true, n
			break
		}
		if budget > 0 {
			if used += len(line) + 1; used > budget {
				out.Stopped = true
				break
			}
		}
		out.Last = n
	}
	if out.Last >= out.First {
		out.Content = []byte(strings.Join(lines[out.First-1:out.Last], "\n"))
	}
	return out
}

// budgetAccept is the Accept the reference models.
func budgetAccept(budget int) func([]byte) bool {
	if budget <= 0 {
		return nil
	}
	used := 0
	return func(line []byte) bool {
		used += len(line) + 1
		return used <= budget
	}
}

func equalSlice(a, b Slice) bool {
	return bytes.Equal(a.Content, b.Content) && a.First == b.First && a.Last == b.Last &&
		a.Total == b.Total && a.Size == b.Size && a.EndsWithNewline == b.EndsWithNewline &&
		a.Stopped == b.Stopped && a.Oversized == b.Oversized
}

func describe(s Slice) string {
	c := string(s.Content)
	if len(c) > 80 {
		c = c[:40] + "…" + c[len(c)-40:] + " (" + strconv.Itoa(len(c)) + " bytes)"
	}
	return "{Content:" + strconv.Quote(c) +
		" First:" + strconv.Itoa(s.First) + " Last:" + strconv.Itoa(s.Last) +
		" Total:" + strconv.Itoa(s.Total) + " Size:" + strconv.FormatInt(s.Size, 10) +
		" EndsWithNewline:" + strconv.FormatBool(s.EndsWithNewline) +
		" Stopped:" + strconv.FormatBool(s.Stopped) + " Oversized:" + strconv.Itoa(s.Oversized) + "}"
}

// checkSlice runs Slicer over content, whole and through readers that hand
// it data in awkward pieces, and compares every result with the reference.
func checkSlice(t *testing.T, content string, from, to, maxLine, budget int) Slice {
	t.Helper()
	want := refSlice(content, from, to, maxLine, budget)
	readers := map[string]func() io.Reader{
		"whole":     func() io.Reader { return strings.NewReader(content) },
		"one byte":  func() io.Reader { return iotest.OneByteReader(strings.NewReader(content)) },
		"data+EOF":  func() io.Reader { return iotest.DataErrReader(strings.NewReader(content)) },
		"in memory": func() io.Reader { return bytes.NewBuffer([]byte(content)) },
	}
	if len(content) > 1<<16 {
		delete(readers, "one byte") // slow, and adds nothing past the buffer size
	}
	var got Slice
	for name, r := range readers {
		s := Slicer{From: from, To: to, MaxLine: maxLine, Accept: budgetAccept(budget)}
		res, err := s.Read(r())
		if err != nil {
			t.Fatalf("%s reader: Read: %v", name, err)
		}
		if !equalSlice(res, want) {
			t.Fatalf("%s reader: Slicer%+v over %q\n got %s\nwant %s", name,
				struct{ From, To, MaxLine, Budget int }{from, to, maxLine, budget},
				abbrev(content), describe(res), describe(want))
		}
		got = res
	}
	// What the reference does not model, the in-memory path must do as
	// the streaming one does: stop early, and skip binary input.
	for _, opt := range []struct{ early, binary bool }{{true, false}, {false, true}, {true, true}} {
		s := Slicer{From: from, To: to, MaxLine: maxLine, StopEarly: opt.early, SkipBinary: opt.binary}
		s.Accept = budgetAccept(budget)
		stream, err := s.Read(strings.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		s.Accept = budgetAccept(budget)
		mem, err := s.Read(bytes.NewBuffer([]byte(content)))
		if err != nil {
			t.Fatal(err)
		}
		if !equalSlice(mem, stream) || mem.Binary != stream.Binary {
			t.Fatalf("Slicer%+v over %q: in memory %s, streamed %s", struct {
				From, To, MaxLine, Budget int
				StopEarly, SkipBinary     bool
			}{from, to, maxLine, budget, opt.early, opt.binary},
				abbrev(content), describe(mem), describe(stream))
		}
	}
	return got
}

func abbrev(s string) string {
	if len(s) <= 100 {
		return s
	}
	return s[:50] + "…" + s[len(s)-50:] + " (" + strconv.Itoa(len(s)) + " bytes)"
}

func TestSlicerMatchesReference(t *testing.T) {
	const five = "one\ntwo\nthree\nfour\nfive\n"
	tests := []struct {
		name     string
		content  string
		from, to int
		// what the reference says, spelled out for the reader of the test
		want  string
		first int
		last  int
		total int
	}{
		{"empty input", "", 0, 0, "", 1, 0, 0},
		{"empty input, a range", "", 1, 10, "", 1, 0, 0},
		{"only a newline", "\n", 0, 0, "", 1, 1, 1},
		{"two newlines", "\n\n", 0, 0, "\n", 1, 2, 2},
		{"whole, trailing newline", five, 0, 0, "one\ntwo\nthree\nfour\nfive", 1, 5, 5},
		{"whole, no trailing newline", "a\nb\nc", 0, 0, "a\nb\nc", 1, 3, 3},
		{"single line without newline", "abc", 0, 0, "abc", 1, 1, 1},
		{"middle range", five, 2, 4, "two\nthree\nfour", 2, 4, 5},
		{"one line", five, 3, 3, "three", 3, 3, 5},
		{"last line", five, 5, 5, "five", 5, 5, 5},
		{"last line without newline", "a\nb\nc", 3, 3, "c", 3, 3, 3},
		{"From 0 clamps to 1", five, 0, 2, "one\ntwo", 1, 2, 5},
		{"From negative clamps to 1", five, -5, 3, "one\ntwo\nthree", 1, 3, 5},
		{"To past the end clamps", five, 4, 999, "four\nfive", 4, 5, 5},
		{"To 0 means to the end", five, 4, 0, "four\nfive", 4, 5, 5},
		{"To negative means to the end", five, 4, -1, "four\nfive", 4, 5, 5},
		{"From past the end", five, 6, 10, "", 6, 5, 5},
		{"From far past the end", five, 100, 0, "", 100, 99, 5},
		{"From just past a last line without newline", "a\nb", 3, 0, "", 3, 2, 2},
		{"inverted range keeps nothing", five, 4, 2, "", 4, 3, 5},
		{"CRLF kept byte-exact", "a\r\nb\r\nc\r\n", 1, 2, "a\r\nb\r", 1, 2, 3},
		{"CRLF without final newline", "a\r\nb\r", 0, 0, "a\r\nb\r", 1, 2, 2},
		{"lone CR does not split", "a\rb\rc", 0, 0, "a\rb\rc", 1, 1, 1},
		{"empty lines kept", "\n\nx\n\n", 1, 4, "\n\nx\n", 1, 4, 4},
		{"NUL and invalid UTF-8 kept", "a\x00b\n\xff\xfe\n", 0, 0, "a\x00b\n\xff\xfe", 1, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkSlice(t, tt.content, tt.from, tt.to, 0, 0)
			if string(got.Content) != tt.want || got.First != tt.first || got.Last != tt.last || got.Total != tt.total {
				t.Errorf("got %s; the table says Content %q First %d Last %d Total %d", describe(got), tt.want, tt.first, tt.last, tt.total)
			}
			if got.Size != int64(len(tt.content)) || got.EndsWithNewline != strings.HasSuffix(tt.content, "\n") {
				t.Errorf("Size %d EndsWithNewline %v for %q", got.Size, got.EndsWithNewline, tt.content)
			}
			if got.Stopped || got.Oversized != 0 {
				t.Errorf("Stopped %v Oversized %d without a limit", got.Stopped, got.Oversized)
			}
		})
	}
}

func TestSlicerAcceptStops(t *testing.T) {
	const five = "one\ntwo\nthree\nfour\nfive\n"
	tests := []struct {
		name     string
		from, to int
		refuseAt int // the line Accept first says no to; 0 never
		want     string
		last     int
		stopped  bool
		asked    []string // lines Accept was asked about, in order
	}{
		{"accept all", 2, 4, 0, "two\nthree\nfour", 4, false, []string{"two", "three", "four"}},
		{"refuse the first line in range", 2, 4, 2, "", 1, true, []string{"two"}},
		{"refuse in the middle", 1, 0, 3, "one\ntwo", 2, true, []string{"one", "two", "three"}},
		{"refuse the last line", 1, 5, 5, "one\ntwo\nthree\nfour", 4, true, []string{"one", "two", "three", "four", "five"}},
		{"refusal after the range is never asked", 1, 2, 3, "one\ntwo", 2, false, []string{"one", "two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			n := tt.from - 1
			if n < 0 {
				n = 0
			}
			s := Slicer{From: tt.from, To: tt.to, Accept: func(line []byte) bool {
				asked = append(asked, string(line))
				n++
				return n != tt.refuseAt
			}}
			got, err := s.Read(strings.NewReader(five))
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Content) != tt.want || got.Last != tt.last || got.Stopped != tt.stopped || got.Oversized != 0 || got.Total != 5 {
				t.Errorf("got %s; want Content %q Last %d Stopped %v Total 5", describe(got), tt.want, tt.last, tt.stopped)
			}
			if strings.Join(asked, "|") != strings.Join(tt.asked, "|") {
				t.Errorf("Accept was asked about %q, want %q", asked, tt.asked)
			}
		})
	}
}

func TestSlicerAcceptBudget(t *testing.T) {
	content := "aaaa\nbbbb\ncccc\ndddd\n"
	for budget := 1; budget <= 25; budget++ {
		checkSlice(t, content, 0, 0, 0, budget)
		checkSlice(t, content, 2, 3, 0, budget)
	}
}

func TestSlicerMaxLine(t *testing.T) {
	big := strings.Repeat("x", 200_000) // over the 64 KiB buffer: read in pieces
	tests := []struct {
		name      string
		content   string
		from, to  int
		maxLine   int
		last      int
		oversized int
		stopped   bool
	}{
		{"line exactly at the limit is kept", "abc\nabcde\nx\n", 0, 0, 5, 3, 0, false},
		{"line one over the limit stops", "abc\nabcdef\nx\n", 0, 0, 5, 1, 2, true},
		{"last line without newline at the limit is kept", "abc\nabcde", 0, 0, 5, 2, 0, false},
		{"last line without newline one over the limit stops", "abc\nabcdef", 0, 0, 5, 1, 2, true},
		{"CR counts as a byte of the line", "abcde\r\n", 0, 0, 5, 0, 1, true},
		{"long line before the range is skipped", "a\n" + big + "\nb\nc\n", 3, 4, 10, 4, 0, false},
		{"long line after the range is never read into memory", "a\nb\n" + big + "\n", 1, 2, 10, 2, 0, false},
		{"long line in range stops slicing", "a\n" + big + "\nb\n", 0, 0, 100_000, 1, 2, true},
		{"long line first in range", big + "\nb\n", 0, 0, 100_000, 0, 1, true},
		{"long last line without newline stops", "a\n" + big, 0, 0, 199_999, 1, 2, true},
		{"long line under the limit is kept whole", "a\n" + big + "\nb\n", 0, 0, 300_000, 3, 0, false},
		{"long line at the limit is kept whole", "a\n" + big + "\nb", 0, 0, 200_000, 3, 0, false},
		{"long line kept whole without a limit", "a\n" + big + "\nb\n", 0, 0, 0, 3, 0, false},
		{"long CRLF line", big + "\r\n" + big + "\r\n", 0, 0, 200_001, 2, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkSlice(t, tt.content, tt.from, tt.to, tt.maxLine, 0)
			if got.Last != tt.last || got.Oversized != tt.oversized || got.Stopped != tt.stopped {
				t.Errorf("got %s; the table says Last %d Oversized %d Stopped %v", describe(got), tt.last, tt.oversized, tt.stopped)
			}
		})
	}
}

// TestSlicerLongLinesAround64KiB puts lines of every length near the bufio
// buffer size, so pieces end just before, at and after the buffer's end.
func TestSlicerLongLinesAround64KiB(t *testing.T) {
	for _, n := range []int{1<<16 - 2, 1<<16 - 1, 1 << 16, 1<<16 + 1, 2<<16 - 1, 2 << 16} {
		line := strings.Repeat("y", n)
		content := "a\n" + line + "\n" + line + "\nz"
		checkSlice(t, content, 0, 0, 0, 0)
		checkSlice(t, content, 2, 3, 0, 0)
		checkSlice(t, content, 0, 0, n, 0)
		checkSlice(t, content, 0, 0, n-1, 0)
		checkSlice(t, content, 0, 0, 0, n+3)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestSlicerReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Slicer{}.Read(io.MultiReader(strings.NewReader("a\nb\n"), errReader{boom}))
	if !errors.Is(err, boom) {
		t.Errorf("Read error = %v, want %v", err, boom)
	}
}

func FuzzSlicer(f *testing.F) {
	f.Add("one\ntwo\nthree\n", 2, 3, 0, 0, uint8(0))
	f.Add("", 0, 0, 0, 0, uint8(0))
	f.Add("a\r\nb", -1, 99, 0, 0, uint8(0))
	f.Add("a\n\n\nb\n", 3, 0, 1, 0, uint8(0))
	f.Add("x\ny\nz", 1, 0, 0, 4, uint8(0))
	f.Add("a\nb\n", 0, 0, 100_000, 0, uint8(100))
	f.Fuzz(func(t *testing.T, content string, from, to, maxLine, budget int, long uint8) {
		if long > 0 {
			// A line of up to ~180 KB, over the 64 KiB buffer, in the middle.
			mid := len(content) / 2
			content = content[:mid] + strings.Repeat("L", int(long)*700) + content[mid:]
		}
		checkSlice(t, content, from, to, maxLine, budget)
	})
}

// lineStream produces size bytes of numbered lines without holding them.
type lineStream struct {
	left int
	n    int
	buf  []byte // the rest of the current line
	line [64]byte
}

func (s *lineStream) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	written := 0
	for written < len(p) && s.left > 0 {
		if len(s.buf) == 0 {
			s.n++
			b := append(s.line[:0], "line "...)
			b = strconv.AppendInt(b, int64(s.n), 10)
			b = append(b, " of a generated stream, some text to fill it\n"...)
			s.buf = b
		}
		c := copy(p[written:min(len(p), written+s.left)], s.buf)
		s.buf = s.buf[c:]
		written += c
		s.left -= c
	}
	return written, nil
}

func TestSlicerMemoryStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 50 MB")
	}
	const size = 50 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := Slicer{From: 10, To: 20}.Read(&lineStream{left: size})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got.Size != size || got.First != 10 || got.Last != 20 || got.Total < 500_000 {
		t.Fatalf("unexpected slice: %s", describe(got))
	}
	if !strings.HasPrefix(string(got.Content), "line 10 of") || !strings.HasSuffix(string(got.Content), "line 20 of a generated stream, some text to fill it") {
		t.Errorf("content %q", got.Content)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("read %d MB, allocated %d bytes", size>>20, allocated)
	if allocated > 2<<20 {
		t.Errorf("allocated %d bytes while reading %d: memory grows with the input", allocated, size)
	}
}

func BenchmarkSlicer(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 10<<20; i++ {
		buf.WriteString("\tfmt.Println(\"line ")
		buf.WriteString(strconv.Itoa(i))
		buf.WriteString(" of the benchmark input\") // some trailing comment\n")
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Slicer{From: 50_000, To: 50_099}.Read(bytes.NewReader(data))
		if err != nil || res.Last != 50_099 {
			b.Fatal(err, res.Last)
		}
	}
}
