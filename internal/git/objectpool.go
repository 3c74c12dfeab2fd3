package git

import (
	"bufio"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

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
	p := &objectPool{repo: r, free: make(chan struct{}, gitexec.MaxReaders), idleTimeout: defaultIdleTimeout}
	return p
}

// OldestIdle says since when the reader idle the longest has been idle
// (false: none is): the pool is the repository's gitexec.Idler.
func (p *objectPool) OldestIdle() (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) == 0 {
		return time.Time{}, false
	}
	return p.idle[0].idleSince, true
}

// RetireOldestIdle takes the reader idle the longest out of the pool and
// returns what stops it: another repository needs its room.
func (p *objectPool) RetireOldestIdle() (stop func()) {
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
	return c.stop
}

type catFile struct {
	proc      *gitexec.Process
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
		limit := p.repo.env.ReaderShare() // before p.mu: the table locks pools
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
	proc, err := p.repo.run.Start(callCtx, ctx, gitexec.Command("cat-file", "--batch-command", "-z").LongLived(), true)
	if err != nil {
		cancel()
		return nil, err
	}
	return &catFile{proc: proc, in: proc.Stdin, out: bufio.NewReaderSize(proc.Stdout, 64<<10), cancel: cancel}, nil
}

func (c *catFile) stop() {
	if c.stopped {
		return
	}
	c.stopped = true
	c.in.Close()
	c.cancel()
	_ = c.proc.Wait() // gives back its room in the Env's reader table; how it ended does not matter now
}

func (p *objectPool) close() {
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
