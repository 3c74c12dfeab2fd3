// The pager's reading of its input: line by line, telling a line's kind
// from its first bytes, counting the bytes consumed.

package diff

import (
	"bufio"
	"bytes"
	"io"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// lineStart is what the next line is, as far as its first bytes tell.
type lineStart uint8

const (
	startEOF    lineStart = iota // no more input
	startFile                    // "diff --git "
	startHunk                    // "@@"
	startMarker                  // "\", as in "\ No newline at end of file"
	startOther
)

// lineReader reads lines, or pieces of lines longer than its buffer, and
// counts the bytes it consumes.
type lineReader struct {
	br *bufio.Reader
	n  int64
	// escaped, when counted (Count), is the JSON-escaped size of what was
	// read: about what a reply carries of it.
	escaped      int64
	countEscapes bool
}

// next tells what the next line is without consuming it. b holds its first
// bytes (and perhaps the next line's).
func (lr *lineReader) next() (k lineStart, b []byte, err error) {
	b, err = lr.br.Peek(len(diffGitPrefix))
	switch {
	case err != nil && err != io.EOF:
		return 0, nil, err
	case len(b) == 0:
		return startEOF, nil, nil
	case hasPrefix(b, diffGitPrefix):
		return startFile, b, nil
	case hasPrefix(b, "@@"):
		return startHunk, b, nil
	case b[0] == '\\':
		return startMarker, b, nil
	}
	return startOther, b, nil
}

// read consumes the next line and appends it to dst if it is at most limit
// bytes long; a longer one is discarded as it is read (cut), leaving dst as
// it was. size is the line's length.
func (lr *lineReader) read(dst []byte, limit int) (out []byte, size int64, cut bool, err error) {
	start := len(dst)
	for {
		frag, err := lr.br.ReadSlice('\n')
		size += int64(len(frag))
		lr.n += int64(len(frag))
		if lr.countEscapes {
			lr.escaped += int64(text.JSONLen(frag))
		}
		if !cut && size > int64(limit) {
			cut, dst = true, dst[:start]
		}
		if !cut {
			dst = append(dst, frag...)
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				err = nil
			}
			return dst, size, cut, err
		}
	}
}

// skip consumes the next line without keeping any of it.
func (lr *lineReader) skip() error {
	_, _, _, err := lr.read(nil, 0)
	return err
}

// readHead consumes the next line and appends it to dst if it is at most
// limit bytes long; of a longer one it appends the first limit bytes and
// leaves the rest unread (whole is false): the pieces of a line longer
// than a part are read a part at a time.
func (lr *lineReader) readHead(dst []byte, limit int) (out []byte, whole bool, err error) {
	for got := 0; ; {
		if lr.br.Buffered() == 0 {
			if _, err := lr.br.Peek(1); err == io.EOF {
				return dst, true, nil
			} else if err != nil {
				return dst, false, err
			}
		}
		chunk, _ := lr.br.Peek(lr.br.Buffered())
		end := bytes.IndexByte(chunk, '\n')
		if end >= 0 {
			chunk = chunk[:end+1]
		}
		if got+len(chunk) > limit {
			chunk = chunk[:limit-got]
			end = -1
		}
		dst = append(dst, chunk...)
		got += len(chunk)
		lr.n += int64(len(chunk))
		_, _ = lr.br.Discard(len(chunk)) // buffered: cannot fail
		switch {
		case end >= 0:
			return dst, true, nil
		case got == limit:
			return dst, false, nil
		}
	}
}

// skipRest consumes the rest of the line (from inside it) and says how
// many bytes it had and whether it ended with "\n".
func (lr *lineReader) skipRest() (n int64, nl bool, err error) {
	for {
		frag, err := lr.br.ReadSlice('\n')
		n += int64(len(frag))
		lr.n += int64(len(frag))
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				err = nil
			}
			return n, len(frag) > 0 && frag[len(frag)-1] == '\n', err
		}
	}
}

// discardIn consumes n bytes of the current line; false when the line
// ends before them.
func (lr *lineReader) discardIn(n int64) (bool, error) {
	for n > 0 {
		chunk, err := lr.br.Peek(int(min(n, int64(lr.br.Size()))))
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			return false, nil
		}
		if len(chunk) == 0 && err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
		_, _ = lr.br.Discard(len(chunk))
		lr.n += int64(len(chunk))
		n -= int64(len(chunk))
	}
	return true, nil
}
