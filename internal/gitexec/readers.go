package gitexec

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
	pools map[*Repo]bool
	wake  chan struct{} // closed and replaced whenever a reader stops
}

// MaxReaders bounds the long-lived readers one repository keeps for
// concurrent calls; once other repositories are open, it keeps at most its
// share of the reader table (Env.ReaderShare).
const MaxReaders = 8

// Idler is a repository's long-lived readers (Cmd.LongLived), each
// holding room in the Env's reader table until it stops: at the table's
// bound, the reader idle the longest anywhere is retired to make room.
type Idler interface {
	// OldestIdle says since when the reader idle the longest has been
	// idle (false: none is).
	OldestIdle() (since time.Time, ok bool)
	// RetireOldestIdle takes that reader out of use and returns what
	// stops it (nil: none is idle now).
	RetireOldestIdle() (stop func())
}

func newReaderTable() *readerTable {
	return &readerTable{pools: map[*Repo]bool{}, wake: make(chan struct{})}
}

func (t *readerTable) add(p *Repo) {
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

func (t *readerTable) remove(p *Repo) {
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
		stop := t.takeOldestIdle()
		wake := t.wake
		t.mu.Unlock()
		if stop != nil {
			stop() // releases its room; try again
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

// takeOldestIdle takes the reader idle the longest out of its pool and
// returns what stops it (nil if none is idle). Called with t.mu held; it
// takes each pool's lock in turn (pools never call into the table holding
// theirs).
func (t *readerTable) takeOldestIdle() (stop func()) {
	var pool Idler
	var since time.Time
	for r := range t.pools {
		if r.readers == nil {
			continue
		}
		if t, ok := r.readers.OldestIdle(); ok && (pool == nil || t.Before(since)) {
			pool, since = r.readers, t
		}
	}
	if pool == nil {
		return nil
	}
	return pool.RetireOldestIdle()
}
