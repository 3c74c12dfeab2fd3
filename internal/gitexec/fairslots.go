package gitexec

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
)

// fairSlots hands out the process slots among clients (callctx.Client).
//
// A named client holds at most its share: the slots over the clients
// active now, rounded up (holding a slot, waiting for one, or having held one within
// recentWindow), and never the last slot while it is free, so a client
// that comes gets one at once (review 3, finding 04). Calls past the share
// wait, at most queueDepth of them per client; a call past that is refused
// at once with a BusyError (UNAVAILABLE, retry later) instead of waiting
// for its deadline while it holds a connection (review 4, finding 18).
//
// Within a client (one address: every client behind a NAT), its callers
// (HTTP connections) are weighed the same way: its waiting call whose
// connection used the least slot time is served first, and when its queue
// is full, the waiting call of the connection that used the most gives its
// place to a lighter one. A freed slot goes to the waiting client that has used the least slot
// time lately (slot-seconds, decayed with usageTimeConstant), ties in turn
// (round robin): fairness counts what calls cost, not how many there are,
// so a client whose calls each hold a slot for seconds cannot starve one
// whose calls take milliseconds.
//
// A client that used over twice the others' mean slot time lately runs
// its new git processes at the lowest CPU priority (niceness) while
// others are active, and so does any command of a named client that runs
// past yieldAfter while others are (Process.yieldWhenLong): slots bound
// how many processes a client runs, not the CPU they take from the
// others'.
//
// The unnamed client (stdio, tests) may hold every slot and queue without
// bound, as the only client it is.
type fairSlots struct {
	mu      sync.Mutex
	size    int
	used    int
	early   int // held by commands started before they were needed
	clients map[string]*slotClient
	turn    []string // clients with calls waiting, next served first on a tie
	now     func() time.Time
	// timer dispatches again when a client stops counting as active
	// (its share lapses): the others' shares grow.
	timer *time.Timer
}

// slotClient is what fairSlots knows of one client.
type slotClient struct {
	held    int
	waiting []*slotWaiter
	// usage is the slot-seconds the client used, decayed, as of at.
	usage float64
	at    time.Time
	// active is when it last held or waited for a slot.
	active time.Time
	// callers is the slot time of each of the client's callers (HTTP
	// connections, callctx.Caller), decayed as usage.
	callers map[string]*callerUse
}

type slotWaiter struct {
	ready   chan struct{}
	granted bool
	caller  string
	err     error // refused while it waited: a lighter caller took its place
}

const (
	// recentWindow: a client that held a slot this recently still counts
	// in the others' shares (an agent's next call follows its last within
	// milliseconds; a share left free that long costs little).
	recentWindow = 2 * time.Second
	// usageTimeConstant: slot time used this long ago counts 1/e.
	usageTimeConstant = 10 * time.Second
	// forgetAfter: a client idle this long is forgotten (its usage has
	// decayed below 1%).
	forgetAfter = 5 * usageTimeConstant
	// refusalCost is the slot time a refused call costs its connection.
	refusalCost = time.Second
	// maxCallers is the most callers a client's record keeps.
	maxCallers = 1024
	// minQueue is the fewest commands a named client may have waiting:
	// past its busy connections (128 an address), which bound an honest
	// client's calls at once (a team behind one NAT; the load tests' 200
	// calls), so that only a client whose calls each start many commands
	// is refused; its waiting calls take no slot meanwhile.
	minQueue = 256
	// heavyUsage: below this many slot-seconds no client is heavy.
	heavyUsage = 1.0
	// lowPriority is the CPU nice value of a heavy client's git
	// processes: with two cores and many slots, its share of the slots
	// alone would leave it most of the CPU.
	lowPriority = 19
)

// BusyError refuses a call of a client that has its share of the process
// slots busy and as many calls waiting for them: it would only wait.
type BusyError struct {
	Running, Waiting, Share, Slots, Clients int
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("your address has %d git commands running and %d more waiting: its share of the server's %d (--max-git-processes) while %d clients use them is %d; retry when one of your calls is done",
		e.Running, e.Waiting, e.Slots, e.Clients, e.Share)
}

func newFairSlots(n int) *fairSlots {
	return &fairSlots{size: n, clients: map[string]*slotClient{}, now: time.Now}
}

// clientLocked is client's record, made if new, its usage brought up to
// now.
func (f *fairSlots) clientLocked(client string, now time.Time) *slotClient {
	c := f.clients[client]
	if c == nil {
		c = &slotClient{at: now, active: now}
		f.clients[client] = c
	}
	c.update(now)
	return c
}

// update brings usage up to now: what it was decays, and the slots held
// since add their time (integrated under the same decay).
func (c *slotClient) update(now time.Time) {
	dt := now.Sub(c.at).Seconds()
	if dt <= 0 {
		return
	}
	tau := usageTimeConstant.Seconds()
	d := math.Exp(-dt / tau)
	c.usage = c.usage*d + float64(c.held)*tau*(1-d)
	c.at = now
	if c.held > 0 || len(c.waiting) > 0 {
		c.active = now
	}
}

// activeLocked is how many clients count in a share now (forgetting those
// long idle), and when the first of the others stops counting (zero: none
// will).
func (f *fairSlots) activeLocked(now time.Time) (n int, lapse time.Time) {
	for name, c := range f.clients {
		busy := c.held > 0 || len(c.waiting) > 0
		switch {
		case busy:
			n++
		case now.Sub(c.active) < recentWindow:
			n++
			if end := c.active.Add(recentWindow); lapse.IsZero() || end.Before(lapse) {
				lapse = end
			}
		case now.Sub(c.active) > forgetAfter:
			delete(f.clients, name)
		}
	}
	return n, lapse
}

// limitLocked is the most slots client may hold while active clients are.
func (f *fairSlots) limitLocked(client string, active int) int {
	if client == "" || f.size < 2 {
		return f.size
	}
	active = max(1, active)
	return min(f.size-1, (f.size+active-1)/active)
}

// queueDepth is the most commands a named client may have waiting.
func queueDepth(limit int) int { return max(minQueue, 2*limit) }

// acquire waits, under ctx, for a slot for client; a *BusyError if client
// already has as many calls waiting as it may.
func (f *fairSlots) acquire(ctx context.Context, client string) error {
	f.mu.Lock()
	now := f.now()
	c := f.clientLocked(client, now)
	c.active = now
	active, _ := f.activeLocked(now)
	limit := f.limitLocked(client, active)
	if f.used < f.size && len(f.turn) == 0 && c.held < limit {
		f.grantLocked(c)
		f.mu.Unlock()
		return nil
	}
	caller := callctx.Caller(ctx)
	if client != "" && len(c.waiting) >= queueDepth(limit) {
		err := &BusyError{Running: c.held, Waiting: len(c.waiting), Share: limit, Slots: f.size, Clients: active}
		// The waiting call of the caller that used the most slot time
		// gives its place to this one if that is more than this one's.
		// A refused call costs its connection refusalCost: one that keeps
		// asking past the queue counts as heavy, though its calls, refused,
		// held no slot.
		j := c.heaviestLocked(now)
		if j < 0 || c.callerUsage(c.waiting[j].caller, now) <= c.callerUsage(caller, now) {
			c.chargeLocked(caller, refusalCost, now)
			f.mu.Unlock()
			return err
		}
		out := c.waiting[j]
		c.waiting = append(c.waiting[:j:j], c.waiting[j+1:]...)
		c.chargeLocked(out.caller, refusalCost, now)
		out.err = err
		close(out.ready)
	}
	w := &slotWaiter{ready: make(chan struct{}), caller: caller}
	if len(c.waiting) == 0 {
		f.turn = append(f.turn, client)
	}
	c.waiting = append(c.waiting, w)
	f.dispatchLocked() // a free slot this client may not take may be another's
	f.mu.Unlock()
	select {
	case <-w.ready:
		return w.err
	case <-ctx.Done():
	}
	f.mu.Lock()
	if w.err != nil {
		f.mu.Unlock()
		return w.err
	}
	if w.granted { // given as the context ended: give it back
		f.mu.Unlock()
		f.release(client)
		return context.Cause(ctx)
	}
	if i := indexOf(c.waiting, w); i >= 0 {
		c.waiting = append(c.waiting[:i:i], c.waiting[i+1:]...)
	}
	if len(c.waiting) == 0 {
		f.dropTurnLocked(client)
	}
	f.dispatchLocked() // the shares may have grown
	f.mu.Unlock()
	return context.Cause(ctx)
}

func indexOf(q []*slotWaiter, w *slotWaiter) int {
	for i, x := range q {
		if x == w {
			return i
		}
	}
	return -1
}

// tryAcquireEarly takes a slot for a command started before it is known
// to be needed, only if one is free now, no call waits, and at least one
// slot stays out of such commands' hands, of all slots and of the
// client's limit (else a call holding one could wait for ever for the
// slot of the command it needs).
func (f *fairSlots) tryAcquireEarly(client string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	c := f.clientLocked(client, now)
	active, _ := f.activeLocked(now)
	if f.early >= f.size-1 || f.used >= f.size || len(f.turn) > 0 || client != "" && c.held >= f.limitLocked(client, active)-1 {
		return false
	}
	f.early++
	f.grantLocked(c)
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
	now := f.now()
	c := f.clientLocked(client, now)
	f.used--
	c.held--
	c.active = now
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

func (f *fairSlots) grantLocked(c *slotClient) {
	f.used++
	c.held++
	c.active = f.now()
}

// dispatchLocked gives free slots to waiting calls, client by client.
func (f *fairSlots) dispatchLocked() {
	now := f.now()
	for f.used < f.size {
		i := f.nextLocked(now)
		if i < 0 {
			break
		}
		name := f.turn[i]
		c := f.clients[name]
		j := c.lightestLocked(now)
		w := c.waiting[j]
		c.waiting = append(c.waiting[:j:j], c.waiting[j+1:]...)
		f.turn = append(f.turn[:i:i], f.turn[i+1:]...)
		if len(c.waiting) > 0 {
			f.turn = append(f.turn, name) // its next call waits for the others' turns
		}
		f.grantLocked(c)
		w.granted = true
		close(w.ready)
	}
	f.scheduleLocked(now)
}

// nextLocked is the index in turn of the client served next: of those
// under their limit, the one that used the least slot time, the first in
// turn on a tie; -1: none may take one.
func (f *fairSlots) nextLocked(now time.Time) int {
	active, _ := f.activeLocked(now)
	best, least := -1, 0.0
	for i, name := range f.turn {
		c := f.clientLocked(name, now)
		if c.held >= f.limitLocked(name, active) {
			continue
		}
		if best < 0 || c.usage < least {
			best, least = i, c.usage
		}
	}
	return best
}

// scheduleLocked dispatches again when a client stops counting in the
// shares, if calls wait while slots are free (their client at its share).
func (f *fairSlots) scheduleLocked(now time.Time) {
	if f.used >= f.size || len(f.turn) == 0 {
		return
	}
	_, lapse := f.activeLocked(now)
	if lapse.IsZero() {
		return
	}
	if f.timer != nil {
		f.timer.Stop()
	}
	f.timer = time.AfterFunc(lapse.Sub(now)+time.Millisecond, f.poke)
}

// poke dispatches free slots to waiting calls whose shares grew.
func (f *fairSlots) poke() {
	f.mu.Lock()
	f.dispatchLocked()
	f.mu.Unlock()
}

func (f *fairSlots) dropTurnLocked(client string) {
	for i, c := range f.turn {
		if c == client {
			f.turn = append(f.turn[:i:i], f.turn[i+1:]...)
			return
		}
	}
}
