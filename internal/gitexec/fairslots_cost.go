package gitexec

import (
	"context"
	"math"
	"time"
)

// What fairSlots counts of a client's callers (its HTTP connections) and
// what it makes of the slot time counted: the order within a client and
// the CPU priority of its git processes (fairslots.go).

type callerUse struct {
	usage float64
	at    time.Time
}

// decayTo is u's usage decayed to now.
func (u *callerUse) decayTo(now time.Time) float64 {
	if dt := now.Sub(u.at).Seconds(); dt > 0 {
		u.usage *= math.Exp(-dt / usageTimeConstant.Seconds())
		u.at = now
	}
	return u.usage
}

// othersActive reports whether clients other than client hold, wait for
// or recently held a slot.
func (f *fairSlots) othersActive(client string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	for name, o := range f.clients {
		if name != client && (o.held > 0 || len(o.waiting) > 0 || now.Sub(o.active) < recentWindow) {
			return true
		}
	}
	return false
}

// niceness is the CPU nice value for a git process started now for
// client: lowPriority if, with other clients active, it used over twice
// their mean slot time lately (and more than heavyUsage), else 0. Slot
// time is what fairness counts; a client that takes much more of it than
// the others yields the CPU to them while they run.
func (f *fairSlots) niceness(client string) int {
	if f == nil || client == "" {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	c := f.clients[client]
	if c == nil {
		return 0
	}
	c.update(now)
	others, sum := 0, 0.0
	for name, o := range f.clients {
		if name == client || o.held == 0 && len(o.waiting) == 0 && now.Sub(o.active) >= recentWindow {
			continue
		}
		o.update(now)
		others++
		sum += o.usage
	}
	if others == 0 || c.usage < heavyUsage || c.usage <= 2*sum/float64(others) {
		return 0
	}
	return lowPriority
}

// callerUsage is the slot time caller used lately.
func (c *slotClient) callerUsage(caller string, now time.Time) float64 {
	if u := c.callers[caller]; u != nil {
		return u.decayTo(now)
	}
	return 0
}

// lightestLocked is the index of the waiting call served next: the one
// whose caller used the least slot time, the first on a tie.
func (c *slotClient) lightestLocked(now time.Time) int {
	best, least := 0, math.Inf(1)
	for i, w := range c.waiting {
		if u := c.callerUsage(w.caller, now); u < least {
			best, least = i, u
		}
	}
	return best
}

// heaviestLocked is the index of the waiting call whose caller used the
// most slot time, the last on a tie (-1: none waits).
func (c *slotClient) heaviestLocked(now time.Time) int {
	best, most := -1, -1.0
	for i, w := range c.waiting {
		if u := c.callerUsage(w.caller, now); u >= most {
			best, most = i, u
		}
	}
	return best
}

// charge adds d, a slot held for a command of caller's, to caller's
// slot time within client (the client's own is counted as it holds).
func (f *fairSlots) charge(client, caller string, d time.Duration) {
	if f == nil || client == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.clients[client]
	if c == nil {
		return
	}
	c.chargeLocked(caller, d, f.now())
}

// chargeLocked adds d to caller's slot time.
func (c *slotClient) chargeLocked(caller string, d time.Duration, now time.Time) {
	if c.callers == nil {
		c.callers = map[string]*callerUse{}
	}
	u := c.callers[caller]
	if u == nil {
		if len(c.callers) >= maxCallers {
			for k, o := range c.callers {
				if o.decayTo(now) < 0.01 {
					delete(c.callers, k)
				}
			}
		}
		if len(c.callers) >= maxCallers {
			return
		}
		u = &callerUse{at: now}
		c.callers[caller] = u
	}
	u.decayTo(now)
	u.usage += d.Seconds()
}

// HoldSlot takes a process slot for the call in ctx, in its client's turn,
// as a git command of the call would: for work that should count as one
// (tests of the fair share through the HTTP stack). release gives it back.
func (e *Env) HoldSlot(ctx context.Context) (release func(), err error) {
	return e.acquire(ctx, false)
}
