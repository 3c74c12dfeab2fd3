package httpserve

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// limitListener caps the connections open at once, and the busy ones of
// any one client. At the cap, a new connection evicts one that waits for its
// client (victimLocked): first one the client holds up mid-request, still
// sending its request after evictReceivingAfter (slowloris) or not taking
// its reply for evictStalledAfter (a client that does not read), oldest
// first; else one idle between requests for over evictIdleAfter, or an
// event stream with nothing sent for over evictQuietAfter, oldest first
// (its client may be about to reuse it: a short idle is spared). A
// connection serving a call whose reply is not stuck is never evicted. When
// none can be, Accept waits (the new connection waiting in the kernel's
// queue holds no descriptor but the one accepted).
//
// A client has at most perClient connections busy at once: serving a
// request or holding an event stream (the cap cannot evict those; what
// waits for its client, it can). A request past its client's share, once
// read, evicts that client's own stalled reply or quiet event stream,
// oldest first; if there is none yet, it waits (queued) for one, or for
// one of its calls to end, for at most queueTimeout, then is refused
// (503); at the cap a queued connection is the first evicted. The client
// is the connection's remote address, or for a connection from a trusted
// proxy the one its request was forwarded for (X-Forwarded-For).
type limitListener struct {
	net.Listener
	max, perClient int
	writeTimeout   time.Duration
	queueTimeout   time.Duration
	proxies        trustedProxies
	log            *slog.Logger

	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	change chan struct{} // a connection closed or began to wait (capacity 1)
	closed chan struct{}
	once   sync.Once

	evicted, refused atomic.Int64
}

const (
	evictReceivingAfter = 250 * time.Millisecond
	evictStalledAfter   = time.Second
	evictIdleAfter      = time.Second
	evictQuietAfter     = time.Second
	// queuePoll is how often a queued connection looks for room.
	queuePoll = 50 * time.Millisecond
	// writeChunk is the most written at once, so that a reply's progress
	// (and its deadline) is seen at least this often.
	writeChunk = 32 << 10
)

type connPhase int

const (
	phaseReceiving connPhase = iota // request headers or body on their way
	phaseIdle                       // between requests
	phaseServing                    // a request is being served
	phaseStreaming                  // a GET event stream is open
)

type trackedConn struct {
	net.Conn
	l *limitListener
	// peer is the remote address as a client (clientKey); fromProxy: it
	// is a trusted proxy's.
	peer      string
	fromProxy bool
	// Guarded by l.mu.
	phase  connPhase
	since  time.Time
	client string // whose share it counts in ("": a proxy's between requests)
	// queued: its request is past its client's share, waiting for room
	// (set under l.mu, read without it), since queuedAt.
	queued   atomic.Bool
	queuedAt time.Time
	// Set by Write without the lock (unix nanoseconds): when the write in
	// progress last progressed (0: none in progress), and when the last
	// write ended.
	stalledSince atomic.Int64
	wroteAt      atomic.Int64
	once         sync.Once
}

func newLimitListener(inner net.Listener, o Options, proxies trustedProxies, log *slog.Logger) *limitListener {
	return &limitListener{
		Listener:     inner,
		max:          o.MaxConnections,
		perClient:    o.MaxConnectionsPerClient,
		writeTimeout: o.WriteTimeout,
		queueTimeout: o.ReadTimeout,
		proxies:      proxies,
		log:          log,
		conns:        map[*trackedConn]struct{}{},
		change:       make(chan struct{}, 1),
		closed:       make(chan struct{}),
	}
}

func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.admit(c)
}

// admit tracks c within the cap.
func (l *limitListener) admit(c net.Conn) (*trackedConn, error) {
	tc := &trackedConn{Conn: c, l: l, phase: phaseReceiving, since: time.Now()}
	tc.peer, tc.fromProxy = l.proxies.peer(c.RemoteAddr())
	l.mu.Lock()
	for len(l.conns) >= l.max {
		victim, wait := l.victimLocked(time.Now(), nil)
		if victim != nil {
			delete(l.conns, victim)
			l.mu.Unlock()
			l.closeEvicted(victim, "connection cap reached")
			l.mu.Lock()
			continue
		}
		l.mu.Unlock()
		// A reply that stalls says nothing: look again by then.
		t := time.NewTimer(nextLook(wait))
		select {
		case <-l.change:
		case <-t.C:
		case <-l.closed:
			t.Stop()
			c.Close()
			return nil, net.ErrClosed
		}
		t.Stop()
		l.mu.Lock()
	}
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
}

// nextLook is how long Accept waits at the cap before it looks again:
// until a connection may be evicted (wait; 0 if none waits for its
// client), at most evictStalledAfter.
func nextLook(wait time.Duration) time.Duration {
	if wait > 0 {
		return min(wait, evictStalledAfter)
	}
	return evictStalledAfter
}

// shareLocked makes room for tc's request among client's busy
// connections: ok if there is room, with a connection of the client's to
// evict for it (nil: none needed).
func (l *limitListener) shareLocked(tc *trackedConn, client string) (victim *trackedConn, ok bool) {
	n := 0
	for c := range l.conns {
		if c != tc && c.client == client && c.busyLocked() {
			n++
		}
	}
	if n < l.perClient {
		return nil, true
	}
	victim, _ = l.victimLocked(time.Now(), func(c *trackedConn) bool {
		return c != tc && c.client == client && c.busyLocked() // a stalled reply or a quiet stream
	})
	if victim == nil {
		return nil, false
	}
	delete(l.conns, victim)
	return victim, true
}

// busyLocked: c serves a request or holds an event stream, and is not
// waiting for its share.
func (c *trackedConn) busyLocked() bool {
	return (c.phase == phaseServing || c.phase == phaseStreaming) && !c.queued.Load()
}

// closeEvicted closes victim (nil: nothing to do), already taken out of
// the table.
func (l *limitListener) closeEvicted(victim *trackedConn, why string) {
	if victim == nil {
		return
	}
	n := l.evicted.Add(1)
	l.mu.Lock()
	client := victim.client
	l.mu.Unlock()
	l.log.Debug(why+": closed a connection waiting for its client", "remote", victim.RemoteAddr().String(), "client", client, "evicted", n)
	victim.Conn.Close()
}

func (c *trackedConn) queueLocked() {
	c.queuedAt = time.Now()
	c.queued.Store(true)
}

// waitForShare waits, queued, until client's share has room for c: true
// once c counts in it, false if it was evicted or queueTimeout passed.
func (c *trackedConn) waitForShare(client string) bool {
	l := c.l
	for end := time.Now().Add(l.queueTimeout); ; {
		l.mu.Lock()
		if _, open := l.conns[c]; !open {
			l.mu.Unlock()
			return false
		}
		victim, ok := l.shareLocked(c, client)
		if ok {
			c.queued.Store(false)
		}
		l.mu.Unlock()
		if ok {
			l.closeEvicted(victim, "past its client's share")
			return true
		}
		if time.Now().After(end) {
			c.queued.Store(false) // refused
			n := l.refused.Add(1)
			l.log.Debug("request refused: its client's calls and streams take its whole share", "client", client, "refused", n)
			return false
		}
		time.Sleep(queuePoll)
	}
}

func shareMessage(perClient int) string {
	return fmt.Sprintf("too many calls and event streams from your address at once: each client has at most %d (--max-connections-per-client); retry when one of yours is done", perClient)
}

// victimLocked is the connection among those that pass keep (nil: all) to
// evict, or nil and how long until one may be (0: none waits for its
// client).
func (l *limitListener) victimLocked(now time.Time, keep func(*trackedConn) bool) (*trackedConn, time.Duration) {
	var best [2]*trackedConn // by tier: held up mid-request, idle
	var bestSince [2]time.Time
	var wait time.Duration
	for c := range l.conns {
		if keep != nil && !keep(c) {
			continue
		}
		tier, since, after, ok := c.waitingLocked()
		if !ok {
			continue
		}
		if left := since.Add(after).Sub(now); left > 0 {
			if wait == 0 || left < wait {
				wait = left
			}
			continue
		}
		if best[tier] == nil || since.Before(bestSince[tier]) {
			best[tier], bestSince[tier] = c, since
		}
	}
	for _, c := range best {
		if c != nil {
			return c, 0
		}
	}
	return nil, wait
}

// waitingLocked reports whether c waits for its client, since when, how
// long it must have before it may be evicted, and its tier: 0 held up
// mid-request, 1 idle.
func (c *trackedConn) waitingLocked() (tier int, since time.Time, after time.Duration, ok bool) {
	if c.queued.Load() {
		return 0, c.queuedAt, 0, true // a client's connection past its share goes first
	}
	if ns := c.stalledSince.Load(); ns != 0 {
		return 0, time.Unix(0, ns), evictStalledAfter, true
	}
	switch c.phase {
	case phaseReceiving:
		return 0, c.since, evictReceivingAfter, true
	case phaseIdle:
		return 1, c.since, evictIdleAfter, true
	case phaseStreaming:
		since = c.since
		if ns := c.wroteAt.Load(); ns != 0 && time.Unix(0, ns).After(since) {
			since = time.Unix(0, ns)
		}
		return 1, since, evictQuietAfter, true
	}
	return 0, time.Time{}, 0, false
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

// Write writes p in chunks, each with the write deadline, so that a client
// that does not read loses the connection after writeTimeout without
// progress, however long the reply (an event stream included), and the cap
// sees a stalled write.
func (c *trackedConn) Write(p []byte) (int, error) {
	done := 0
	defer func() {
		c.stalledSince.Store(0)
		c.wroteAt.Store(time.Now().UnixNano())
	}()
	for done < len(p) {
		now := time.Now()
		c.stalledSince.Store(now.UnixNano())
		if c.l.writeTimeout > 0 {
			if err := c.SetWriteDeadline(now.Add(c.l.writeTimeout)); err != nil {
				return done, err
			}
		}
		n, err := c.Conn.Write(p[done:min(len(p), done+writeChunk)])
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
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
	if p == phaseIdle && c.fromProxy {
		c.client = "" // the proxy's next request may be another client's
	}
	c.l.mu.Unlock()
	if p != phaseServing {
		c.l.changed()
	}
}

// takeShare counts the request r, read, in its client's share, waiting
// for room if the client's busy connections fill it: false if it was
// refused, and the client: the remote address, or for a trusted proxy's
// connection the one r was forwarded for. Safe on nil (a handler served
// by another server than Serve's).
func (c *trackedConn) takeShare(r *http.Request) (client string, ok bool) {
	if c == nil {
		return "", true
	}
	client = c.peer
	if c.fromProxy {
		client = c.l.proxies.forwardedClient(r.Header.Values("X-Forwarded-For"), c.peer)
	}
	c.l.mu.Lock()
	c.client = client
	victim, ok := c.l.shareLocked(c, client)
	if !ok {
		c.queueLocked()
	}
	c.l.mu.Unlock()
	if !ok {
		return client, c.waitForShare(client)
	}
	c.l.closeEvicted(victim, "past its client's share")
	return client, true
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
