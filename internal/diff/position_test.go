package diff

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// sectionSizes are the sizes of data's sections as the Splitter reads
// them: the oracle of positions and counts.
func sectionSizes(t testing.TB, data []byte) []int64 {
	t.Helper()
	var sizes []int64
	sp := NewSplitter(bytes.NewReader(data))
	for {
		sec, err := sp.Next()
		if errors.Is(err, io.EOF) {
			return sizes
		}
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, sec.Size)
	}
}

// hunkSpans are the line spans of the "@@" lines of a section's text.
func hunkSpans(text []byte) (old, new LineSpan) {
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		if h, ok := parseHunkHead(line); ok {
			old.add(h.old)
			new.add(h.new)
		}
	}
	return old, new
}

// checkPositions: across the parts, each section's shares follow each
// other from its first byte to its last, a known Size is the section's
// size, and each share's line spans are those of the "@@" lines the part
// holds of it.
func checkPositions(t testing.TB, data []byte, pages []*Page) {
	t.Helper()
	sizes := sectionSizes(t, data)
	next := make([]int64, len(sizes)) // where each section's next share starts
	for pi, pg := range pages {
		texts := splitFiles(pg.Text)
		ti := 0
		for _, f := range pg.Files {
			size := sizes[f.Index]
			switch {
			case f.From != next[f.Index] || f.To < f.From || f.To > size:
				t.Fatalf("part %d, file %d: bytes [%d, %d), want from %d (size %d)", pi, f.Index, f.From, f.To, next[f.Index], size)
			case f.Complete && f.To != size, f.Size != 0 && f.Size != size:
				t.Fatalf("part %d, file %d: to %d, size %d, complete %v; the section is %d bytes", pi, f.Index, f.To, f.Size, f.Complete, size)
			case f.Complete && f.Size == 0:
				t.Fatalf("part %d, file %d: complete without its size", pi, f.Index)
			}
			next[f.Index] = f.To
			if f.Hidden || f.Omitted {
				continue
			}
			if old, new := hunkSpans(texts[ti]); old != f.Old || new != f.New {
				t.Fatalf("part %d, file %d: spans %v %v, its @@ lines say %v %v\n%s", pi, f.Index, f.Old, f.New, old, new, texts[ti])
			}
			ti++
		}
	}
	for i, n := range next {
		if n != sizes[i] {
			t.Fatalf("section %d: the shares end at %d of %d bytes", i, n, sizes[i])
		}
	}
}

// splitFiles splits a part into its sections' texts.
func splitFiles(part []byte) [][]byte {
	var out [][]byte
	for len(part) > 0 {
		end := bytes.Index(part[1:], []byte("\ndiff --git "))
		if end < 0 {
			return append(out, part)
		}
		out = append(out, part[:end+2])
		part = part[end+2:]
	}
	return out
}

// A part says which bytes of each section it holds and which lines its
// hunks span, and Count, like CountRest, tells the total and every
// section's size.
func TestPagePositions(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		data := randomDiff(rnd)
		o := PageOptions{Room: 40 + rnd.IntN(2500)}
		if i%3 == 0 {
			o.Hide = func(h Header) bool { return len(h.NewPath)%3 == 0 }
		}
		_, pages := drain(t, data, o)
		checkPositions(t, data, pages)
		// With SizeLast a part tells the size of the section it ends
		// inside, and with StartSize passes it on to the part after it.
		sizes := sectionSizes(t, data)
		sl := o
		sl.SizeLast = true
		for pos := (Pos{}); ; {
			sl.Start = pos
			pg, err := ReadPage(bytes.NewReader(data), sl)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range pg.Files {
				if f.Size != sizes[f.Index] {
					t.Fatalf("diff %d, part at %+v: file %d's size %d, want %d", i, pos, f.Index, f.Size, sizes[f.Index])
				}
			}
			if pg.Next == nil {
				break
			}
			pos, sl.StartSize = *pg.Next, 0
			if pos.Line > 0 {
				sl.StartSize = pg.Files[len(pg.Files)-1].Size
			}
		}

		var hidden, seen int64
		total, err := Count(bytes.NewReader(data), o.Hide, func(s SectionSize) {
			if s.Index != int(seen) || s.Bytes != sizes[s.Index] {
				t.Fatalf("diff %d: section %+v, want index %d of %d bytes", i, s, seen, sizes[seen])
			}
			if s.Hidden {
				hidden += s.Bytes
			}
			seen++
		})
		if err != nil || total.Files != len(sizes) || total.Bytes != int64(len(data))-hidden {
			t.Fatalf("diff %d: Count %+v, %v; want %d files, %d bytes", i, total, err, len(sizes), int64(len(data))-hidden)
		}
		if want := int64(text.JSONLen(data)); hidden == 0 && total.Escaped != want || hidden > 0 && (total.Escaped < total.Bytes || total.Escaped >= want) {
			t.Fatalf("diff %d: Count escaped %d bytes, %d hidden; the whole diff escapes to %d", i, total.Escaped, hidden, want)
		}
		// CountRest, from any part's start, tells the same total and the
		// size of the section the part ends inside.
		o.CountRest = true
		for _, pg := range pages[:min(len(pages), 3)] {
			start := Pos{}
			if len(pg.Files) > 0 {
				start = Pos{File: pg.Files[0].Index}
			}
			o.Start = start
			got, err := ReadPage(bytes.NewReader(data), o)
			if err != nil || got.Total == nil || got.Total.Files != total.Files || got.Total.Bytes != total.Bytes {
				t.Fatalf("diff %d from %+v: CountRest total %+v, %v; want %+v", i, start, got.Total, err, total)
			}
			if n := len(got.Files); n > 0 && got.Files[n-1].Size != sizes[got.Files[n-1].Index] {
				t.Fatalf("diff %d from %+v: the last file's size %d, want %d", i, start, got.Files[n-1].Size, sizes[got.Files[n-1].Index])
			}
		}
	}
}
