package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runner runs cases against one server session and plain git.
type runner struct {
	g      gitRunner
	rounds int
	logf   logFunc
	// side is the working tree's server on the repository at hand.
	side
	// base is the baseline's (--baseline), measured beside it; nil
	// without --baseline.
	base *side
}

// runCase runs one case and returns its row; a failure is recorded in the
// row, not returned, so one broken case does not hide the others.
func (ru *runner) runCase(ctx context.Context, s *session, fx *fixture, c benchCase) *row {
	r := &row{Tool: c.tool, Case: c.name, Repo: c.repo}
	if c.target != nil {
		r.Target = c.target.text
	}
	if !s.tools[c.tool] {
		r.Skipped = "the server has no " + c.tool + " tool"
		ru.logf("%s: skipped (%s)", c.label(), r.Skipped)
		return r
	}
	ru.logf("%s ...", c.label())
	sp, err := c.build(fx)
	if err == nil {
		err = ru.measure(ctx, s, fx, c, sp, r)
	}
	if err != nil {
		r.Error = err.Error()
		ru.logf("%s: ERROR %v", c.label(), err)
		return r
	}
	if c.target != nil {
		r.Met = new(c.target.met(r))
	}
	if r.Baseline != nil {
		ru.logf("%s: server %s ms, baseline %s ms, git %s ms", c.label(), fmtPtr(r.ServerMs), fmtPtr(r.Baseline.ServerMs), fmtPtr(r.GitMs))
		return r
	}
	ru.logf("%s: server %s ms, git %s ms", c.label(), fmtPtr(r.ServerMs), fmtPtr(r.GitMs))
	return r
}

func fmtPtr(f *float64) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *f)
}

// measure checks the first answer against git, then times the case and
// samples the server's memory around the timed part.
func (ru *runner) measure(ctx context.Context, s *session, fx *fixture, c benchCase, sp *spec, r *row) error {
	if sp.clients != nil {
		if ru.base != nil {
			r.Baseline = &baselineResult{Skipped: "the baseline is not measured: a build before issue 32 knows no clients"}
		}
		return ru.perClient(ctx, c, sp, r)
	}
	bs := ru.baseFor(c, r)
	if sp.drain != nil {
		return ru.pagedDiff(ctx, s, bs, fx, c, sp, r)
	}
	if sp.list != nil {
		return ru.pagedListing(ctx, s, bs, fx, c, sp, r)
	}
	r.ServerArgs = sp.args
	// The first call is checked against git in full (and warms the server).
	if _, err := checkedCall(ctx, s, c, sp); err != nil {
		return err
	}
	var notes []string
	if sp.note != "" {
		notes = append(notes, sp.note)
	}
	notes = append(notes, "reply "+humanBytes(s.resultBytes()))
	if bs != nil {
		if err := warmBaseline(ctx, bs, c, sp); err != nil {
			bs = r.baselineFailed(err)
		} else {
			r.Baseline.setCounts(0, 0, s.resultBytes(), bs.s.resultBytes())
		}
	}

	if err := s.resetPeakRSS(); err != nil {
		return fmt.Errorf("resetting the peak RSS: %w", err)
	}
	before, _, err := s.rss()
	if err != nil {
		return err
	}
	r.RSSMiB = fptr(float64(before) / (1 << 20))
	var note string
	switch {
	case sp.calls > 0 && sp.versus != "":
		note, err = ru.throughputVersus(ctx, s, bs, c, sp, r)
	case sp.calls > 0 && bs != nil:
		note, err = ru.throughputBeside(ctx, s, bs, c, sp, r)
	case sp.calls > 0:
		note, err = ru.throughput(ctx, s, c, sp, r)
	case c.sandboxOff:
		note, err = ru.againstSandboxOff(ctx, s, bs, c, sp, r)
	default:
		note, err = ru.sideBySide(ctx, s, bs, fx, c, sp, r)
	}
	if err != nil {
		return err
	}
	_, peak, err := s.rss()
	if err != nil {
		return err
	}
	r.PeakRSSMiB = fptr(float64(peak) / (1 << 20))
	r.Notes = strings.Join(append(notes, note), "; ")
	return nil
}

// throughput makes sp.calls sequential calls on the one session: calls/s
// over the whole loop, latency percentiles per call, and the server's CPU
// time per call.
func (ru *runner) throughput(ctx context.Context, s *session, c benchCase, sp *spec, r *row) (string, error) {
	lat := make([]time.Duration, 0, sp.calls)
	cpu0, err := s.cpuTime()
	if err != nil {
		return "", err
	}
	start := time.Now()
	for i := 0; i < sp.calls; i++ {
		d, err := timeServer(ctx, s, c.tool, sp.argsFor(i), sp.check)
		if err != nil {
			return "", fmt.Errorf("call %d: %w", i, err)
		}
		lat = append(lat, d)
	}
	total := time.Since(start)
	cpu1, err := s.cpuTime()
	if err != nil {
		return "", err
	}
	r.CallsPerS = fptr(float64(sp.calls) / total.Seconds())
	r.P50Ms, r.P99Ms = fptr(ms(quantile(lat, 0.5))), fptr(ms(quantile(lat, 0.99)))
	r.ServerCPUMsPerCall = fptr(ms(cpu1-cpu0) / float64(sp.calls))
	r.ServerMs = r.P50Ms
	return fmt.Sprintf("%.0f calls/s, p50 %.3f ms, p99 %.3f ms, server CPU %.3f ms/call",
		*r.CallsPerS, *r.P50Ms, *r.P99Ms, *r.ServerCPUMsPerCall), nil
}

// versusBlock is how many calls of one tool run before the other's turn in
// throughputVersus: long enough to be a steady state, short enough that a
// change in the machine's load falls on both.
const versusBlock = 100

// throughputVersus makes sp.calls sequential calls of the case's tool and as
// many of sp.versus (the call that does nothing), in alternating blocks on
// the one session: the two calls/s figures come from the same minutes. The
// "git" columns hold the versus call's figures. The same is then measured
// through leanClient, on a server of its own: what the go-sdk client's own
// decoding of the larger reply costs shows in the difference.
func (ru *runner) throughputVersus(ctx context.Context, s *session, bs *side, c benchCase, sp *spec, r *row) (string, error) {
	r.GitCommand = "the same session: " + sp.versus + ", alternating blocks of " + fmt.Sprint(versusBlock)
	var base caller
	if bs != nil {
		base = bs.s
	}
	rd, fl, bd, err := alternate(ctx, s, c.tool, sp, base)
	if err != nil {
		return "", err
	}
	r.CallsPerS = fptr(float64(rd.done) / rd.total.Seconds())
	r.VersusCallsPerS = fptr(float64(fl.done) / fl.total.Seconds())
	r.CallsRatio = fptr(*r.CallsPerS / *r.VersusCallsPerS)
	r.P50Ms, r.P99Ms = fptr(ms(quantile(rd.lat, 0.5))), fptr(ms(quantile(rd.lat, 0.99)))
	r.ServerCPUMsPerCall = fptr(ms(rd.cpu) / float64(rd.done))
	r.VersusP50Ms = fptr(ms(quantile(fl.lat, 0.5)))
	r.VersusCPUMsPerCall = fptr(ms(fl.cpu) / float64(fl.done))
	r.ServerMs, r.GitMs = r.P50Ms, r.VersusP50Ms

	lean, err := ru.freshLean()
	if err != nil {
		return "", err
	}
	defer lean.close()
	lrd, lfl, _, err := alternate(ctx, lean, c.tool, sp, nil)
	if err != nil {
		return "", fmt.Errorf("through the lean client: %w", err)
	}
	r.LeanCallsPerS = fptr(float64(lrd.done) / lrd.total.Seconds())
	r.LeanVersusCallsPerS = fptr(float64(lfl.done) / lfl.total.Seconds())
	r.LeanCallsRatio = fptr(*r.LeanCallsPerS / *r.LeanVersusCallsPerS)
	if bd != nil {
		r.setBaselineCalls(bd)
	}
	return fmt.Sprintf("%.0f calls/s against %s's %.0f calls/s (%.2f×); p50 %.3f ms vs %.3f ms; server CPU %.3f ms/call vs %.3f; lean client: %.0f calls/s against %.0f (%.2f×)",
		*r.CallsPerS, sp.versus, *r.VersusCallsPerS, *r.CallsRatio, *r.P50Ms, *r.VersusP50Ms, *r.ServerCPUMsPerCall, *r.VersusCPUMsPerCall,
		*r.LeanCallsPerS, *r.LeanVersusCallsPerS, *r.LeanCallsRatio), nil
}

// callsSide is one call's share of an alternating run, through cl.
type callsSide struct {
	cl    caller
	tool  string
	args  func(i int) map[string]any
	check func(*mcp.CallToolResult) error
	lat   []time.Duration
	total time.Duration
	cpu   time.Duration // the server's
	done  int
}

// alternate makes sp.calls calls of tool and as many of sp.versus through
// cl, in alternating blocks of versusBlock; with base (the baseline's
// server, warmed by the caller), as many of tool through base besides,
// each of its blocks before the current's.
func alternate(ctx context.Context, cl caller, tool string, sp *spec, base caller) (rd, fl, bd *callsSide, err error) {
	rd = &callsSide{cl: cl, tool: tool, args: sp.argsFor, check: sp.check}
	fl = &callsSide{cl: cl, tool: sp.versus, args: func(int) map[string]any { return map[string]any{} }}
	if _, err := timeServer(ctx, cl, sp.versus, map[string]any{}, nil); err != nil { // warm-up
		return nil, nil, nil, err
	}
	sides := []*callsSide{rd, fl}
	if base != nil {
		bd = &callsSide{cl: base, tool: tool, args: sp.argsFor, check: sp.check}
		sides = []*callsSide{bd, rd, fl}
	}
	if err := inBlocks(ctx, sp.calls, sides...); err != nil {
		return nil, nil, nil, err
	}
	return rd, fl, bd, nil
}

// inBlocks makes calls calls of each side, in turn by blocks of
// versusBlock.
func inBlocks(ctx context.Context, calls int, sides ...*callsSide) error {
	for block := 0; slices.ContainsFunc(sides, func(sd *callsSide) bool { return sd.done < calls }); block++ {
		sd := sides[block%len(sides)]
		n := min(versusBlock, calls-sd.done)
		cpu0, err := sd.cl.cpuTime()
		if err != nil {
			return err
		}
		start := time.Now()
		for i := 0; i < n; i++ {
			d, err := timeServer(ctx, sd.cl, sd.tool, sd.args(sd.done+i), sd.check)
			if err != nil {
				return fmt.Errorf("%s call %d: %w", sd.tool, sd.done+i, err)
			}
			sd.lat = append(sd.lat, d)
		}
		sd.total += time.Since(start)
		cpu1, err := sd.cl.cpuTime()
		if err != nil {
			return err
		}
		sd.cpu += cpu1 - cpu0
		sd.done += n
	}
	return nil
}

// againstSandboxOff times the call on the server and on its twin with the
// sandbox off, alternating; the "git" columns hold the twin's figures.
func (ru *runner) againstSandboxOff(ctx context.Context, s *session, bs *side, c benchCase, sp *spec, r *row) (string, error) {
	r.GitCommand = "the same call, server started with --sandbox off"
	if _, err := timeServer(ctx, ru.sandboxOff, c.tool, sp.args, sp.check); err != nil { // warm-up
		return "", err
	}
	on := func() (time.Duration, error) { return timeServer(ctx, s, c.tool, sp.args, sp.check) }
	off := func() (time.Duration, error) { return timeServer(ctx, ru.sandboxOff, c.tool, sp.args, sp.check) }
	bv, sv, gt, err := interleaved(ru.rounds, ru.baseTimer(ctx, bs, c, sp), on, off)
	if err != nil {
		return "", err
	}
	r.setTimes(sv, gt)
	if bs != nil {
		r.setBaselineTimes(bv)
	}
	return "git column: the server with --sandbox off", nil
}

// sideBySide times the server call and its git equivalent, alternating,
// after one git warm-up (the server was warmed by the checked call).
func (ru *runner) sideBySide(ctx context.Context, s *session, bs *side, fx *fixture, c benchCase, sp *spec, r *row) (string, error) {
	r.GitCommand = "git " + strings.Join(sp.git, " ")
	warm, err := timeGit(ru.g, fx.dir, sp.git, sp.noMatchOK)
	if err != nil {
		return "", err
	}
	gitRSS := warm.maxRSS
	server := func() (time.Duration, error) { return timeServer(ctx, s, c.tool, sp.args, sp.check) }
	git := func() (time.Duration, error) {
		run, err := timeGit(ru.g, fx.dir, sp.git, sp.noMatchOK)
		gitRSS = max(gitRSS, run.maxRSS)
		return run.d, err
	}
	bv, sv, gt, err := interleaved(ru.rounds, ru.baseTimer(ctx, bs, c, sp), server, git)
	if err != nil {
		return "", err
	}
	r.GitPeakRSSMiB = fptr(float64(gitRSS) / (1 << 20))
	r.setTimes(sv, gt)
	if bs != nil {
		r.setBaselineTimes(bv)
	}
	return fmt.Sprintf("git printed %s, git peak RSS %.0f MiB", humanBytes(warm.printed), *r.GitPeakRSSMiB), nil
}

// setTimes records the paired samples of the server and of its
// counterpart (git, or the server with the sandbox off): every sample,
// the medians, and their ratio.
func (r *row) setTimes(sv, gt []time.Duration) {
	r.ServerMsAll, r.GitMsAll = msList(sv), msList(gt)
	r.ServerMs, r.GitMs = fptr(ms(median(sv))), fptr(ms(median(gt)))
	if *r.GitMs > 0 {
		r.Ratio = fptr(*r.ServerMs / *r.GitMs)
	}
}

// gitTimer times one run of the case's plain-git command.
func (ru *runner) gitTimer(fx *fixture, sp *spec) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		run, err := timeGit(ru.g, fx.dir, sp.git, false)
		return run.d, err
	}
}
