package gitexec

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
)

// until polls cond (the state of goroutines this test started) until it
// holds; the test's own deadline bounds it.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if t.Context().Err() != nil {
			t.Fatalf("never: %s", what)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// TestOneClientCannotHoldEverySlot: review 3, finding 04, at the
// reproduction's scale (4 slots). One client keeps 14 calls asking for a
// slot and never gives one back; another client's call then gets a slot at
// once, without waiting for any of the first client's to end. Before, the
// slots went first come first served: the first client held all four and
// the other waited behind its queue.
func TestOneClientCannotHoldEverySlot(t *testing.T) {
	env := newEnv(t)
	env.LimitProcesses(4)
	greedy := callctx.WithClient(t.Context(), "192.0.2.1")
	granted := make(chan struct{}, 14)
	for range 14 {
		go func() {
			if _, err := env.acquire(greedy, false); err == nil {
				granted <- struct{}{}
			}
		}()
	}
	until(t, "the greedy client's calls all hold or wait", func() bool {
		return len(granted)+env.slots.waitingFor("192.0.2.1") == 14
	})
	if held := len(granted); held != 3 {
		t.Fatalf("one client holds %d of 4 slots while it has calls waiting; want 3, one left for another client", held)
	}
	ctx, cancel := context.WithTimeout(callctx.WithClient(t.Context(), "198.51.100.7"), 20*time.Second)
	defer cancel()
	release, err := env.acquire(ctx, false) // none of the greedy client's calls ends: only a slot left free serves this one
	if err != nil {
		t.Fatalf("the other client's call got no slot while one client held them: %v", err)
	}
	release()
}

// TestWaitingClientsServedInTurn: with every slot held and calls waiting,
// each slot given back goes to the waiting clients in turn, the one under
// its share first, not to the client that queued first.
func TestWaitingClientsServedInTurn(t *testing.T) {
	f := newFairSlots(4)
	ctx := t.Context()
	for range 3 {
		if err := f.acquire(ctx, "A"); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.acquire(ctx, "B"); err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 8)
	wait := func(client string, n int) {
		go func() {
			if f.acquire(ctx, client) == nil {
				order <- client
			}
		}()
		until(t, client+" queued", func() bool { return f.waitingFor(client) == n })
	}
	for i := 1; i <= 5; i++ {
		wait("A", i)
	}
	wait("C", 1)
	wait("B", 1)
	var got []string
	for _, from := range []string{"A", "B", "A"} {
		f.release(from)
		got = append(got, <-order)
	}
	if want := []string{"C", "B", "A"}; !slices.Equal(got, want) {
		t.Fatalf("slots given back went to %v; want %v (C and B before A's earlier calls)", got, want)
	}
}

// waitingFor is how many of client's calls wait (for tests).
func (f *fairSlots) waitingFor(client string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiting[client])
}
