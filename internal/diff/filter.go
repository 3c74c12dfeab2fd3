package diff

import (
	"bufio"
	"bytes"
	"io"
)

// Filter reads a diff from r and passes on only the file sections that keep
// accepts, byte for byte, as a stream: a forge's whole pull request diff
// narrowed to one file, say, without holding the sections in memory. Bytes
// before the first section are dropped. A header that cannot be parsed is
// handed to keep as far as it was parsed.
//
// A line that starts with "diff --git " always starts a section: inside a
// hunk every line starts with ' ', '+', '-' or '\'.
func Filter(r io.Reader, keep func(Header) bool) io.Reader {
	return &filter{br: bufio.NewReaderSize(r, readBufSize), keep: keep}
}

type filter struct {
	br      *bufio.Reader
	keep    func(Header) bool
	out     []byte // bytes ready to be read
	pending []byte // a "diff --git " line read ahead, starting the next section
	passing bool   // the section at hand is kept
	midLine bool   // the last piece read did not end its line
	wasMid  bool   // the piece before it did not: the last piece continues a line
	err     error
}

// continues: the piece just read (piece) is the rest of a longer line, not
// a line of its own. A pending piece was checked when it was read.
func (f *filter) continues(piece []byte) bool {
	return f.wasMid && piece != nil
}

func (f *filter) Read(p []byte) (int, error) {
	for len(f.out) == 0 && f.err == nil {
		f.step()
	}
	if len(f.out) > 0 {
		n := copy(p, f.out)
		f.out = f.out[n:]
		return n, nil
	}
	return 0, f.err
}

// step reads the next line (a header, when a section starts) and queues
// what of it passes.
func (f *filter) step() {
	line := f.pending
	f.pending = nil
	if line == nil {
		var err error
		if line, err = f.line(); err != nil {
			f.err = err
			return
		}
	}
	if f.continues(line) || !bytes.HasPrefix(line, []byte("diff --git ")) {
		if f.passing {
			f.out = append(f.out[:0], line...)
		}
		return
	}
	header, err := f.header(line)
	h, _ := ParseHeader(header)
	f.passing = f.keep(h)
	if f.passing {
		f.out = f.out[:0]
		for _, l := range header {
			f.out = append(f.out, l...)
		}
	}
	if err != nil {
		f.err = err
	}
}

// header reads a section's header lines: its "diff --git " line and those
// after it, up to the first hunk, the next section or the end. The line
// that ends it, if any, is kept for the next step. At most maxHeaderBytes
// are held; a longer header is cut there (the rest passes as body lines).
func (f *filter) header(first []byte) ([]string, error) {
	lines := []string{string(first)}
	size := len(first)
	for size < maxHeaderBytes {
		line, err := f.line()
		if err != nil {
			return lines, err
		}
		if !f.continues(line) && (bytes.HasPrefix(line, []byte("@@")) || bytes.HasPrefix(line, []byte("diff --git "))) {
			f.pending = line
			return lines, nil
		}
		lines = append(lines, string(line))
		size += len(line)
	}
	return lines, nil
}

// line reads one line, its "\n" included; a line longer than the read
// buffer comes in pieces (continues tells a later piece from a line).
func (f *filter) line() ([]byte, error) {
	line, err := f.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		err = nil
	}
	if len(line) > 0 {
		f.wasMid, f.midLine = f.midLine, line[len(line)-1] != '\n'
		return bytes.Clone(line), nil
	}
	if err == nil {
		err = io.EOF
	}
	return nil, err
}
