package paging

import "bytes"

// runText is what git printed into a patch run, in chunks: appending never
// moves what is held. A slice grown by append is copied each time it
// grows, each copy onto fresh memory the kernel must fault in; for the
// runs of a 2.5 MB diff that was a seventh of the server's CPU time.
type runText struct {
	chunks [][]byte // each textChunk bytes but the last
	n      int
}

// textChunk is the size of one chunk.
const textChunk = 256 << 10

func (t *runText) len() int { return t.n }

// append adds p.
func (t *runText) append(p []byte) {
	for len(p) > 0 {
		if len(t.chunks) == 0 || len(t.chunks[len(t.chunks)-1]) == textChunk {
			t.chunks = append(t.chunks, make([]byte, 0, textChunk))
		}
		last := &t.chunks[len(t.chunks)-1]
		k := min(len(p), textChunk-len(*last))
		*last = append(*last, p[:k]...)
		t.n += k
		p = p[k:]
	}
}

// readAt copies into p what is held from byte off on, at most to the end
// of off's chunk.
func (t *runText) readAt(p []byte, off int) int {
	return copy(p, t.chunks[off/textChunk][off%textChunk:])
}

// slice is bytes from to to: the chunk's own bytes when they lie in one
// chunk, a copy when they span two or more.
func (t *runText) slice(from, to int) []byte {
	if from == to {
		return nil
	}
	if c := from / textChunk; c == (to-1)/textChunk {
		return t.chunks[c][from%textChunk : to-c*textChunk]
	}
	out := make([]byte, 0, to-from)
	for off := from; off < to; {
		chunk := t.chunks[off/textChunk][off%textChunk:]
		k := min(len(chunk), to-off)
		out = append(out, chunk[:k]...)
		off += k
	}
	return out
}

// index is where the first sep at or after from starts, or -1.
func (t *runText) index(from int, sep []byte) int {
	for c := from / textChunk; c < len(t.chunks); c++ {
		base := c * textChunk
		start := max(from, base) - base
		if i := bytes.Index(t.chunks[c][start:], sep); i >= 0 {
			return base + start + i
		}
		// One that starts in this chunk and ends in the next.
		if c+1 < len(t.chunks) && len(sep) > 1 {
			edge := max(from, base+textChunk-len(sep)+1)
			span := t.slice(edge, min(t.n, base+textChunk+len(sep)-1))
			if i := bytes.Index(span, sep); i >= 0 {
				return edge + i
			}
		}
	}
	return -1
}
