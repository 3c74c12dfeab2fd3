package gitexec

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
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
// the other waited behind its queue. Of the rest, queueDepth wait (review
// 4, finding 18); the last two are refused at once.
func TestOneClientCannotHoldEverySlot(t *testing.T) {
	env := newEnv(t)
	env.LimitProcesses(4)
	greedy := callctx.WithClient(t.Context(), "192.0.2.1")
	calls := 3 + queueDepth(3) + 2
	granted := make(chan struct{}, calls)
	refused := make(chan error, calls)
	for range calls {
		go func() {
			_, err := env.acquire(greedy, false)
			if err == nil {
				granted <- struct{}{}
				return
			}
			refused <- err
		}()
	}
	until(t, "the greedy client's calls all hold, wait or are refused", func() bool {
		return len(granted)+len(refused)+env.slots.waitingFor("192.0.2.1") == calls
	})
	if held := len(granted); held != 3 {
		t.Fatalf("one client holds %d of 4 slots while it has calls waiting; want 3, one left for another client", held)
	}
	if w := env.slots.waitingFor("192.0.2.1"); w != queueDepth(3) || len(refused) != 2 {
		t.Fatalf("%d of the client's calls wait and %d were refused; want %d and 2", w, len(refused), queueDepth(3))
	}
	var busy *BusyError
	if err := <-refused; !errors.As(err, &busy) {
		t.Fatalf("a call past the queue was refused with %v; want a BusyError", err)
	}
	ctx, cancel := context.WithTimeout(callctx.WithClient(t.Context(), "198.51.100.7"), 20*time.Second)
	defer cancel()
	release, err := env.acquire(ctx, false) // none of the greedy client's calls ends: only a slot left free serves this one
	if err != nil {
		t.Fatalf("the other client's call got no slot while one client held them: %v", err)
	}
	release()
}

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func fairSlotsAt(n int) (*fairSlots, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	f := newFairSlots(n)
	f.now = clock.now
	return f, clock
}

// waiter queues a call of client on f, and waits until it is queued (the
// n-th of client's); the call's outcome goes to order.
func waiter(t *testing.T, f *fairSlots, client string, n int, order chan<- string) {
	t.Helper()
	go func() {
		if f.acquire(t.Context(), client) == nil {
			order <- client
		}
	}()
	until(t, client+" queued", func() bool { return f.waitingFor(client) == n })
}

// TestWaitingClientsServedInTurn: with every slot held and calls waiting,
// each slot given back goes to a waiting client under its share, not to
// the client that queued first; a client at its share waits while others
// are active, though a slot is free.
func TestWaitingClientsServedInTurn(t *testing.T) {
	f, _ := fairSlotsAt(4)
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
	waiter(t, f, "A", 1, order)
	waiter(t, f, "A", 2, order)
	waiter(t, f, "C", 1, order)
	waiter(t, f, "B", 1, order)
	var got []string
	for _, from := range []string{"A", "B"} {
		f.release(from)
		got = append(got, <-order)
	}
	if want := []string{"C", "B"}; !slices.Equal(got, want) {
		t.Fatalf("slots given back went to %v; want %v (C and B before A's earlier calls)", got, want)
	}
	f.release("A") // A holds 1 of 4, its share among 3 clients (2) not yet reached
	if c := <-order; c != "A" {
		t.Fatalf("the slot went to %s; want A", c)
	}
	f.release("A") // A holds 1 again; C and B hold theirs: A's next call may take it
	if c := <-order; c != "A" {
		t.Fatalf("the slot went to %s; want A", c)
	}
	if n := f.inUse(); n != 4 {
		t.Fatalf("%d slots in use; want 4", n)
	}
}

// TestSlotTimeChoosesTheCheaperClient: review 4, finding 18. Fairness
// counts what calls cost: of two clients under their share with calls
// waiting, a freed slot goes to the one that used the least slot time
// lately, though the other queued first. Before, the first in turn took it
// (round robin by count), so a client whose calls hold slots for seconds
// got as many slots as one whose calls take milliseconds.
func TestSlotTimeChoosesTheCheaperClient(t *testing.T) {
	f, clock := fairSlotsAt(3) // two clients: a share of 2 each
	ctx := t.Context()
	for range 2 {
		if err := f.acquire(ctx, "long"); err != nil {
			t.Fatal(err)
		}
	}
	clock.advance(30 * time.Second) // two slots held for 30 s
	if err := f.acquire(ctx, "short"); err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 8)
	waiter(t, f, "long", 1, order) // long first in turn
	waiter(t, f, "long", 2, order)
	waiter(t, f, "short", 1, order)
	waiter(t, f, "short", 2, order)
	clock.advance(100 * time.Millisecond)
	f.release("long")
	got := []string{<-order}
	clock.advance(100 * time.Millisecond) // a short call ends
	f.release("short")
	got = append(got, <-order)
	clock.advance(100 * time.Millisecond)
	f.release("short") // short has no call waiting now: long's turn
	got = append(got, <-order)
	if want := []string{"short", "short", "long"}; !slices.Equal(got, want) {
		t.Fatalf("freed slots went to %v; want %v: the client that used less slot time first", got, want)
	}
	f.mu.Lock()
	long, short := f.clients["long"].usage, f.clients["short"].usage
	f.mu.Unlock()
	// long held 2 slots for 30 s, decaying with a 10 s constant: about
	// 2 × 10 × (1 − e^−3) ≈ 19 slot-seconds; short a fraction of one.
	if long < 18 || long > 21 || short > 1 {
		t.Fatalf("slot time used: long %.2f, short %.2f slot-seconds; want about 19 and under 1", long, short)
	}
}

// TestLongCallsCannotStarveShortCalls: a client whose calls each hold a
// slot for 5 s keeps calls waiting all the time; another's 50 ms calls,
// one after another, each find a slot at once or with the first slot
// given back, never behind the long client's queue.
func TestLongCallsCannotStarveShortCalls(t *testing.T) {
	f, clock := fairSlotsAt(4)
	ctx := t.Context()
	longOrder := make(chan string, 64)
	for range 3 {
		if err := f.acquire(ctx, "long"); err != nil {
			t.Fatal(err)
		}
	}
	waiter(t, f, "long", 1, longOrder)
	waiter(t, f, "long", 2, longOrder)
	for i := range 40 {
		// Every 5 s of the long client's, one of its calls ends and
		// another comes; the short client calls in between.
		if i%10 == 0 {
			clock.advance(time.Second)
			f.release("long") // dispatched at once: its waiting call, if under its share
			if f.waitingFor("long") < 2 {
				waiter(t, f, "long", 2, longOrder)
			}
		}
		order := make(chan string, 1)
		go func() {
			if f.acquire(ctx, "short") == nil {
				order <- "short"
			}
		}()
		select {
		case <-order:
		case <-time.After(10 * time.Second): // the test's failure, not a speed bound
			t.Fatalf("call %d of the short client waits behind the long client's (%d slots in use)", i, f.inUse())
		}
		clock.advance(50 * time.Millisecond)
		f.release("short")
	}
}

// TestClientHeldAtItsShare: review 4, finding 18. A client alone may hold
// all slots but one; once another is active, it holds at most its share
// (half) though slots are free, and more of its calls than that wait at
// at most queueDepth, the rest refused at once. When the other has been idle for
// recentWindow, the share grows back.
func TestClientHeldAtItsShare(t *testing.T) {
	f, clock := fairSlotsAt(16)
	ctx := t.Context()
	for range 15 {
		if err := f.acquire(ctx, "hostile"); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.acquire(ctx, "honest"); err != nil {
		t.Fatalf("the other client's call: %v", err)
	}
	for range 10 {
		f.release("hostile") // 5 left
	}
	order := make(chan string, 32)
	for i := 1; i <= 3; i++ { // 5 + 3 = 8: its share
		if err := f.acquire(ctx, "hostile"); err != nil {
			t.Fatalf("call %d under the share: %v", i, err)
		}
	}
	for i := 1; i <= queueDepth(8); i++ {
		waiter(t, f, "hostile", i, order)
	}
	var busy *BusyError
	if err := f.acquire(ctx, "hostile"); !errors.As(err, &busy) {
		t.Fatalf("a call past the queue: %v; want a BusyError", err)
	}
	if n := f.inUse(); n != 9 {
		t.Fatalf("%d slots in use; want 9: 8 of the hostile client's (its share), 1 the honest one's", n)
	}
	f.release("honest") // still active for recentWindow
	if n := f.inUse(); n != 8 {
		t.Fatalf("%d slots in use after the honest call; want 8", n)
	}
	clock.advance(recentWindow + time.Millisecond)
	f.poke() // what the timer does
	until(t, "the hostile client takes the free slots but one", func() bool { return f.inUse() == 15 })
}

// TestHeavyClientYieldsTheCPU: review 4, finding 18. A client that used
// over twice the others' slot time runs its new git processes at the
// lowest CPU priority while others are active; alone, or as light as the
// others, at the normal one; stdio's client always at the normal one.
func TestHeavyClientYieldsTheCPU(t *testing.T) {
	f, clock := fairSlotsAt(16)
	ctx := t.Context()
	for range 8 {
		if err := f.acquire(ctx, "heavy"); err != nil {
			t.Fatal(err)
		}
	}
	clock.advance(5 * time.Second)
	if n := f.niceness("heavy"); n != 0 {
		t.Fatalf("alone, the heavy client's processes get nice %d; want 0", n)
	}
	if err := f.acquire(ctx, "light"); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Second)
	if n := f.niceness("heavy"); n != lowPriority {
		t.Fatalf("beside a light client, the heavy one's processes get nice %d; want %d", n, lowPriority)
	}
	if n := f.niceness("light"); n != 0 {
		t.Fatalf("the light client's processes get nice %d; want 0", n)
	}
	for range 8 {
		f.release("heavy")
	}
	for range 7 {
		if err := f.acquire(ctx, "light"); err != nil {
			t.Fatal(err)
		}
	}
	clock.advance(time.Minute) // the past decays; both hold 8 since
	for range 8 {
		if err := f.acquire(ctx, "heavy"); err != nil {
			t.Fatal(err)
		}
	}
	clock.advance(time.Minute)
	if a, b := f.niceness("heavy"), f.niceness("light"); a != 0 || b != 0 {
		t.Fatalf("two clients using as much: nice %d and %d; want 0", a, b)
	}
	if n := f.niceness(""); n != 0 {
		t.Fatalf("stdio's processes get nice %d; want 0", n)
	}
}

// TestLighterConnectionFirstWithinAnAddress: review 4, finding 18. Within
// one address (clients behind one NAT), the waiting call of the connection
// that used the least slot time is served first, and when the address's
// queue is full a lighter connection's call takes the place of the
// heaviest's, which is refused; a call of the heaviest is refused itself.
func TestLighterConnectionFirstWithinAnAddress(t *testing.T) {
	f, clock := fairSlotsAt(4)
	as := func(conn string) context.Context {
		return callctx.WithCaller(callctx.WithClient(t.Context(), "nat"), conn)
	}
	for range 3 {
		if err := f.acquire(as("heavy"), "nat"); err != nil {
			t.Fatal(err)
		}
	}
	f.charge("nat", "heavy", 30*time.Second)
	f.charge("nat", "light", 50*time.Millisecond)
	clock.advance(time.Second)
	order := make(chan string, 32)
	refused := make(chan string, 32)
	queue := func(conn string, n int) {
		t.Helper()
		go func() {
			var busy *BusyError
			switch err := f.acquire(as(conn), "nat"); {
			case err == nil:
				order <- conn
			case errors.As(err, &busy):
				refused <- conn
			}
		}()
		until(t, conn+" queued", func() bool { return f.waitingFor("nat") == n })
	}
	for i := 1; i < queueDepth(3); i++ {
		queue("heavy", i)
	}
	queue("light", queueDepth(3)) // the queue is full
	queue("light", queueDepth(3)) // in the place of a heavy call
	if got := <-refused; got != "heavy" {
		t.Fatalf("a full queue refused %s; want a heavy call", got)
	}
	var busy *BusyError
	if err := f.acquire(as("heavy"), "nat"); !errors.As(err, &busy) {
		t.Fatalf("a heavy call on a full queue: %v; want a BusyError", err)
	}
	for range 2 {
		f.release("nat")
		if got := <-order; got != "light" {
			t.Fatalf("a freed slot went to %s; want the light connection's calls first", got)
		}
	}
	f.release("nat")
	if got := <-order; got != "heavy" {
		t.Fatalf("a freed slot went to %s; want heavy, light's calls all served", got)
	}
}

// TestRefusedConnectionCountsAsHeavy: review 4, finding 18. A connection
// whose calls are refused held no slot, but each refusal costs it
// refusalCost: a script that keeps one address's queue full from many
// connections cannot keep a lighter connection's call out.
func TestRefusedConnectionCountsAsHeavy(t *testing.T) {
	f, _ := fairSlotsAt(4)
	as := func(conn string) context.Context {
		return callctx.WithCaller(callctx.WithClient(t.Context(), "nat"), conn)
	}
	for range 3 {
		if err := f.acquire(as("light"), "nat"); err != nil {
			t.Fatal(err)
		}
	}
	f.charge("nat", "light", 50*time.Millisecond)
	for i := 1; i <= queueDepth(3); i++ {
		go func() { _ = f.acquire(as("pushy"), "nat") }()
		until(t, "pushy queued", func() bool { return f.waitingFor("nat") == i })
	}
	var busy *BusyError
	if err := f.acquire(as("pushy"), "nat"); !errors.As(err, &busy) {
		t.Fatalf("pushy's call past the queue: %v; want a BusyError", err)
	}
	got := make(chan error, 1)
	go func() { got <- f.acquire(as("light"), "nat") }()
	until(t, "the light call waits or is answered", func() bool {
		return len(got) > 0 || slices.Contains(f.waitingCallers("nat"), "light")
	})
	if len(got) > 0 {
		t.Fatalf("the light connection's call was answered %v at once; want it to wait in a pushy call's place", <-got)
	}
	f.release("nat")
	if err := <-got; err != nil {
		t.Fatalf("the light connection's call: %v", err)
	}
}

// waitingFor is how many of client's calls wait (for tests).
func (f *fairSlots) waitingFor(client string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.clients[client]; c != nil {
		return len(c.waiting)
	}
	return 0
}

// waitingCallers are the callers of client's waiting calls (for tests).
func (f *fairSlots) waitingCallers(client string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var callers []string
	if c := f.clients[client]; c != nil {
		for _, w := range c.waiting {
			callers = append(callers, w.caller)
		}
	}
	return callers
}
