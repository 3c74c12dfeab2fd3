// The pager's reading of its input: line by line, telling a line's kind
// from its first bytes, counting the bytes consumed.

package diff

import (
	"bufio"
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
