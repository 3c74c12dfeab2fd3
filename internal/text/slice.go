package text

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"unicode/utf8"
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
	// FromByte: line From is read from this byte of it on (0-based), to
	// go on inside a line kept in part before; its bytes before are never
	// kept. It must fall inside the line and not inside a UTF-8 character
	// (Slice.BadFromByte says why not).
	FromByte int64
	// Piece, when set, is asked for the piece to keep of a line in range
	// that is not kept whole: one over MaxLine, one Accept said no to, and
	// line From read from FromByte. p names the line (p.From the byte
	// where the piece starts; p.To and p.Bytes its length, without its
	// "\n"); head is the line's bytes from p.From on, at most
	// MaxLine+utf8.UTFMax of them, all the rest when
	// p.From+len(head) == p.Bytes; kept is how many lines are kept before
	// it. It returns where the piece ends (p.From < to <= p.From+len(head)),
	// or p.From to keep none of the line: slicing stops before it. A piece
	// that does not reach the line's end stops slicing after it. Memory
	// follows the piece, not the line.
	Piece func(p Piece, head []byte, kept int) int64
}

// Piece is a line kept in part: its bytes From..To (0-based, To
// excluded) of Bytes, the line's length without its "\n".
type Piece struct {
	Line  int   `json:"line"`
	From  int64 `json:"from"`
	To    int64 `json:"to"`
	Bytes int64 `json:"bytes"`
}

// More: the line goes on after the piece.
func (p Piece) More() bool { return p.To < p.Bytes }

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
	// Pieces are the kept lines kept in part (Slicer.Piece), in order: the
	// first line kept (read from FromByte, or too long for any reply) and
	// the last (the start of a line too long for what is left); one when
	// they are the same line, none when every line is kept whole.
	Pieces []Piece
	// FromLineBytes is line From's length when FromByte is set; BadFromByte
	// says why FromByte cannot start a piece of it ("past the end",
	// "inside a UTF-8 character"), and nothing is kept.
	FromLineBytes int64
	BadFromByte   string
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
	var line []byte          // the line's kept bytes, when assembled from fragments
	var before []byte        // the last bytes of line From skipped (FromByte), at most UTFMax-1
	var partial bool         // line holds the line's start: it came in fragments, or from FromByte
	var lineLen int64        // the line's bytes so far, without its "\n"
	limit := -1              // the most bytes of a line held: MaxLine, and a character more for a piece
	if s.MaxLine > 0 {
		limit = s.MaxLine
		if s.Piece != nil {
			limit += utf8.UTFMax
		}
	}
	collecting := true
	for {
		frag, err := next()
		if len(frag) > 0 {
			out.Size += int64(len(frag))
			out.EndsWithNewline = frag[len(frag)-1] == '\n'
		}
		complete := err == nil || (err == io.EOF && len(frag) > 0)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return out, err
		}
		n := out.Total + 1 // number of the line this fragment belongs to
		wanted := collecting && n >= s.From && (s.To <= 0 || n <= s.To)
		var skip int64 // the bytes of the line not kept, from its start
		if wanted && n == s.From {
			skip = s.FromByte
		}
		if wanted {
			body := frag
			if err == nil {
				body = body[:len(body)-1]
			}
			lo := min(max(skip-lineLen, 0), int64(len(body))) // the bytes of body skipped
			if lo > 0 {
				// Only the last bytes skipped are kept.
				b := append(before, body[max(lo-(utf8.UTFMax-1), 0):lo]...)
				before = append(before[:0], b[max(len(b)-(utf8.UTFMax-1), 0):]...)
			}
			take := body[lo:]
			lineLen += int64(len(body))
			switch {
			case !complete || partial || skip > 0:
				if limit >= 0 {
					take = take[:min(len(take), max(limit-len(line), 0))]
				}
				line = append(line, take...)
				partial = true
			}
		}
		if complete {
			out.Total++
			if wanted {
				s.keep(&out, n, skip, lineLen, frag, line, partial, before, data, &keptFrom, &keptTo, &collecting)
			}
			line, before, partial, lineLen = line[:0], before[:0], false, 0
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

// keep decides on line n, read whole (lineLen bytes without its "\n";
// frag its last fragment, line what was kept of it when it came in
// fragments or from byte skip, before the bytes just before skip): kept
// whole, in a piece, or not, which ends collecting.
func (s Slicer) keep(out *Slice, n int, skip, lineLen int64, frag, line []byte, partial bool, before, data []byte, keptFrom, keptTo *int, collecting *bool) {
	head := frag
	if partial {
		head = line
	} else if len(head) > 0 && head[len(head)-1] == '\n' {
		head = head[:len(head)-1]
	}
	if s.Piece != nil && s.MaxLine > 0 {
		head = head[:min(len(head), s.MaxLine+utf8.UTFMax)] // in memory, as if read in fragments
	}
	lineStart := int(out.Size) - int(lineLen) // with data: where line n starts
	if len(frag) > 0 && frag[len(frag)-1] == '\n' {
		lineStart--
	}
	keepBytes := func(from, to int64) {
		if data != nil {
			if out.Last < out.First {
				*keptFrom = lineStart + int(from)
			}
			*keptTo = lineStart + int(to)
		} else {
			if out.Last >= out.First {
				out.Content = append(out.Content, '\n')
			}
			out.Content = append(out.Content, head[:to-from]...)
		}
		out.Last = n
	}
	stop := func() { *collecting, out.Stopped = false, true }
	over := s.MaxLine > 0 && lineLen-skip > int64(s.MaxLine)
	if skip > 0 {
		out.FromLineBytes = lineLen
		switch {
		case lineLen <= skip:
			out.BadFromByte = "past the end"
		case splits(before, head):
			out.BadFromByte = "inside a UTF-8 character"
		}
		if out.BadFromByte != "" || s.Piece == nil {
			*collecting = false
			return
		}
	} else if !over && (s.Accept == nil || s.Accept(head)) {
		keepBytes(0, lineLen)
		return
	}
	if s.Piece == nil {
		stop()
		if over {
			out.Oversized = n
		}
		return
	}
	p := Piece{Line: n, From: skip, To: lineLen, Bytes: lineLen}
	to := s.Piece(p, head, out.Last-out.First+1)
	if to <= skip {
		stop()
		if over && skip == 0 && out.Last < out.First {
			out.Oversized = n
		}
		return
	}
	p.To = min(to, skip+int64(len(head)))
	keepBytes(skip, p.To)
	out.Pieces = append(out.Pieces, p)
	if p.More() {
		stop()
	}
}

// splits: a line's bytes from head on start inside a UTF-8 character that
// begins in before, the bytes just before them.
func splits(before, head []byte) bool {
	for i := len(before) - 1; i >= 0; i-- {
		if utf8.RuneStart(before[i]) {
			r, size := utf8.DecodeRune(append(before[i:len(before):len(before)], head[:min(len(head), utf8.UTFMax)]...))
			return r != utf8.RuneError && size > len(before)-i
		}
	}
	return false
}
