package main

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Measuring a case on the baseline's build beside the current's: the
// baseline's first call checked as the current's was, then its timed
// calls in the same rounds.

// baseFor is the baseline's side for case c, or nil when there is no
// baseline or it has no such tool (which the row then says).
func (ru *runner) baseFor(c benchCase, r *row) *side {
	if ru.base == nil {
		return nil
	}
	r.Baseline = &baselineResult{}
	if !ru.base.s.tools[c.tool] {
		r.Baseline.Skipped = "the baseline has no " + c.tool + " tool"
		return nil
	}
	return ru.base
}

// baselineFailed records why the baseline's warm-up failed: the case is
// then measured on the current build alone, its figures still reported.
func (r *row) baselineFailed(err error) *side {
	r.Baseline.Error = err.Error()
	return nil
}

// warmBaseline makes the case's first call on the baseline, checked
// against git as the current's was (and warming the baseline's server).
func warmBaseline(ctx context.Context, bs *side, c benchCase, sp *spec) error {
	_, err := checkedCall(ctx, bs.s, c, sp)
	return err
}

// checkedCall makes the case's call on s and checks the answer against
// git in full.
func checkedCall(ctx context.Context, s *session, c benchCase, sp *spec) (*mcp.CallToolResult, error) {
	res, err := s.call(ctx, c.tool, sp.args)
	if err != nil {
		return nil, err
	}
	if sp.check != nil {
		if err := sp.check(res); err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
	}
	if err := sp.oracle(res); err != nil {
		return nil, fmt.Errorf("answer differs from git's: %w", err)
	}
	return res, nil
}

// baseTimer times one call of the case on the baseline; nil without one.
func (ru *runner) baseTimer(ctx context.Context, bs *side, c benchCase, sp *spec) timed {
	if bs == nil {
		return nil
	}
	return func() (time.Duration, error) { return timeServer(ctx, bs.s, c.tool, sp.args, sp.check) }
}

// timed is one timed run of one side of a case.
type timed func() (time.Duration, error)

// interleaved is paired with the baseline's call besides: every round
// runs the baseline's call then the current's, git first in one round and
// last in the next, so the servers' calls go baseline, current, baseline,
// current … on the same minutes of the machine. Without a baseline (nil)
// it is paired. Warm-up is the caller's job.
func interleaved(rounds int, base, server, git timed) (bv, sv, gt []time.Duration, err error) {
	if base == nil {
		sv, gt, err = paired(rounds, server, git)
		return nil, sv, gt, err
	}
	fns := [3]timed{base, server, git}
	var got [3][]time.Duration
	for i := 0; i < rounds; i++ {
		order := []int{0, 1, 2}
		if i%2 == 1 {
			order = []int{2, 0, 1}
		}
		for _, k := range order {
			d, err := fns[k]()
			if err != nil {
				if k == 0 {
					err = fmt.Errorf("the baseline: %w", err)
				}
				return nil, nil, nil, err
			}
			got[k] = append(got[k], d)
		}
	}
	return got[0], got[1], got[2], nil
}

// throughputBeside is throughput with the baseline: sp.calls calls on
// each build, in alternating blocks of versusBlock (the baseline's
// first), so the two calls/s figures come from the same minutes.
func (ru *runner) throughputBeside(ctx context.Context, s *session, bs *side, c benchCase, sp *spec, r *row) (string, error) {
	cur := &callsSide{cl: s, tool: c.tool, args: sp.argsFor, check: sp.check}
	bd := &callsSide{cl: bs.s, tool: c.tool, args: sp.argsFor, check: sp.check}
	if err := inBlocks(ctx, sp.calls, bd, cur); err != nil {
		return "", err
	}
	r.CallsPerS = fptr(float64(cur.done) / cur.total.Seconds())
	r.P50Ms, r.P99Ms = fptr(ms(quantile(cur.lat, 0.5))), fptr(ms(quantile(cur.lat, 0.99)))
	r.ServerCPUMsPerCall = fptr(ms(cur.cpu) / float64(cur.done))
	r.ServerMs = r.P50Ms
	r.setBaselineCalls(bd)
	return fmt.Sprintf("%.0f calls/s, p50 %.3f ms, p99 %.3f ms, server CPU %.3f ms/call; the baseline's in alternating blocks of %d: %.0f calls/s, p50 %.3f ms",
		*r.CallsPerS, *r.P50Ms, *r.P99Ms, *r.ServerCPUMsPerCall, versusBlock, *r.Baseline.CallsPerS, *r.Baseline.ServerMs), nil
}

// setBaselineCalls records the baseline's share of a throughput case: its
// calls/s and its p50 latency, which the ratio is of (r.ServerMs is the
// current's p50).
func (r *row) setBaselineCalls(bd *callsSide) {
	b := r.Baseline
	b.CallsPerS = fptr(float64(bd.done) / bd.total.Seconds())
	b.ServerMs = fptr(ms(quantile(bd.lat, 0.5)))
	b.Ratio = over(r.ServerMs, b.ServerMs)
}
