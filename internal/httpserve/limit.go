package httpserve

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// limitListener caps the connections open at once. At the cap, a new
// connection evicts one that has waited for its client longest: first one
// still receiving a request's headers or body for over evictReceivingAfter
// (honest clients send a request at once; slowloris clients are the ones
// still sending), else one idle between requests for over evictIdleAfter
// (its client may be about to reuse it: a short idle is spared). A
// connection whose request is being served is never evicted. When no
// connection can be evicted, Accept waits (the new connection waiting in
// the kernel's queue holds no descriptor but the one accepted).
type limitListener struct {
	net.Listener
	max int
	log *slog.Logger

	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	change chan struct{} // a connection closed or began to wait (capacity 1)
	closed chan struct{}
	once   sync.Once

	evicted atomic.Int64
}

const (
	evictReceivingAfter = 250 * time.Millisecond
	evictIdleAfter      = time.Second
)

type connPhase int

const (
	phaseReceiving connPhase = iota // request headers or body on their way
	phaseIdle                       // between requests
	phaseServing                    // a request is being served
)

type trackedConn struct {
	net.Conn
	l *limitListener
	// Guarded by l.mu.
	phase connPhase
	since time.Time
	once  sync.Once
}

func newLimitListener(inner net.Listener, max int, log *slog.Logger) *limitListener {
	return &limitListener{
		Listener: inner,
		max:      max,
		log:      log,
		conns:    map[*trackedConn]struct{}{},
		change:   make(chan struct{}, 1),
		closed:   make(chan struct{}),
	}
}

func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	for len(l.conns) >= l.max {
		victim, wait := l.victimLocked(time.Now())
		if victim != nil {
			delete(l.conns, victim)
			l.mu.Unlock()
			n := l.evicted.Add(1)
			l.log.Debug("connection cap reached: closed a connection waiting for its client", "remote", victim.RemoteAddr().String(), "evicted", n)
			victim.Conn.Close()
			l.mu.Lock()
			continue
		}
		l.mu.Unlock()
		var timer <-chan time.Time
		if wait > 0 {
			t := time.NewTimer(wait)
			timer = t.C
			defer t.Stop()
		}
		select {
		case <-l.change:
		case <-timer:
		case <-l.closed:
			c.Close()
			return nil, net.ErrClosed
		}
		l.mu.Lock()
	}
	tc := &trackedConn{Conn: c, l: l, phase: phaseReceiving, since: time.Now()}
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
}

// victimLocked is the connection to evict, or nil and how long until one
// may be (0: none waits for its client).
func (l *limitListener) victimLocked(now time.Time) (*trackedConn, time.Duration) {
	var receiving, idle *trackedConn
	for c := range l.conns {
		switch c.phase {
		case phaseReceiving:
			if receiving == nil || c.since.Before(receiving.since) {
				receiving = c
			}
		case phaseIdle:
			if idle == nil || c.since.Before(idle.since) {
				idle = c
			}
		}
	}
	var wait time.Duration
	for _, cand := range []struct {
		c     *trackedConn
		after time.Duration
	}{{receiving, evictReceivingAfter}, {idle, evictIdleAfter}} {
		if cand.c == nil {
			continue
		}
		left := cand.c.since.Add(cand.after).Sub(now)
		if left <= 0 {
			return cand.c, 0
		}
		if wait == 0 || left < wait {
			wait = left
		}
	}
	return nil, wait
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// open is the number of connections open.
func (l *limitListener) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		c.l.changed()
	})
	return err
}

// setPhase is safe on nil (a handler served by another server than
// Serve's).
func (c *trackedConn) setPhase(p connPhase) {
	if c == nil {
		return
	}
	c.l.mu.Lock()
	c.phase, c.since = p, time.Now()
	c.l.mu.Unlock()
	if p != phaseServing {
		c.l.changed()
	}
}

// changed wakes an Accept waiting for room.
func (l *limitListener) changed() {
	select {
	case l.change <- struct{}{}:
	default:
	}
}

type connKey struct{}

// connContext gives handlers their connection (http.Server.ConnContext).
func (l *limitListener) connContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*trackedConn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

func connFrom(ctx context.Context) *trackedConn {
	tc, _ := ctx.Value(connKey{}).(*trackedConn)
	return tc
}

// connState follows the server's view of each connection
// (http.Server.ConnState).
func (l *limitListener) connState(c net.Conn, s http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	switch s {
	case http.StateNew:
		tc.setPhase(phaseReceiving)
	case http.StateIdle:
		tc.setPhase(phaseIdle)
	case http.StateActive, http.StateHijacked:
		tc.setPhase(phaseServing)
	}
}
