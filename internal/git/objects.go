package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// ErrMissing is returned for an object name that names nothing.
var ErrMissing = errors.New("no such object")

// Object describes one object as cat-file reports it.
type Object struct {
	OID  string
	Type string // blob, tree, commit, tag
	Size int64
}

// drainLimit: after a caller stops reading a blob early, up to this many
// unread bytes are skipped to keep the reader; past it the process is
// replaced instead (a restart costs a few milliseconds).
const drainLimit = 4 << 20

// Info describes the object a name resolves to, without reading it.
func (r *Repo) Info(ctx context.Context, name string) (Object, error) {
	if o, ok := r.remembered(ctx, name); ok {
		return o, nil
	}
	o, err := r.objects.do(ctx, "info", name, nil)
	r.rememberObject(name, o, err)
	return o, err
}

// Infos describes the objects names resolve to, as Info does one by one,
// with the requests pipelined: a list costs a round trip per batch, not
// per name. A name that names nothing gets the zero Object.
func (r *Repo) Infos(ctx context.Context, names []string) ([]Object, error) {
	out := make([]Object, len(names))
	var ask []int
	for i, name := range names {
		if o, ok := r.remembered(ctx, name); ok {
			out[i] = o
			continue
		}
		if err := checkObjectName(name); err != nil {
			return nil, err
		}
		ask = append(ask, i)
	}
	for len(ask) > 0 {
		n, size := 0, 0
		for ; n < len(ask) && (n == 0 || size+len(names[ask[n]]) <= maxBatchBytes); n++ {
			size += len(names[ask[n]]) + len("info \x00")
		}
		if err := r.objects.infos(ctx, names, ask[:n], out); err != nil {
			return nil, err
		}
		for _, i := range ask[:n] {
			if out[i].OID != "" {
				r.rememberObject(names[i], out[i], nil)
			}
		}
		ask = ask[n:]
	}
	return out, nil
}

// maxBatchBytes bounds the requests written at once, and so their replies
// (a missing name is echoed back): both stay under a pipe's 64 KiB, so
// neither side waits on the other while the batch is written.
const maxBatchBytes = 16 << 10

// remembered is what a name that starts with an object id resolved to
// before, while the call and the repository are still open.
func (r *Repo) remembered(ctx context.Context, name string) (Object, bool) {
	o, ok := r.memo.get("object " + name)
	if !ok || context.Cause(ctx) != nil || r.objects.isClosed() {
		return Object{}, false
	}
	return o.(Object), true
}

// rememberObject keeps what a name that starts with an object id resolved
// to (blobcache.go).
func (r *Repo) rememberObject(name string, o Object, err error) {
	if err == nil && fixedName(name) {
		r.memo.put("object "+name, o, len(name)+len(o.OID)+64)
	}
}

// ReadObject hands the object's content to read as a stream. read may stop
// early; the rest is skipped or the reader replaced. A small blob is kept
// (blobcache.go).
func (r *Repo) ReadObject(ctx context.Context, name string, read func(Object, io.Reader) error) error {
	if o, ok := r.remembered(ctx, name); ok {
		if data, ok := r.env.blobs.get(blobKey{r.gitDir, o.OID}); ok {
			// A bytes.Buffer, so that text.Slicer slices it in place; read
			// only reads it (a write would land in the cache).
			return read(o, bytes.NewBuffer(data))
		}
	}
	o, err := r.objects.do(ctx, "contents", name, func(c *catFile, o Object) (bool, error) {
		body := &objectBody{r: c.out, n: o.Size}
		var kept *bytes.Buffer
		var src io.Reader = body
		if o.Type == "blob" && o.Size <= maxCachedBlob {
			kept = bytes.NewBuffer(make([]byte, 0, o.Size))
			src = io.TeeReader(body, kept)
		}
		defer func() {
			if kept != nil && int64(kept.Len()) == o.Size && !body.short {
				r.env.blobs.put(blobKey{r.gitDir, o.OID}, kept.Bytes())
			}
		}()
		err := read(o, src)
		if err == nil && body.short {
			// The reader died mid-object: what read saw was cut short.
			err = fmt.Errorf("git cat-file: %s: %w", name, io.ErrUnexpectedEOF)
		}
		left := body.n
		if left > drainLimit {
			return false, err
		}
		if _, derr := io.Copy(io.Discard, src); derr != nil {
			return false, err
		}
		if b, derr := c.out.ReadByte(); derr != nil || b != '\n' {
			return false, err
		}
		return true, err
	})
	r.rememberObject(name, o, err)
	return err
}

// objectBody is one object's content: exactly n bytes of the reply stream.
// Unlike io.LimitReader it reports a stream that ends early (the process
// died) as io.ErrUnexpectedEOF, never as a clean end of the object.
type objectBody struct {
	r     io.Reader
	n     int64
	short bool
}

func (b *objectBody) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	if err == io.EOF && b.n > 0 {
		b.short = true
		err = io.ErrUnexpectedEOF
	}
	return n, err
}
