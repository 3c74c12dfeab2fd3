package paging

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// runText holds what a byte slice would, read back whole or in slices,
// and finds a separator wherever it lies, across chunk boundaries too.
func TestRunText(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var want []byte
	var text runText
	for want = nil; len(want) < 3*textChunk+1234; {
		p := make([]byte, rng.IntN(70000))
		for i := range p {
			p[i] = "ab\nd"[rng.IntN(4)]
		}
		want = append(want, p...)
		text.append(p)
	}
	if text.len() != len(want) {
		t.Fatalf("len %d, want %d", text.len(), len(want))
	}
	for _, r := range [][2]int{{0, 0}, {0, 10}, {textChunk - 5, textChunk + 5}, {10, 2*textChunk + 7}, {0, len(want)}} {
		if got := text.slice(r[0], r[1]); !bytes.Equal(got, want[r[0]:r[1]]) {
			t.Errorf("slice %v differs", r)
		}
	}
	var read []byte
	buf := make([]byte, 50000)
	for off := 0; off < text.len(); {
		n := text.readAt(buf, off)
		read = append(read, buf[:n]...)
		off += n
	}
	if !bytes.Equal(read, want) {
		t.Fatal("read back differs")
	}
	sep := []byte("\ndiff --git ")
	for _, at := range []int{5, textChunk - 3, textChunk - 11, textChunk - 12, textChunk, 2*textChunk - 1, len(want) - len(sep)} {
		copy(want[at:], sep)
		copy(text.slice(at, at+len(sep)), sep) // within a chunk: the chunk's bytes
		if at/textChunk != (at+len(sep)-1)/textChunk {
			for i := range sep { // across chunks: one byte at a time
				copy(text.slice(at+i, at+i+1), sep[i:i+1])
			}
		}
	}
	for from := 0; from < len(want); {
		i := bytes.Index(want[from:], sep)
		got := text.index(from, sep)
		if i < 0 {
			if got != -1 {
				t.Fatalf("index from %d: %d, want none", from, got)
			}
			break
		}
		if got != from+i {
			t.Fatalf("index from %d: %d, want %d", from, got, from+i)
		}
		from += i + 1
	}
}
