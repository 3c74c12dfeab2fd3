package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// recordReader reads records of NUL-terminated tokens: an empty marker,
// one field per limit (each cut to its limit), then, withFiles, the
// commit's file names (the first after a newline) up to the next marker or
// the end of the output.
type recordReader struct {
	ctx       context.Context
	br        *bufio.Reader
	limits    []int
	withFiles bool
	buf       []byte
	n         int
	atRecord  bool // the marker of the next record has been read
}

func newRecordReader(ctx context.Context, r io.Reader, limits []int, withFiles bool) *recordReader {
	return &recordReader{ctx: ctx, br: bufio.NewReaderSize(r, 64<<10), limits: limits, withFiles: withFiles}
}

// token reads the next NUL-terminated token, keeping at most limit bytes
// of it; cut tells whether more were skipped. At the end of the output it
// returns io.EOF, with an empty token if the output ended cleanly.
func (rr *recordReader) token(limit int) (tok string, cut bool, err error) {
	rr.buf, cut, err = readField(rr.br, 0, limit, rr.buf)
	if err == io.EOF && (len(rr.buf) > 0 || cut) {
		return "", false, fmt.Errorf("git log: %w", io.ErrUnexpectedEOF)
	}
	return string(rr.buf), cut, err
}

// next returns the next record's fields, whether any was cut and how many
// files follow it, or false at the end of the output.
func (rr *recordReader) next() (fields []string, cut bool, files int, ok bool, err error) {
	if rr.n++; rr.n%checkEvery == 0 {
		if err := context.Cause(rr.ctx); err != nil {
			return nil, false, 0, false, err
		}
	}
	if !rr.atRecord {
		marker, markerCut, err := rr.token(0)
		if err == io.EOF {
			return nil, false, 0, false, nil
		}
		if err != nil {
			return nil, false, 0, false, err
		}
		if marker != "" || markerCut {
			return nil, false, 0, false, errors.New("git log: a record does not start where expected")
		}
	}
	rr.atRecord = false
	fields = make([]string, len(rr.limits))
	for i, limit := range rr.limits {
		tok, tokCut, err := rr.token(limit)
		if err == io.EOF {
			err = fmt.Errorf("git log: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return nil, false, 0, false, err
		}
		fields[i], cut = tok, cut || tokCut
	}
	if !IsObjectID(fields[0]) {
		return nil, false, 0, false, fmt.Errorf("git log: bad commit id %q", fields[0])
	}
	for rr.withFiles {
		// File names are counted, not kept.
		_, nonEmpty, err := rr.token(0)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, 0, false, err
		}
		if !nonEmpty { // the marker of the next record
			rr.atRecord = true
			break
		}
		files++
	}
	return fields, cut, files, true, nil
}

// commit reads the next record of logCommand's output.
func (rr *recordReader) commit() (Commit, bool, error) {
	f, cut, files, ok, err := rr.next()
	if err != nil || !ok {
		return Commit{}, false, err
	}
	if cut && len(f[1]) == maxLogBody {
		f[1] = f[1][:strings.LastIndexByte(f[1], ' ')+1] // a parent id cut in two
	}
	parents := strings.Fields(f[1])
	c := Commit{
		SHA:          f[0],
		Parents:      parents,
		ParentCount:  len(parents),
		Author:       Person{Name: f[2], Email: f[3], Date: parseISODate(f[4])},
		Committer:    Person{Name: f[5], Email: f[6], Date: parseISODate(f[7])},
		Subject:      f[8],
		FilesChanged: files,
		Truncated:    cut,
	}
	if len(f) > 9 {
		c.Body = f[9]
	}
	return c, true, nil
}

// parseISODate reads git's strict ISO 8601 date (%aI, %cI); the zero time
// if it cannot.
func parseISODate(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
