package git

import (
	"context"
	"sync"
	"time"
)

// readerTable bounds the long-lived cat-file readers alive at once across
// every repository, so that their memory, like the commands', has a bound
// that clients cannot raise by spreading reads over many repositories. At
// the bound, the reader idle the longest anywhere is retired to make room;
// when none is idle, a new one waits.
type readerTable struct {
	mu    sync.Mutex
	max   int // 0: no bound
	live  int
	pools map[*objectPool]bool
	wake  chan struct{} // closed and replaced whenever a reader stops
}

func newReaderTable() *readerTable {
	return &readerTable{pools: map[*objectPool]bool{}, wake: make(chan struct{})}
}

func (t *readerTable) add(p *objectPool) {
	t.mu.Lock()
	t.pools[p] = true
	t.mu.Unlock()
}

// open is the number of repositories open on the table.
func (t *readerTable) open() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pools)
}

func (t *readerTable) remove(p *objectPool) {
	t.mu.Lock()
	delete(t.pools, p)
	t.mu.Unlock()
}

// acquire reserves room for one more reader.
func (t *readerTable) acquire(ctx context.Context) error {
	for {
		t.mu.Lock()
		if t.max <= 0 || t.live < t.max {
			t.live++
			t.mu.Unlock()
			return nil
		}
		victim := t.takeOldestIdle()
		wake := t.wake
		t.mu.Unlock()
		if victim != nil {
			victim.stop() // releases its room; try again
			continue
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// release gives back the room of a reader that stopped.
func (t *readerTable) release() {
	t.mu.Lock()
	t.live--
	close(t.wake)
	t.wake = make(chan struct{})
	t.mu.Unlock()
}

// takeOldestIdle removes the reader idle the longest from its pool and
// returns it (nil if none is idle). Called with t.mu held; it takes each
// pool's lock in turn (pools never call into the table holding theirs).
func (t *readerTable) takeOldestIdle() *catFile {
	var pool *objectPool
	var since time.Time
	for p := range t.pools {
		if t, ok := p.oldestIdle(); ok && (pool == nil || t.Before(since)) {
			pool, since = p, t
		}
	}
	if pool == nil {
		return nil
	}
	return pool.retireOldestIdle()
}
