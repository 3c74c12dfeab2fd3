package text

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// pieceSlicer keeps pieces of at most size bytes (cut on a character's
// start) and whole lines of at most size bytes.
func pieceSlicer(from int, at int64, size int) Slicer {
	return Slicer{From: from, FromByte: at, MaxLine: size, Piece: func(p Piece, head []byte, kept int) int64 {
		if kept > 0 && p.From == 0 {
			return 0 // a first piece starts a part
		}
		return p.From + int64(CutPoint(head, min(size, len(head)-utf8.UTFMax*btoi(p.From+int64(len(head)) < p.Bytes))))
	}}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Pieces read one after another, from each one's end, join to the line,
// in memory, read in fragments and byte by byte; no character is split.
func TestSlicerPiecesJoin(t *testing.T) {
	long := strings.Repeat("é€😀x", 5000) + "\xff\x80tail"
	content := "a\n" + long + "\nb\n"
	for _, size := range []int{7, 64, 1000, 20_000} {
		for name, reader := range map[string]func() io.Reader{
			"memory":    func() io.Reader { return bytes.NewBufferString(content) },
			"stream":    func() io.Reader { return strings.NewReader(content) },
			"byte-wise": func() io.Reader { return iotest.OneByteReader(strings.NewReader(content)) },
		} {
			if name == "byte-wise" && size < 1000 {
				continue // thousands of reads of 50 KB, a byte at a time
			}
			var joined strings.Builder
			line, at := 2, int64(0)
			for calls := 0; ; calls++ {
				if calls > 100_000 {
					t.Fatalf("%s %d: no end", name, size)
				}
				res, err := pieceSlicer(line, at, size).Read(reader())
				if err != nil || res.BadFromByte != "" || len(res.Pieces) != 1 {
					t.Fatalf("%s %d at %d: %v %q %+v", name, size, at, err, res.BadFromByte, res.Pieces)
				}
				p := res.Pieces[0]
				piece, _, _ := bytes.Cut(res.Content, []byte("\n")) // after the line's end, the lines after it
				if p.Line != 2 || p.From != at || p.Bytes != int64(len(long)) || int64(len(piece)) != p.To-p.From {
					t.Fatalf("%s %d: piece %+v of %d bytes", name, size, p, len(res.Content))
				}
				if p.To < p.Bytes && !utf8.RuneStart(long[p.To]) && utf8.ValidString(long[p.To-1:p.To+3]) {
					t.Fatalf("%s %d: piece %+v splits a character", name, size, p)
				}
				joined.Write(piece)
				if !p.More() {
					if res.Last != 3 || string(res.Content[len(piece):]) != "\nb" {
						t.Fatalf("%s %d: after the last piece, lines to %d: %q", name, size, res.Last, res.Content[len(piece):])
					}
					break
				}
				at = p.To
			}
			if joined.String() != long {
				t.Fatalf("%s %d: pieces joined differ from the line", name, size)
			}
		}
	}
}

// A piece starts only inside its line, and at a character's start.
func TestSlicerBadFromByte(t *testing.T) {
	content := "a\néé\n"
	for _, c := range []struct {
		at   int64
		says string
	}{{1, "inside a UTF-8 character"}, {3, "inside a UTF-8 character"}, {4, "past the end"}, {9, "past the end"}, {2, ""}} {
		res, err := pieceSlicer(2, c.at, 100).Read(strings.NewReader(content))
		if err != nil || res.BadFromByte != c.says || res.FromLineBytes != 4 {
			t.Errorf("from byte %d: %v %q %d, want %q", c.at, err, res.BadFromByte, res.FromLineBytes, c.says)
		}
		if c.says == "" && string(res.Content) != "é" {
			t.Errorf("from byte 2: %q", res.Content)
		}
	}
}

// Memory follows the piece, not the line: a piece of a 20 MB line, from
// its middle, reads the line without holding it.
func TestSlicerPieceOfA20MBLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 20 MB")
	}
	const size = 20 << 20
	content := io.MultiReader(strings.NewReader("a\n"), io.LimitReader(repeatReader('x'), size), strings.NewReader("\nb\n"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := pieceSlicer(2, size/2, 5000).Read(content)
	runtime.ReadMemStats(&after)
	if err != nil || len(res.Pieces) != 1 || res.Pieces[0] != (Piece{Line: 2, From: size / 2, To: size/2 + 5000, Bytes: size}) || res.Total != 3 {
		t.Fatalf("%v %+v total %d", err, res.Pieces, res.Total)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 1<<20 {
		t.Errorf("allocated %d bytes for a piece of 5,000: memory follows the line", allocated)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
