package paging

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// Replay reads a stream that can only be read from its start (a forge's
// diff of a pull request) as often as a part's fitting asks (FitPart):
// each Reader starts at the stream's first byte. The first Keep bytes are
// kept as they come, so that a part near the start is read again from
// memory; a reader that goes past them opens the stream again, checks
// that it starts with the bytes kept, and reads on. So a part is fitted
// to its own notes, as git's are, rather than keeping room for the
// longest notes any part could have, and memory stays within Keep.
type Replay struct {
	open  func() (io.ReadCloser, error)
	keep  int
	kept  []byte
	live  io.ReadCloser // the stream being kept; nil once taken or ended
	ended bool          // the stream ended within Keep: kept is all of it
	// opened are the streams to close.
	opened []io.Closer
	// Opens counts the streams opened, and Given the bytes its readers
	// gave, for the tests.
	Opens int
	Given int64
}

// NewReplay is a Replay of the stream open opens, keeping its first keep
// bytes.
func NewReplay(open func() (io.ReadCloser, error), keep int) *Replay {
	return &Replay{open: open, keep: keep}
}

// ErrStreamChanged: a stream opened again did not start as it did before;
// a forge's diff does so when the pull request's head moves meanwhile.
var ErrStreamChanged = errors.New("the stream changed between two reads")

// Reader reads the stream from its start. Readers are read one after
// another, not at once.
func (r *Replay) Reader() io.Reader { return &replayReader{r: r} }

// ReaderFrom reads the stream from byte offset on, when the bytes kept
// reach it (ok false otherwise: read it from its start). A count of a
// diff's parts starts each at a section an earlier part passed
// (diff.Checkpoint), rather than at the diff's start.
func (r *Replay) ReaderFrom(offset int64) (rd io.Reader, ok bool) {
	if offset < 0 || offset > int64(len(r.kept)) {
		return nil, false
	}
	return &replayReader{r: r, at: int(offset)}, true
}

// Close closes every stream opened.
func (r *Replay) Close() error {
	var errs []error
	for _, c := range r.opened {
		errs = append(errs, c.Close())
	}
	r.opened, r.live = nil, nil
	return errors.Join(errs...)
}

func (r *Replay) openStream() (io.ReadCloser, error) {
	s, err := r.open()
	if err != nil {
		return nil, err
	}
	r.Opens++
	r.opened = append(r.opened, s)
	return s, nil
}

type replayReader struct {
	r   *Replay
	at  int       // bytes read so far
	own io.Reader // past the kept bytes: the stream this reader reads alone
}

func (rr *replayReader) Read(p []byte) (int, error) {
	n, err := rr.read(p)
	rr.r.Given += int64(n)
	return n, err
}

func (rr *replayReader) read(p []byte) (int, error) {
	r := rr.r
	if rr.own != nil {
		n, err := rr.own.Read(p)
		rr.at += n
		return n, err
	}
	if rr.at < len(r.kept) {
		n := copy(p, r.kept[rr.at:])
		rr.at += n
		return n, nil
	}
	if r.ended {
		return 0, io.EOF
	}
	if r.live == nil && len(r.kept) == 0 && r.Opens == 0 {
		s, err := r.openStream()
		if err != nil {
			return 0, err
		}
		r.live = s
	}
	if r.live != nil && len(r.kept) < r.keep {
		// Keep what comes, as far as keep allows.
		buf := p[:min(len(p), r.keep-len(r.kept))]
		n, err := r.live.Read(buf)
		r.kept = append(r.kept, buf[:n]...)
		rr.at += n
		if err == io.EOF {
			r.ended = true
		}
		return n, err
	}
	// Past the kept bytes: the live stream if it is there, else the
	// stream again, from its start.
	if r.live != nil {
		rr.own, r.live = r.live, nil
		return rr.read(p)
	}
	s, err := r.openStream()
	if err != nil {
		return 0, err
	}
	start := make([]byte, len(r.kept))
	if _, err := io.ReadFull(s, start); err != nil || !bytes.Equal(start, r.kept) {
		return 0, errcode.New(errcode.Unavailable, "%v: %s", ErrStreamChanged, streamChange(err))
	}
	rr.own = s
	return rr.read(p)
}

// streamChange says how a stream read again differed.
func streamChange(err error) string {
	if err != nil {
		return fmt.Sprintf("it ended sooner (%v)", err)
	}
	return "its start differs"
}
