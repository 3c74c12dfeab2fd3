package git

import (
	"bufio"
	"context"
	"io"
)

// nulRecords reads the records git prints with -z (ls-tree -z, ls-files
// -z), each ended by a NUL, and checks ctx every so many records: the loop
// GlobsSelectFile, parseLsTree and the work-tree search's readIndex
// shared. It reads from br and nothing more, so a caller can read other
// lines from br between two records.
type nulRecords struct {
	ctx   context.Context
	br    *bufio.Reader
	limit int // bytes kept of a record
	every int // records read between two looks at ctx
	n     int // records asked for so far
	rec   []byte
}

func newNulRecords(ctx context.Context, br *bufio.Reader, limit, every int) *nulRecords {
	return &nulRecords{ctx: ctx, br: br, limit: limit, every: every}
}

// next returns the next record, at most limit bytes of it (cut: there
// were more, skipped), valid until the next call. After the last record it
// returns io.EOF and nothing else; a record the output ends in before its
// NUL comes with io.ErrUnexpectedEOF, for the caller to refuse or take.
// Any other error (ctx's cause, a read's) comes alone.
func (z *nulRecords) next() (rec []byte, cut bool, err error) {
	if z.n%z.every == z.every-1 {
		if err := context.Cause(z.ctx); err != nil {
			return nil, false, err
		}
	}
	z.n++
	z.rec, cut, err = readField(z.br, 0, z.limit, z.rec)
	switch {
	case err == io.EOF && len(z.rec) == 0 && !cut:
		return nil, false, io.EOF
	case err == io.EOF:
		return z.rec, cut, io.ErrUnexpectedEOF
	case err != nil:
		return nil, false, err
	}
	return z.rec, cut, nil
}
