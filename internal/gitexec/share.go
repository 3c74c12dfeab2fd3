package gitexec

import (
	"context"
	"sync"
)

// shareDivisor: once several repositories are open, one may hold at most
// this fraction (1/shareDivisor) of the process slots and of the reader
// table, so that repositories whose refs block (a FIFO, a slow
// filesystem) until the call's deadline leave room for the others.
const shareDivisor = 4

// repoShare is how much of a bound shared by every repository one may
// hold: all of it while it is the only one open, a quarter (at least one)
// once others are. total <= 0 is no bound.
func (e *Env) repoShare(total int) int {
	if total <= 0 || e.readers.open() <= 1 {
		return total
	}
	return max(1, total/shareDivisor)
}

// commandShare is the most git commands one repository runs at once.
func (e *Env) commandShare() int { return e.repoShare(e.slotCount()) }

// ReaderShare is the most long-lived readers one repository keeps now.
func (e *Env) ReaderShare() int {
	if e.readers.max <= 0 {
		return MaxReaders
	}
	return min(MaxReaders, e.repoShare(e.readers.max))
}

// holding counts what one repository holds of a shared bound, and makes a
// caller past the repository's share wait for one of its own to finish.
type holding struct {
	mu   sync.Mutex
	n    int
	wake chan struct{} // closed and dropped whenever one is given back
	// early is how many of n commands started before they were known to
	// be needed (Env.acquireEarly) hold: fewer than the share.
	early int
}

// tryAcquireEarly holds one more for such a command, only if that leaves
// room in the share for a command that is needed.
func (h *holding) tryAcquireEarly(share int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n >= share || h.early >= share-1 {
		return false
	}
	h.n++
	h.early++
	return true
}

// releaseEarly gives back what tryAcquireEarly took.
func (h *holding) releaseEarly() {
	h.mu.Lock()
	h.early--
	h.mu.Unlock()
	h.release()
}

// tryAcquire holds one more if fewer than share are held.
func (h *holding) tryAcquire(share int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n >= share {
		return false
	}
	h.n++
	return true
}

// waitBelow waits, under ctx, until fewer than share are held (another
// may take the room first: the caller tries again).
func (h *holding) waitBelow(ctx context.Context, share int) error {
	h.mu.Lock()
	if h.n < share {
		h.mu.Unlock()
		return nil
	}
	if h.wake == nil {
		h.wake = make(chan struct{})
	}
	wake := h.wake
	h.mu.Unlock()
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (h *holding) release() {
	h.mu.Lock()
	h.n--
	if h.wake != nil {
		close(h.wake)
		h.wake = nil
	}
	h.mu.Unlock()
}
