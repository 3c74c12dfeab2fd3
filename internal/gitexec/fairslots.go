package gitexec

import (
	"context"
	"sync"
)

// fairSlots hands out the process slots among clients (callctx.Client).
// A free slot is taken at once; when calls wait, each freed slot goes to
// the waiting clients in turn (round robin), first to one that holds less
// than its share (the slots over the clients that hold or wait), so that
// a client with many calls queued cannot keep the slots from another. A
// named client never holds the last slot while it is free: one stays for
// a client that comes, which then waits for no one (review 3, finding 04).
// The unnamed client (stdio, tests) may hold them all.
type fairSlots struct {
	mu      sync.Mutex
	size    int
	used    int
	early   int // held by commands started before they were needed
	held    map[string]int
	waiting map[string][]*slotWaiter
	turn    []string // clients with calls waiting, next served first
}

type slotWaiter struct {
	ready   chan struct{}
	granted bool
}

func newFairSlots(n int) *fairSlots {
	return &fairSlots{size: n, held: map[string]int{}, waiting: map[string][]*slotWaiter{}}
}

// limit is the most slots client may hold.
func (f *fairSlots) limit(client string) int {
	if client == "" || f.size < 2 {
		return f.size
	}
	return f.size - 1
}

// acquire waits, under ctx, for a slot for client.
func (f *fairSlots) acquire(ctx context.Context, client string) error {
	f.mu.Lock()
	if f.used < f.size && len(f.turn) == 0 && f.held[client] < f.limit(client) {
		f.grantLocked(client)
		f.mu.Unlock()
		return nil
	}
	w := &slotWaiter{ready: make(chan struct{})}
	if len(f.waiting[client]) == 0 {
		f.turn = append(f.turn, client)
	}
	f.waiting[client] = append(f.waiting[client], w)
	f.dispatchLocked() // a free slot this client may not take may be another's
	f.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	f.mu.Lock()
	if w.granted { // given as the context ended: give it back
		f.mu.Unlock()
		f.release(client)
		return context.Cause(ctx)
	}
	q := f.waiting[client]
	for i, x := range q {
		if x == w {
			f.waiting[client] = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(f.waiting[client]) == 0 {
		f.dropTurnLocked(client)
	}
	f.mu.Unlock()
	return context.Cause(ctx)
}

// tryAcquireEarly takes a slot for a command started before it is known
// to be needed, only if one is free now, no call waits, and at least one
// slot stays out of such commands' hands, of all slots and of the
// client's limit (else a call holding one could wait for ever for the
// slot of the command it needs).
func (f *fairSlots) tryAcquireEarly(client string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.early >= f.size-1 || f.used >= f.size || len(f.turn) > 0 || client != "" && f.held[client] >= f.limit(client)-1 {
		return false
	}
	f.early++
	f.grantLocked(client)
	return true
}

func (f *fairSlots) releaseEarly(client string) {
	f.mu.Lock()
	f.early--
	f.mu.Unlock()
	f.release(client)
}

func (f *fairSlots) release(client string) {
	f.mu.Lock()
	f.used--
	if f.held[client]--; f.held[client] <= 0 {
		delete(f.held, client)
	}
	f.dispatchLocked()
	f.mu.Unlock()
}

// inUse is how many slots are held (nil: no bound, none counted).
func (f *fairSlots) inUse() int {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.used
}

func (f *fairSlots) grantLocked(client string) {
	f.used++
	f.held[client]++
}

// dispatchLocked gives free slots to waiting calls, client by client.
func (f *fairSlots) dispatchLocked() {
	for f.used < f.size {
		i := f.nextLocked()
		if i < 0 {
			return
		}
		c := f.turn[i]
		q := f.waiting[c]
		w := q[0]
		f.waiting[c] = q[1:]
		f.turn = append(f.turn[:i:i], f.turn[i+1:]...)
		if len(f.waiting[c]) > 0 {
			f.turn = append(f.turn, c) // its next call waits for the others' turns
		} else {
			delete(f.waiting, c)
		}
		f.grantLocked(c)
		w.granted = true
		close(w.ready)
	}
}

// nextLocked is the index in turn of the client served next: the first
// under its share, else the first under its limit; -1: none may take one.
func (f *fairSlots) nextLocked() int {
	clients := len(f.held)
	for _, c := range f.turn {
		if f.held[c] == 0 {
			clients++
		}
	}
	share := max(1, f.size/max(1, clients))
	first := -1
	for i, c := range f.turn {
		switch {
		case f.held[c] >= f.limit(c):
		case f.held[c] < share:
			return i
		case first < 0:
			first = i
		}
	}
	return first
}

func (f *fairSlots) dropTurnLocked(client string) {
	delete(f.waiting, client)
	for i, c := range f.turn {
		if c == client {
			f.turn = append(f.turn[:i:i], f.turn[i+1:]...)
			return
		}
	}
}
