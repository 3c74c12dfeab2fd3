package splice

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio runs an MCP server over a reader and a writer with the SDK's own
// stdio connection, and is the writer under it: where a frame the SDK
// writes has a held result's token, Stdio writes the result's bytes.
type Stdio struct {
	session atomic.Pointer[mcp.ServerSession]
	// prefix starts every token of this Stdio: 128 random bits, so no
	// text can forge one, and none is ever sent.
	prefix []byte

	mu     sync.Mutex
	held   map[string][]byte // token → the result's bytes
	serial uint64

	writeMu sync.Mutex
	out     io.Writer
	frame   []byte // the frame being written, kept for the next
}

// maxHeld bounds the results encoded and not yet written. A result is let
// go only when it is written, so a response the SDK never writes (its
// connection closing) stays held; past the bound, results are encoded in
// place, one pass slower.
const maxHeld = 32

// maxKeptFrame bounds the frame buffer kept between writes, and a result's
// buffer given back to the pool.
const maxKeptFrame = 1 << 20

// NewStdio returns a Stdio with a prefix of its own for its tokens.
func NewStdio() *Stdio {
	var nonce [16]byte
	rand.Read(nonce[:])
	return &Stdio{
		prefix: []byte(`"mcp-repo-tools-result-` + hex.EncodeToString(nonce[:]) + "-"),
		held:   map[string][]byte{},
	}
}

// Run serves srv over in and out until the client goes or ctx ends, as
// mcp.Server.Run does with the SDK's stdio transport.
func (st *Stdio) Run(ctx context.Context, srv *mcp.Server, in io.ReadCloser, out io.Writer) error {
	st.out = out
	ss, err := srv.Connect(ctx, &mcp.IOTransport{Reader: in, Writer: nopCloser{st}}, nil)
	if err != nil {
		return err
	}
	st.session.Store(ss)
	// Closing the session ends its Wait; the error that matters then is
	// ctx's.
	stop := context.AfterFunc(ctx, func() { _ = ss.Close() })
	defer stop()
	err = ss.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// carries reports whether s is the session Run serves.
func (st *Stdio) carries(s mcp.Session) bool {
	ss, ok := s.(*mcp.ServerSession)
	return ok && ss != nil && ss == st.session.Load()
}

// encode encodes r into a buffer of the pool and holds it.
func (st *Stdio) encode(r *mcp.CallToolResult) ([]byte, error) {
	buf := buffers.Get().(*[]byte)
	data, err := appendEncoded((*buf)[:0], r)
	if err != nil {
		buffers.Put(buf)
		return nil, err
	}
	return st.hold(data), nil
}

// buffers keeps results' bytes from their encoding to their write: a
// buffer of their own for every part of a paged diff was most of what the
// encoding allocated.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// hold keeps a result's bytes and returns the token the SDK encodes in
// their place. Past maxHeld, the bytes themselves: the SDK keeps them.
func (st *Stdio) hold(data []byte) []byte {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.held) >= maxHeld {
		return data
	}
	st.serial++
	token := strconv.AppendUint(bytes.Clone(st.prefix), st.serial, 10)
	token = append(token, '"')
	st.held[string(token)] = data
	return token
}

// take returns the bytes held for token and lets them go.
func (st *Stdio) take(token []byte) ([]byte, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	data, ok := st.held[string(token)]
	if ok {
		delete(st.held, string(token))
	}
	return data, ok
}

// Write writes one frame of the SDK's, each token in it replaced by its
// result's bytes.
func (st *Stdio) Write(p []byte) (int, error) {
	st.writeMu.Lock()
	defer st.writeMu.Unlock()
	if !bytes.Contains(p, st.prefix) {
		_, err := st.out.Write(p)
		return len(p), err
	}
	frame, rest := st.frame[:0], p
	for {
		at := bytes.Index(rest, st.prefix)
		if at < 0 {
			break
		}
		end := bytes.IndexByte(rest[at+len(st.prefix):], '"')
		if end < 0 {
			break
		}
		token := rest[at : at+len(st.prefix)+end+1]
		frame = append(frame, rest[:at]...)
		if data, ok := st.take(token); ok {
			frame = append(frame, data...)
			if cap(data) <= maxKeptFrame {
				data = data[:0]
				buffers.Put(&data)
			}
		} else {
			frame = append(frame, token...)
		}
		rest = rest[at+len(token):]
	}
	frame = append(frame, rest...)
	if cap(frame) <= maxKeptFrame {
		st.frame = frame
	}
	_, err := st.out.Write(frame)
	return len(p), err
}

// nopCloser leaves closing out to whoever opened it, as the SDK's stdio
// transport leaves stdout open.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
