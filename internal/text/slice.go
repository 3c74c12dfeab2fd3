package text

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// Slicer reads a stream once and keeps lines From..To (1-based, inclusive).
// Lines are split on "\n"; a final line without "\n" counts, a trailing "\n"
// does not start a new line. Memory stays bounded by what is kept, whatever
// the size of the input.
type Slicer struct {
	From, To int // To <= 0 means through the last line
	// MaxLine: a line in range longer than this is never kept; slicing stops
	// there (Slice.Oversized names it). 0 means no limit.
	MaxLine int
	// Accept is asked about each line in range, in order, before it is kept;
	// false stops keeping lines. nil accepts everything.
	Accept func(line []byte) bool
	// SkipBinary: input that looks binary (IsBinary on its first SniffLen
	// bytes) is not read further; Slice.Binary says so.
	SkipBinary bool
	// StopEarly: return as soon as no further line can be kept (past To, or
	// Accept said no), for a caller that knows the line count already.
	// Total, Size and EndsWithNewline then cover only what was read.
	StopEarly bool
}

// Slice is what a Slicer kept and what it saw.
type Slice struct {
	Content         []byte // kept lines joined with "\n", no trailing "\n"
	First, Last     int    // kept lines; Last < First when none was kept
	Total           int    // lines in the whole input
	Size            int64  // bytes in the whole input
	EndsWithNewline bool   // the input's last byte is "\n"
	Stopped         bool   // a line in range was not kept (Accept said no, or Oversized)
	Oversized       int    // the line over MaxLine that stopped slicing, else 0
	Binary          bool   // SkipBinary found binary input: nothing else is set
}

// readers recycles the 64 KiB read buffers: a small slice of a small file
// should not cost a fresh buffer (and its garbage) per call.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// Read consumes all of r. A *bytes.Buffer (a blob already in memory) is
// sliced where it lies: no read buffer, and the kept lines copied once.
func (s Slicer) Read(r io.Reader) (Slice, error) {
	if buf, ok := r.(*bytes.Buffer); ok {
		data := buf.Next(buf.Len())
		if s.SkipBinary && IsBinary(data[:min(len(data), SniffLen)]) {
			return s.binary(), nil
		}
		m := memLines(data)
		return s.slice(m.next, data)
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	if s.SkipBinary {
		head, err := br.Peek(SniffLen)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return s.empty(), err
		}
		if IsBinary(head) {
			return s.binary(), nil
		}
	}
	return s.slice(func() ([]byte, error) { return br.ReadSlice('\n') }, nil)
}

// memLines hands out the lines of data as bufio.Reader.ReadSlice would
// (each with its "\n"; the last, if unterminated, with io.EOF), though
// never in pieces.
type memLines []byte

func (m *memLines) next() ([]byte, error) {
	if len(*m) == 0 {
		return nil, io.EOF
	}
	rest := *m
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		*m = rest[i+1:]
		return rest[:i+1], nil
	}
	*m = nil
	return rest, io.EOF
}

func (s Slicer) empty() Slice {
	out := Slice{First: max(s.From, 1)}
	out.Last = out.First - 1
	return out
}

func (s Slicer) binary() Slice {
	out := s.empty()
	out.Binary = true
	return out
}

// slice reads lines from next (ReadSlice's contract) and keeps those
// asked for. With data, the whole input in memory, the kept lines are
// copied from it once at the end rather than appended one by one.
func (s Slicer) slice(next func() ([]byte, error), data []byte) (Slice, error) {
	out := s.empty()
	keptFrom, keptTo := 0, 0 // with data: where the kept lines lie in it
	var line []byte          // the current line, when it must be assembled from pieces
	var partial bool
	var lineLen int
	collecting := true
	for {
		piece, err := next()
		if len(piece) > 0 {
			out.Size += int64(len(piece))
			out.EndsWithNewline = piece[len(piece)-1] == '\n'
		}
		complete := err == nil || (err == io.EOF && len(piece) > 0)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return out, err
		}
		n := out.Total + 1 // number of the line this piece belongs to
		wanted := collecting && n >= s.From && (s.To <= 0 || n <= s.To)
		if wanted {
			lineLen += len(piece) // the line's bytes so far, without its "\n"
			if err == nil {
				lineLen--
			}
			if s.MaxLine > 0 && lineLen > s.MaxLine {
				collecting, out.Stopped, out.Oversized = false, true, n
				line, partial = nil, false
			} else if !complete || partial {
				line = append(line, piece...)
				partial = true
			}
		}
		if complete {
			out.Total++
			if wanted && collecting {
				full := piece
				if partial {
					full = line
				}
				full = bytes.TrimSuffix(full, []byte{'\n'})
				if s.Accept != nil && !s.Accept(full) {
					collecting, out.Stopped = false, true
				} else {
					if data != nil { // a piece is a whole line, ending at Size
						if out.Last < out.First {
							keptFrom = int(out.Size) - len(piece)
						}
						keptTo = int(out.Size) - len(piece) + len(full)
					} else {
						if out.Last >= out.First {
							out.Content = append(out.Content, '\n')
						}
						out.Content = append(out.Content, full...)
					}
					out.Last = n
				}
			}
			line, partial, lineLen = line[:0], false, 0
			if s.StopEarly && (!collecting || (s.To > 0 && n >= s.To)) {
				break
			}
		}
		if err == io.EOF {
			break
		}
	}
	if data != nil && out.Last >= out.First {
		out.Content = bytes.Clone(data[keptFrom:keptTo])
	}
	return out, nil
}
