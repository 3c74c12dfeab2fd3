package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
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

// maxReaders bounds the cat-file processes one repository keeps for
// concurrent calls.
const maxReaders = 4

// objectPool keeps long-lived `git cat-file --batch-command -z` processes: a
// warm read costs a pipe round trip instead of a process start. Requests are
// NUL-terminated (-z), so no name can split a request in two.
type objectPool struct {
	repo   *Repo
	mu     sync.Mutex
	idle   []*catFile
	live   int
	closed bool
	free   chan struct{} // signalled when a reader is returned
}

func newObjectPool(r *Repo) *objectPool {
	return &objectPool{repo: r, free: make(chan struct{}, 1)}
}

type catFile struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	cancel context.CancelFunc
}

func (p *objectPool) get(ctx context.Context) (*catFile, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, errors.New("repository closed")
		}
		if n := len(p.idle); n > 0 {
			c := p.idle[n-1]
			p.idle = p.idle[:n-1]
			p.mu.Unlock()
			return c, nil
		}
		if p.live < maxReaders {
			p.live++
			p.mu.Unlock()
			c, err := p.start()
			if err != nil {
				p.release(nil)
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

// release returns a healthy reader to the pool, or accounts for a dead one
// (c == nil or broken) so a new one can start.
func (p *objectPool) put(c *catFile, healthy bool) {
	p.mu.Lock()
	if healthy && !p.closed {
		p.idle = append(p.idle, c)
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

func (p *objectPool) release(c *catFile) {
	p.mu.Lock()
	p.live--
	p.mu.Unlock()
	select {
	case p.free <- struct{}{}:
	default:
	}
}

func (p *objectPool) start() (*catFile, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := p.repo.command(ctx, false, []string{"cat-file", "--batch-command", "-z"})
	in, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("starting git cat-file: %w", err)
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), cancel: cancel}, nil
}

func (c *catFile) stop() {
	c.in.Close()
	c.cancel()
	c.cmd.Wait()
}

func (p *objectPool) close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, c := range idle {
		c.stop()
	}
}

// Info describes the object a name resolves to, without reading it.
func (r *Repo) Info(ctx context.Context, name string) (Object, error) {
	return r.objects.do(ctx, "info", name, nil)
}

// ReadObject hands the object's content to read as a stream. read may stop
// early; the rest is skipped or the reader replaced.
func (r *Repo) ReadObject(ctx context.Context, name string, read func(Object, io.Reader) error) error {
	_, err := r.objects.do(ctx, "contents", name, func(c *catFile, o Object) (bool, error) {
		body := io.LimitReader(c.out, o.Size)
		err := read(o, body)
		left := body.(*io.LimitedReader).N
		if left > drainLimit {
			return false, err
		}
		if _, derr := io.Copy(io.Discard, body); derr != nil {
			return false, err
		}
		if b, derr := c.out.ReadByte(); derr != nil || b != '\n' {
			return false, err
		}
		return true, err
	})
	return err
}

// do sends one request and parses the reply header; use (nil for "info")
// reads the body and reports whether the reader is still in step.
func (p *objectPool) do(ctx context.Context, verb, name string, use func(*catFile, Object) (bool, error)) (Object, error) {
	// cat-file echoes a missing name back on one line: a newline in a name
	// would desynchronise the reply stream. Paths with newlines are read by
	// walking trees by object id instead (see Lookup).
	if strings.ContainsAny(name, "\x00\n") {
		return Object{}, fmt.Errorf("git cat-file: object name contains NUL or newline")
	}
	if err := context.Cause(ctx); err != nil {
		return Object{}, err
	}
	c, err := p.get(ctx)
	if err != nil {
		return Object{}, err
	}
	// A cancelled call kills the process; the pool starts a fresh one later.
	stopKill := context.AfterFunc(ctx, c.cancel)
	healthy := false
	defer func() {
		if !stopKill() {
			healthy = false
		}
		p.put(c, healthy)
	}()
	if _, err := io.WriteString(c.in, verb+" "+name+"\x00"); err != nil {
		return Object{}, p.failure(ctx, err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return Object{}, p.failure(ctx, err)
	}
	obj, missing, err := parseHeader(header, name)
	if err != nil {
		return Object{}, err
	}
	if missing {
		healthy = true
		return Object{}, ErrMissing
	}
	if use == nil {
		healthy = true
		return obj, nil
	}
	healthy, err = use(c, obj)
	if !healthy && ctx.Err() != nil {
		return obj, context.Cause(ctx)
	}
	return obj, err
}

func (p *objectPool) failure(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		return cause
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
