package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// The baseline (--baseline REV): the server built at REV, measured beside
// the working tree's in the same run, round by round on the same
// repositories, so that a shared machine's load falls on both alike. What
// issue 24 holds a refactor to: no case slower than the baseline by more
// than slowerBy.
const slowerBy = 0.05

// baselineInfo names the baseline of a run.
type baselineInfo struct {
	Rev    string `json:"rev"`    // as given
	Commit string `json:"commit"` // what it resolved to
}

// baselineResult is the baseline's figures of a case, and the current
// build's over them.
type baselineResult struct {
	ServerMs  *float64  `json:"serverMs"` // median; for throughput cases the p50 latency
	SamplesMs []float64 `json:"serverSamplesMs,omitempty"`
	Ratio     *float64  `json:"ratio"` // current / baseline, of the medians
	CallsPerS *float64  `json:"callsPerSec,omitempty"`
	// Calls and Bytes are a drain's calls and its replies' bytes, or a
	// single call's reply's bytes: the same in both builds unless the
	// behaviour changed, which Differs then says.
	Calls      int      `json:"calls,omitempty"`
	Bytes      int64    `json:"replyBytes,omitempty"`
	CallsRatio *float64 `json:"callsRatio,omitempty"` // current / baseline
	BytesRatio *float64 `json:"bytesRatio,omitempty"` // current / baseline
	Differs    string   `json:"differs,omitempty"`
	Skipped    string   `json:"skipped,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// setBaselineTimes records the baseline's samples, taken in the same
// rounds as the current's (r.ServerMs, set before).
func (r *row) setBaselineTimes(bv []time.Duration) {
	b := r.Baseline
	b.SamplesMs = msList(bv)
	b.ServerMs = fptr(ms(median(bv)))
	b.Ratio = over(r.ServerMs, b.ServerMs)
}

// setCounts records the baseline's calls and bytes beside the current's
// (calls 0: a single call).
func (b *baselineResult) setCounts(curCalls, baseCalls int, curBytes, baseBytes int64) {
	b.Calls, b.Bytes = baseCalls, baseBytes
	b.BytesRatio = over(fptr(float64(curBytes)), fptr(float64(baseBytes)))
	if curCalls > 0 {
		b.CallsRatio = over(fptr(float64(curCalls)), fptr(float64(baseCalls)))
	}
	var diff []string
	if curCalls != baseCalls {
		diff = append(diff, fmt.Sprintf("%d calls, the baseline %d", curCalls, baseCalls))
	}
	if curBytes != baseBytes {
		diff = append(diff, fmt.Sprintf("%d bytes, the baseline %d", curBytes, baseBytes))
	}
	if len(diff) > 0 {
		b.Differs = "behaviour changed: " + strings.Join(diff, ", ")
	}
}

func over(a, b *float64) *float64 {
	if a == nil || b == nil || *b <= 0 {
		return nil
	}
	return fptr(*a / *b)
}

// slowerThanBaseline are the rows whose median is more than slowerBy
// over the baseline's.
func slowerThanBaseline(rows []*row) []*row {
	var out []*row
	for _, r := range rows {
		if r != nil && r.Baseline != nil && r.Baseline.Ratio != nil && *r.Baseline.Ratio > 1+slowerBy {
			out = append(out, r)
		}
	}
	return out
}

// writeBaseline prints each case against the baseline, then the verdict.
func writeBaseline(w io.Writer, b *baselineInfo, rows []*row) {
	fmt.Fprintf(w, "\nAgainst the baseline %s (%.12s): the same cases, the two builds alternating round by round on the same repositories\n\n", b.Rev, b.Commit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tool\tcase\tbaseline ms\tcurrent ms\tcurrent/baseline\tcalls\tbytes\tnotes")
	num := func(f *float64, format string) string {
		if f == nil {
			return "-"
		}
		return fmt.Sprintf(format, *f)
	}
	for _, r := range rows {
		if r == nil {
			continue
		}
		bl := r.Baseline
		if bl == nil {
			bl = &baselineResult{}
		}
		notes := bl.Differs
		switch {
		case r.Error != "":
			notes = r.Error
		case r.Skipped != "":
			notes = r.Skipped
		case bl.Error != "":
			notes = "the baseline failed: " + bl.Error
		case bl.Skipped != "":
			notes = bl.Skipped
		}
		if bl.CallsPerS != nil {
			notes = strings.TrimPrefix(notes+fmt.Sprintf("; %.0f calls/s, the baseline %.0f", *r.CallsPerS, *bl.CallsPerS), "; ")
		}
		calls, bytes := "-", "-"
		if bl.CallsRatio != nil {
			calls = ratio(bl.CallsRatio)
		}
		if bl.BytesRatio != nil {
			bytes = ratio(bl.BytesRatio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Tool, r.Case, num(bl.ServerMs, "%.2f"), num(r.ServerMs, "%.2f"),
			ratio(bl.Ratio), calls, bytes, strings.ReplaceAll(notes, "\n", " "))
	}
	tw.Flush()
	// A case without both medians is not compared: the verdict says so
	// rather than count it as not slower.
	uncompared := 0
	for _, r := range rows {
		if r != nil && (r.Baseline == nil || r.Baseline.Ratio == nil) {
			uncompared++
		}
	}
	if uncompared > 0 {
		fmt.Fprintf(w, "\n%d of the cases not compared (see their notes)", uncompared)
	}
	slow := slowerThanBaseline(rows)
	if len(slow) == 0 {
		fmt.Fprintf(w, "\nno case slower than the baseline by more than %.0f%%\n", slowerBy*100)
		return
	}
	fmt.Fprintf(w, "\nslower than the baseline by more than %.0f%% (%d of the cases):\n", slowerBy*100, len(slow))
	for _, r := range slow {
		fmt.Fprintf(w, "  %s %s: %s (%.2f ms against %.2f ms)\n", r.Tool, r.Case, ratio(r.Baseline.Ratio), *r.ServerMs, *r.Baseline.ServerMs)
	}
}
