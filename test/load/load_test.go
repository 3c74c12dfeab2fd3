//go:build unix

// Package load drives the server over streamable HTTP the way many agents
// would, and checks that it neither fails nor leaks: goroutines, file
// descriptors and git processes return to their idle level afterwards.
package load

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

const (
	loadClients = 64
	// Calls per client: 64 × 80 = 5,120 calls; under -race a quarter.
	callsPerClient     = 80
	raceCallsPerClient = 20
	// Clients stop calling this long after the load began, so that the test
	// ends in bounded time on a slow or busy machine (it then fails for
	// having made too few calls). 5,120 calls take 20–50 s on 2 cores.
	loadBudget = 70 * time.Second
)

func TestLoadAndLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	start := time.Now()
	fx := newFixture(t)
	srv := startServer(t, fx.r.Dir, 8)
	t.Logf("fixture and server ready in %v", time.Since(start).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), loadBudget+15*time.Second)
	defer cancel()

	// Warm up: one call of each kind, then the idle baseline.
	warm, err := srv.connect(ctx, "warm-up")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(0, 0))
	for _, kind := range callKinds {
		if err := fx.makeCall(kind, rng).run(ctx, warm); err != nil {
			t.Fatalf("warm-up: %v", err)
		}
	}
	warm.Close()
	srv.tr.CloseIdleConnections()
	base := settle(2 * time.Second)
	t.Logf("idle baseline: %v", base)
	if len(base.otherGit) != 0 {
		t.Fatalf("git processes still running at rest: %+v", base.otherGit)
	}

	perClient := callsPerClient
	if raceEnabled {
		perClient = raceCallsPerClient
	}
	var (
		mu       sync.Mutex
		lat      = make(latencies, 0, loadClients*perClient)
		failures []string
		failed   atomic.Int64
		stopped  atomic.Int64 // clients stopped by loadBudget
		perKind  = map[string]latencies{}
	)
	fail := func(err error) {
		failed.Add(1)
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, err.Error())
		}
	}
	sessions := make([]*mcp.ClientSession, loadClients)
	var wg sync.WaitGroup
	for i := range loadClients {
		wg.Go(func() {
			cs, err := srv.connect(ctx, fmt.Sprintf("agent-%d", i))
			if err != nil {
				fail(fmt.Errorf("client %d: connect: %w", i, err))
				return
			}
			sessions[i] = cs
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("connecting %d clients: %d failed: %s", loadClients, failed.Load(), strings.Join(failures, "\n"))
	}

	// Sample what the process holds while the calls run.
	var peakG, peakFDs, peakCat, peakGit int
	stopSampling, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			g, fds, cat, other := countNow()
			peakG, peakFDs, peakCat, peakGit = max(peakG, g), max(peakFDs, fds), max(peakCat, cat), max(peakGit, other)
			select {
			case <-stopSampling:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()

	began := time.Now()
	for i, cs := range sessions {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			mine := make(latencies, 0, perClient)
			kinds := map[string]latencies{}
			for j := range perClient {
				if time.Since(began) > loadBudget {
					stopped.Add(1)
					break
				}
				kind := callKinds[(i+j)%len(callKinds)]
				c := fx.makeCall(kind, rng)
				t0 := time.Now()
				err := c.run(ctx, cs)
				d := time.Since(t0)
				mine = append(mine, d)
				kinds[kind] = append(kinds[kind], d)
				if err != nil {
					fail(fmt.Errorf("client %d call %d: %w", i, j, err))
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			for k, l := range kinds {
				perKind[k] = append(perKind[k], l...)
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	close(stopSampling)
	<-sampled
	calls := len(lat)
	rate := float64(calls) / elapsed.Seconds()
	summary := lat.summary()
	t.Logf("%d calls from %d clients in %v: %.0f calls/s; latency %s", calls, loadClients, elapsed.Round(time.Millisecond), rate, summary)
	var byKind []string
	for _, kind := range slices.Sorted(maps.Keys(perKind)) {
		l := perKind[kind]
		byKind = append(byKind, fmt.Sprintf("  %-27s %5d calls: %s", kind, len(l), l.summary()))
	}
	t.Logf("latency by call:\n%s", strings.Join(byKind, "\n"))
	peak := fmt.Sprintf("goroutines %d, fds %d (all), cat-file readers %d, other git children %d (each at its own peak)", peakG, peakFDs, peakCat, peakGit)
	t.Logf("peak under load: %s", peak)
	if peakGit > 8 {
		t.Errorf("%d git processes ran at once, over the limit of 8", peakGit)
	}
	if peakCat > maxReaders {
		t.Errorf("%d cat-file readers at once, over the pool bound of %d", peakCat, maxReaders)
	}
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d calls failed; first ones:\n%s", n, calls, strings.Join(failures, "\n"))
	}
	if n := stopped.Load(); n > 0 {
		t.Errorf("%d clients stopped at the %v budget: %d calls made of %d (the machine is too slow or too busy)", n, loadBudget, calls, loadClients*perClient)
	} else if !raceEnabled && calls < 5000 {
		t.Errorf("only %d calls made, want at least 5,000", calls)
	}

	// After the load: everything held for it is given back.
	for _, cs := range sessions {
		cs.Close()
	}
	srv.tr.CloseIdleConnections()
	var after snapshot
	ok := func(s snapshot) bool {
		// A cat-file reader started under load keeps its process, its
		// pipes (not counted in fds) and its os/exec goroutines.
		extraExec := max(0, s.execRoutines-base.execRoutines)
		return s.goroutines <= base.goroutines+5+extraExec &&
			s.execRoutines <= 2*s.catFile+base.execRoutines &&
			s.fds <= base.fds+3 &&
			len(s.otherGit) == 0 &&
			s.catFile <= maxReaders
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		after = takeSnapshot()
		if ok(after) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("idle after the load: %v", after)
	report(t, true, append([]string{
		fmt.Sprintf("TestLoadAndLeaks race=%v clients=%d calls=%d failed=%d elapsed=%v calls/s=%.0f", raceEnabled, loadClients, calls, failed.Load(), elapsed.Round(time.Millisecond), rate),
		"latency: " + summary,
		"idle before: " + base.String(),
		"peak under load: " + peak,
		"idle after: " + after.String(),
		"latency by call:"}, byKind...)...,
	)
	if !ok(after) {
		var procs []string
		for _, c := range after.otherGit {
			procs = append(procs, fmt.Sprintf("pid %d state %s: %s", c.pid, c.state, c.cmdline))
		}
		t.Fatalf("resources not given back after 10 s:\nbefore: %v\nafter:  %v\ngit children: %s\ngoroutines:\n%s",
			base, after, strings.Join(procs, "\n"), goroutineDump())
	}
}

// A client that gives up on a slow call ends the git process working for it,
// whichever protocol version it speaks: the latest (where the POST carries
// the whole request) and 2025-06-18 (what most agents speak today, where the
// client also sends notifications/cancelled).
func TestCancellationEndsGit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a slow search")
	}
	// 30,000 random lines over which a repeated ".*" ERE is slow (glibc
	// matches it in quadratic time; the pattern guard allows it): git grep
	// takes seconds, far past the cancellation.
	r := testrepo.New(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	line := make([]byte, 120)
	for range 30000 {
		for i := range line {
			line[i] = 'a' + byte(rng.IntN(10))
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	r.Write("gen/big.txt", b.String())
	r.Write("README.md", "slow search\n")
	r.Commit("generated")
	srv := startServer(t, r.Dir, 8)
	for _, version := range []string{"", "2025-06-18"} {
		name := "protocol=latest"
		if version != "" {
			name = "protocol=" + version
		}
		t.Run(name, func(t *testing.T) { cancelSlowSearch(t, srv, version) })
	}
}

func cancelSlowSearch(t *testing.T, srv *httpServer, version string) {
	ctx := context.Background()
	cs, err := srv.connectVersion(ctx, "canceller", version)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	t.Logf("protocol version %s", cs.InitializeResult().ProtocolVersion)
	// Warm up the reader, so the only new git process is grep.
	if err := (call{name: "search_code", args: map[string]any{"query": "slow search", "ref": "main"}}).run(ctx, cs); err != nil {
		t.Fatal(err)
	}

	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{
			"query": `(.*a){40}Z`, "regex": true, "ref": "main",
		}})
		done <- err
	}()

	var grep gitChild
	for wait := time.Now().Add(10 * time.Second); grep.pid == 0; {
		for _, c := range gitChildren() {
			if !c.catFile && strings.Contains(c.cmdline, " grep ") {
				grep = c
			}
		}
		select {
		case err := <-done:
			t.Fatalf("the slow search ended before it was cancelled: %v", err)
		default:
		}
		if time.Now().After(wait) {
			t.Fatal("no git grep process started within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Whatever happens, this git process does not outlive the test (it
	// would count as a leak in the next one): the server reaps it once
	// killed.
	t.Cleanup(func() {
		if !processGone(grep.pid) {
			syscall.Kill(grep.pid, syscall.SIGKILL)
			for wait := time.Now().Add(5 * time.Second); !processGone(grep.pid) && time.Now().Before(wait); {
				time.Sleep(10 * time.Millisecond)
			}
		}
	})
	time.Sleep(200 * time.Millisecond) // git is well into the search
	if processGone(grep.pid) {
		t.Fatalf("git grep (pid %d) ended by itself before the cancellation", grep.pid)
	}
	cancel()
	cancelled := time.Now()

	select {
	case err := <-done:
		t.Logf("CallTool returned %v after %v", err, time.Since(cancelled).Round(time.Millisecond))
		if err == nil {
			t.Errorf("the cancelled call succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Errorf("CallTool did not return within 5 s of the cancellation")
	}
	for !processGone(grep.pid) {
		if time.Since(cancelled) > 2*time.Second {
			var still []string
			for _, c := range gitChildren() {
				still = append(still, fmt.Sprintf("pid %d state %s: %s", c.pid, c.state, truncate(c.cmdline, 300)))
			}
			var held []string
			for _, g := range strings.Split(goroutineDump(), "\n\n") {
				if strings.Contains(g, "mcp-repo-tools/internal/") {
					held = append(held, g)
				}
			}
			t.Fatalf("git grep (pid %d) still running 2 s after the client cancelled; git children:\n%s\nserver goroutines still working for the call:\n%s",
				grep.pid, strings.Join(still, "\n"), strings.Join(held, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("git grep (pid %d) gone %v after the cancellation", grep.pid, time.Since(cancelled).Round(time.Millisecond))

	// The process slot and the server are free again.
	if err := (call{name: "search_code", args: map[string]any{"query": "slow search"}}).run(ctx, cs); err != nil {
		t.Errorf("after the cancellation: %v", err)
	}
	for _, c := range gitChildren() {
		if !c.catFile {
			t.Errorf("git process left after the cancellation: pid %d state %s: %s", c.pid, c.state, truncate(c.cmdline, 300))
		}
	}
}

// 200 calls at once with 4 git processes allowed: they queue, none fails,
// and memory follows the replies in flight, not the number of waiting calls.
func TestTwoHundredSimultaneousCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const n = 200
	const procs = 4
	fx := newFixture(t)
	srv := startServer(t, fx.r.Dir, procs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	sessions := make([]*mcp.ClientSession, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { sessions[i], errs[i] = srv.connect(ctx, fmt.Sprintf("agent-%d", i)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	defer func() {
		for _, cs := range sessions {
			cs.Close()
		}
	}()

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	idleHeap := ms.HeapInuse

	// Sample the heap and the git processes while the calls run.
	var peakHeap uint64
	peakGit := 0
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
			running := 0
			for _, c := range gitChildren() {
				if !c.catFile && c.state != "Z" && strings.Contains(c.cmdline, fx.r.Dir) {
					running++
				}
			}
			peakGit = max(peakGit, running)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()

	// The heavier calls: diffs, searches, pages of large files.
	heavy := []string{"get_diff", "list_changed_files", "get_pull_request_diff", "get_pull_request_diff_file",
		"list_pull_request_files", "search_code", "search_code_regex", "read_file_page", "get_file_content_big", "read_file_ref"}
	lat := make(latencies, n)
	startGun := make(chan struct{})
	began := time.Now()
	for i := range n {
		rng := rand.New(rand.NewPCG(uint64(i), 2))
		c := fx.makeCall(heavy[i%len(heavy)], rng)
		wg.Go(func() {
			<-startGun
			t0 := time.Now()
			errs[i] = c.run(ctx, sessions[i])
			lat[i] = time.Since(t0)
		})
	}
	close(startGun)
	wg.Wait()
	elapsed := time.Since(began)
	close(stop)
	<-sampled

	failed := 0
	for i, err := range errs {
		if err != nil {
			failed++
			if failed <= 10 {
				t.Errorf("call %d: %v", i, err)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d simultaneous calls failed", failed, n)
	}
	summary := lat.summary()
	t.Logf("%d simultaneous calls, %d git processes allowed: all done in %v; latency %s", n, procs, elapsed.Round(time.Millisecond), summary)
	t.Logf("heap in use: %.1f MiB idle, %.1f MiB at peak; at most %d git processes at once (besides cat-file readers)",
		mib(idleHeap), mib(peakHeap), peakGit)
	report(t, false,
		fmt.Sprintf("TestTwoHundredSimultaneousCalls race=%v calls=%d failed=%d procs=%d elapsed=%v", raceEnabled, n, failed, procs, elapsed.Round(time.Millisecond)),
		"latency: "+summary,
		fmt.Sprintf("heap in use: idle %.1f MiB, peak %.1f MiB; peak git processes %d", mib(idleHeap), mib(peakHeap), peakGit),
	)
	if peakGit > procs {
		t.Errorf("%d git processes ran at once, over the limit of %d", peakGit, procs)
	}
	// Each reply is at most 64 KiB; 200 of them in flight, with their
	// encodings on both sides, stay far below this.
	limit := uint64(128 << 20)
	if raceEnabled {
		limit *= 2
	}
	if peakHeap > idleHeap+limit {
		t.Errorf("heap in use peaked at %.1f MiB (idle %.1f MiB): over the %.0f MiB allowance", mib(peakHeap), mib(idleHeap), mib(limit))
	}
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
