package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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

// MaxObjectReaders bounds the cat-file processes one repository keeps for
// concurrent calls; once other repositories are open, it keeps at most its
// share of the reader table (Env.readerShare).
const MaxObjectReaders = 8

// objectPool keeps long-lived `git cat-file --batch-command -z` processes: a
// warm read costs a pipe round trip instead of a process start. Requests are
// NUL-terminated (-z), so no name can split a request in two.
type objectPool struct {
	repo   *Repo
	mu     sync.Mutex
	idle   []*catFile // most recently used last
	live   int
	closed bool
	free   chan struct{} // signalled when a reader is returned
	reaper *time.Timer   // ends readers idle past idleTimeout; nil when none is idle
	// idleTimeout ends a reader nobody used for this long, so a server
	// with thousands of repositories keeps processes only for those in use.
	idleTimeout time.Duration
	requests    atomic.Int64 // sent to the readers, for the tests
}

// defaultIdleTimeout: see objectPool.idleTimeout.
const defaultIdleTimeout = 2 * time.Minute

func newObjectPool(r *Repo) *objectPool {
	// One token per reader: a return never goes unnoticed by a waiter.
	p := &objectPool{repo: r, free: make(chan struct{}, MaxObjectReaders), idleTimeout: defaultIdleTimeout}
	r.env.readers.add(p)
	return p
}

// oldestIdle says since when the reader idle the longest has been idle
// (false: none is).
func (p *objectPool) oldestIdle() (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) == 0 {
		return time.Time{}, false
	}
	return p.idle[0].idleSince, true
}

// retireOldestIdle takes the reader idle the longest out of the pool, for
// the caller to stop: another repository needs its room.
func (p *objectPool) retireOldestIdle() *catFile {
	p.mu.Lock()
	if len(p.idle) == 0 {
		p.mu.Unlock()
		return nil
	}
	c := p.idle[0]
	p.idle = p.idle[1:]
	p.live--
	p.mu.Unlock()
	select {
	case p.free <- struct{}{}:
	default:
	}
	return c
}

type catFile struct {
	proc      *process
	in        io.WriteCloser
	out       *bufio.Reader
	cancel    context.CancelFunc
	used      bool // has answered a request: it was alive when it went idle
	stopped   bool
	idleSince time.Time
}

// get takes an idle reader or starts one; fresh asks for a new process (an
// idle one is retired to make room if the pool is full).
func (p *objectPool) get(ctx context.Context, fresh bool) (*catFile, error) {
	for {
		limit := p.repo.env.readerShare() // before p.mu: the table locks pools
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, errors.New("repository closed")
		}
		if n := len(p.idle); n > 0 && (!fresh || p.live >= limit) {
			c := p.idle[n-1]
			p.idle = p.idle[:n-1]
			p.mu.Unlock()
			if !fresh {
				return c, nil
			}
			p.put(c, false)
			continue
		}
		if p.live < limit {
			p.live++
			p.mu.Unlock()
			c, err := p.start(ctx)
			if err != nil {
				p.release()
			}
			return c, err
		}
		p.mu.Unlock()
		select {
		case <-p.free:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// put returns a healthy reader to the pool, or stops a broken one so a new
// one can start.
func (p *objectPool) put(c *catFile, healthy bool) {
	p.mu.Lock()
	if healthy && !p.closed {
		c.idleSince = time.Now()
		p.idle = append(p.idle, c)
		if p.reaper == nil {
			p.reaper = time.AfterFunc(p.idleTimeout, p.reap)
		}
		p.mu.Unlock()
	} else {
		p.live--
		p.mu.Unlock()
		c.stop()
	}
	select {
	case p.free <- struct{}{}:
	default:
	}
}

// reap ends the readers idle for idleTimeout and looks again later while
// any reader is idle.
func (p *objectPool) reap() {
	p.mu.Lock()
	var old []*catFile
	keep := p.idle[:0]
	for _, c := range p.idle {
		if time.Since(c.idleSince) >= p.idleTimeout {
			old = append(old, c)
		} else {
			keep = append(keep, c)
		}
	}
	p.idle = keep
	p.live -= len(old)
	if len(p.idle) > 0 && !p.closed {
		p.reaper = time.AfterFunc(p.idleTimeout-time.Since(p.idle[0].idleSince), p.reap)
	} else {
		p.reaper = nil
	}
	p.mu.Unlock()
	for _, c := range old {
		c.stop()
	}
}

// release accounts for a reader that failed to start.
func (p *objectPool) release() {
	p.mu.Lock()
	p.live--
	p.mu.Unlock()
	select {
	case p.free <- struct{}{}:
	default:
	}
}

// start starts a reader. It takes room in the Env's reader table (waiting
// under callCtx), given back when the reader stops.
func (p *objectPool) start(callCtx context.Context) (*catFile, error) {
	ctx, cancel := context.WithCancel(context.Background()) // the reader outlives the call that starts it
	proc, err := p.repo.start(callCtx, ctx, gitCommand("cat-file", "--batch-command", "-z").longLived(), true)
	if err != nil {
		cancel()
		return nil, err
	}
	return &catFile{proc: proc, in: proc.stdin, out: bufio.NewReaderSize(proc.stdout, 64<<10), cancel: cancel}, nil
}

func (c *catFile) stop() {
	if c.stopped {
		return
	}
	c.stopped = true
	c.in.Close()
	c.cancel()
	_ = c.proc.wait() // gives back its room in the Env's reader table; how it ended does not matter now
}

func (p *objectPool) close() {
	p.repo.env.readers.remove(p)
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	if p.reaper != nil {
		p.reaper.Stop()
		p.reaper = nil
	}
	p.mu.Unlock()
	for _, c := range idle {
		c.stop()
	}
}

func (p *objectPool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

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

// errStale marks a reader found dead when it was taken from the idle list
// (killed or crashed while it waited): the request is sent again to a new one.
var errStale = errors.New("git cat-file: idle reader died")

// checkObjectName refuses a name cat-file's line-based replies cannot
// carry: it echoes a missing name back on one line, so a newline in a name
// would desynchronise the reply stream. Paths with newlines are read by
// walking trees by object id instead (see Lookup).
func checkObjectName(name string) error {
	if strings.ContainsAny(name, "\x00\n") {
		return fmt.Errorf("git cat-file: object name contains NUL or newline")
	}
	return nil
}

// do sends one request and parses the reply header; use (nil for "info")
// reads the body and reports whether the reader is still in step.
func (p *objectPool) do(ctx context.Context, verb, name string, use func(*catFile, Object) (bool, error)) (Object, error) {
	if err := checkObjectName(name); err != nil {
		return Object{}, err
	}
	var obj Object
	err := p.lease(ctx, func(c *catFile) (healthy bool, err error) {
		obj, healthy, err = p.request(ctx, c, verb, name, use)
		return healthy, err
	})
	return obj, err
}

// infos asks for the objects names[which] in one batch, into out.
func (p *objectPool) infos(ctx context.Context, names []string, which []int, out []Object) error {
	return p.lease(ctx, func(c *catFile) (bool, error) { return p.batch(ctx, c, names, which, out) })
}

// lease runs one exchange with a reader, which reports whether it left the
// reader in step. A cancelled call kills the process (the pool starts a
// fresh one later); a reader found dead while idle (errStale) is replaced
// once and the exchange run again.
func (p *objectPool) lease(ctx context.Context, exchange func(*catFile) (healthy bool, err error)) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	for fresh := false; ; fresh = true {
		c, err := p.get(ctx, fresh)
		if err != nil {
			return err
		}
		p.requests.Add(1)
		stopKill := context.AfterFunc(ctx, c.cancel)
		healthy, err := exchange(c)
		if !stopKill() {
			healthy = false
		}
		p.put(c, healthy)
		if err != errStale || fresh {
			return err
		}
	}
}

// batch writes the requests of a batch at once, then reads their replies.
func (p *objectPool) batch(ctx context.Context, c *catFile, names []string, which []int, out []Object) (healthy bool, err error) {
	var b strings.Builder
	for _, i := range which {
		b.WriteString("info " + names[i] + "\x00")
	}
	if _, err := io.WriteString(c.in, b.String()); err != nil {
		return false, p.failure(ctx, c, names[which[0]], err)
	}
	for _, i := range which {
		header, err := c.out.ReadString('\n')
		if err != nil {
			return false, p.failure(ctx, c, names[i], err)
		}
		c.used = true
		obj, missing, err := parseHeader(header, names[i])
		if err != nil {
			return false, err
		}
		if !missing {
			out[i] = obj
		}
	}
	return true, nil
}

// request sends one request on c and parses its reply.
func (p *objectPool) request(ctx context.Context, c *catFile, verb, name string, use func(*catFile, Object) (bool, error)) (obj Object, healthy bool, err error) {
	if _, err := io.WriteString(c.in, verb+" "+name+"\x00"); err != nil {
		return Object{}, false, p.failure(ctx, c, name, err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return Object{}, false, p.failure(ctx, c, name, err)
	}
	c.used = true
	obj, missing, err := parseHeader(header, name)
	switch {
	case err != nil:
		return Object{}, false, err
	case missing:
		return Object{}, true, ErrMissing
	case use == nil:
		return obj, true, nil
	}
	healthy, err = use(c, obj)
	if !healthy && ctx.Err() != nil {
		return obj, false, context.Cause(ctx)
	}
	return obj, healthy, err
}

// failure explains a reader that stopped answering. One that had answered
// before died while idle (errStale: ask a new one). A new one that dies on
// the request was ended by the name itself: git dies on names such as
// "HEAD@{upstream}" without an upstream or "HEAD@{99}" past the reflog, and
// such a name names nothing.
func (p *objectPool) failure(ctx context.Context, c *catFile, name string, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		return p.repo.blockedBy(cause)
	}
	if c.used {
		return errStale
	}
	c.stop() // waits for git, so its stderr is complete
	msg := strings.TrimSpace(c.proc.stderr.String())
	refused := p.repo.refusal(msg)
	switch {
	case refused == ErrNotFetched: // a partial clone's: the object is missing
		return fmt.Errorf("%w: %q: %w", ErrMissing, name, ErrNotFetched)
	case refused != nil:
		return fmt.Errorf("git cat-file: %w", refused)
	case strings.HasPrefix(msg, "fatal: "):
		return fmt.Errorf("%w: %q: git cat-file: %s", ErrMissing, name, msg)
	case msg != "": // git could not start on the repository (its config, say)
		return fmt.Errorf("git cat-file: %s", msg)
	}
	return fmt.Errorf("git cat-file: %w", err)
}

// parseHeader reads "<oid> <type> <size>\n", or "<name> missing\n" /
// "<name> ambiguous\n".
func parseHeader(header, name string) (Object, bool, error) {
	line := strings.TrimSuffix(header, "\n")
	if rest, ok := strings.CutPrefix(line, name+" "); ok && (rest == "missing" || rest == "ambiguous") {
		return Object{}, true, nil
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return Object{}, false, fmt.Errorf("git cat-file: unexpected reply %q", line)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return Object{}, false, fmt.Errorf("git cat-file: bad size in %q", line)
	}
	return Object{OID: f[0], Type: f[1], Size: size}, false, nil
}
