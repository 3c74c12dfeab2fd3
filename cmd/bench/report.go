package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// row is one case's result: a line of the table and an entry of the JSON.
type row struct {
	Tool          string    `json:"tool"`
	Case          string    `json:"case"`
	Repo          string    `json:"repo"`
	ServerMs      *float64  `json:"serverMs"` // median; for throughput cases the p50 latency
	GitMs         *float64  `json:"gitMs"`
	Ratio         *float64  `json:"ratio"` // server / git
	PeakRSSMiB    *float64  `json:"peakRssMiB"`
	RSSMiB        *float64  `json:"rssBeforeMiB,omitempty"`  // resident set when the case started
	GitPeakRSSMiB *float64  `json:"gitPeakRssMiB,omitempty"` // plain git's own peak (rusage)
	Target        string    `json:"target"`
	Met           *bool     `json:"met"`
	Notes         string    `json:"notes,omitempty"`
	Skipped       string    `json:"skipped,omitempty"`
	Error         string    `json:"error,omitempty"`
	GitCommand    string    `json:"gitCommand,omitempty"`
	ServerArgs    any       `json:"serverArgs,omitempty"`
	ServerMsAll   []float64 `json:"serverSamplesMs,omitempty"`
	GitMsAll      []float64 `json:"gitSamplesMs,omitempty"`
	CallsPerS     *float64  `json:"callsPerSec,omitempty"`
	P50Ms         *float64  `json:"p50Ms,omitempty"`
	P99Ms         *float64  `json:"p99Ms,omitempty"`
	// ServerCPUMsPerCall is the server process's CPU time (not its git
	// children's) per call in a throughput case.
	ServerCPUMsPerCall *float64 `json:"serverCpuMsPerCall,omitempty"`
	// A throughput case against another call on the same session
	// (list_repositories, which does nothing): its figures, and the ratio
	// of the two calls/s.
	VersusCallsPerS    *float64 `json:"versusCallsPerSec,omitempty"`
	VersusP50Ms        *float64 `json:"versusP50Ms,omitempty"`
	VersusCPUMsPerCall *float64 `json:"versusServerCpuMsPerCall,omitempty"`
	CallsRatio         *float64 `json:"callsPerSecRatio,omitempty"`
	// The same two calls through leanClient (each reply parsed once), for
	// what the go-sdk client's decoding costs; the target is judged on the
	// go-sdk client's figures.
	LeanCallsPerS       *float64 `json:"leanCallsPerSec,omitempty"`
	LeanVersusCallsPerS *float64 `json:"leanVersusCallsPerSec,omitempty"`
	LeanCallsRatio      *float64 `json:"leanCallsPerSecRatio,omitempty"`
	// Paging is a drained diff's figures (issue 13).
	Paging *pagingResult `json:"paging,omitempty"`
	// Listing is a drained listing's figures (issue 23).
	Listing *listingResult `json:"listing,omitempty"`
	// Clients is the clients case's drains, one a client (issue 32).
	Clients []*clientDrain `json:"clients,omitempty"`
	// Baseline is the same case on the baseline's build (--baseline).
	Baseline *baselineResult `json:"baseline,omitempty"`
}

// target is a goal a case is held to.
type target struct {
	text string
	met  func(r *row) bool
}

func ratioAtMost(x float64) *target {
	return &target{text: fmt.Sprintf("≤ %.2g×", x), met: func(r *row) bool { return r.Ratio != nil && *r.Ratio <= x }}
}

func throughputAtLeast(perSec, p50Ms float64) *target {
	return &target{text: fmt.Sprintf("≥ %.0f calls/s, p50 ≤ %.1f ms", perSec, p50Ms), met: func(r *row) bool {
		return r.CallsPerS != nil && *r.CallsPerS >= perSec && r.P50Ms != nil && *r.P50Ms <= p50Ms
	}}
}

// throughputVersusAtLeast: at least perSec calls/s, and at least frac of
// the calls/s of the call it is measured against in the same run.
func throughputVersusAtLeast(perSec, frac float64, versus string) *target {
	return &target{text: fmt.Sprintf("≥ %s calls/s and ≥ %.2f× %s's calls/s", thousands(perSec), frac, versus), met: func(r *row) bool {
		return r.CallsPerS != nil && *r.CallsPerS >= perSec && r.CallsRatio != nil && *r.CallsRatio >= frac
	}}
}

func thousands(f float64) string { return digits(int64(math.Round(f))) }

// digits is n with its thousands grouped by commas.
func digits(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// rssGrowthAtMost: memory must not follow the size of the file: the peak
// during the case stays within mib of the resident set before it.
func rssGrowthAtMost(mib float64) *target {
	return &target{text: fmt.Sprintf("RSS flat (peak ≤ start + %.0f MiB)", mib), met: func(r *row) bool {
		return r.PeakRSSMiB != nil && r.RSSMiB != nil && *r.PeakRSSMiB-*r.RSSMiB <= mib
	}}
}

func fptr(f float64) *float64 { return &f }

// report is the whole run, as written to --json.
type report struct {
	Started    time.Time  `json:"started"`
	GoVersion  string     `json:"goVersion"`
	GitVersion string     `json:"gitVersion"`
	CPUs       int        `json:"cpus"`
	Rounds     int        `json:"rounds"`
	LoadAvg    []string   `json:"loadAverage"` // 1-minute load at the start and the end: the machine is shared
	Repos      []repoInfo `json:"repos"`
	// Baseline is the build measured beside the working tree's.
	Baseline *baselineInfo `json:"baseline,omitempty"`
	Rows     []*row        `json:"results"`
	// RealPRs is the real pull requests' drains (--only realprs).
	RealPRs []*realPRResult `json:"realPullRequests,omitempty"`
	// ForgePRs is some of them through a Gitea (--only realprs-forge).
	ForgePRs []*forgePRResult `json:"forgePullRequests,omitempty"`
}

type repoInfo struct {
	Name      string  `json:"name"`
	Path      string  `json:"path"`
	Generated bool    `json:"generated"`
	GenSec    float64 `json:"generationSeconds,omitempty"` // 0 when it came from the cache
	DiskMiB   float64 `json:"diskMiB"`
}

func writeTable(w io.Writer, rows []*row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tool\tcase\tserver ms\tgit ms\tratio\tpeak RSS MiB\ttarget\tmet?\tnotes")
	num := func(f *float64, format string) string {
		if f == nil {
			return "-"
		}
		return fmt.Sprintf(format, *f)
	}
	for _, r := range rows {
		met := "-"
		switch {
		case r.Error != "":
			met = "ERROR"
		case r.Skipped != "":
			met = "skipped"
		case r.Met != nil && *r.Met:
			met = "yes"
		case r.Met != nil:
			met = "NO"
		}
		notes := r.Notes
		if r.Error != "" {
			notes = r.Error
		} else if r.Skipped != "" {
			notes = r.Skipped
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Tool, r.Case,
			num(r.ServerMs, "%.2f"), num(r.GitMs, "%.2f"), ratio(r.Ratio), num(r.PeakRSSMiB, "%.1f"),
			orDash(r.Target), met, strings.ReplaceAll(notes, "\n", " "))
	}
	tw.Flush()
}

// writePaging prints the drained diffs' figures beside issue 13's targets.
func writePaging(w io.Writer, rows []*row) {
	var paging []*row
	for _, r := range rows {
		if r != nil && r.Paging != nil && r.Error == "" && r.Ratio != nil {
			paging = append(paging, r)
		}
	}
	if len(paging) == 0 {
		return
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "NO"
	}
	fmt.Fprintf(w, "\nPaging (issue 13): each diff followed from its first call to its last next call; reply limit %d bytes; E = git's patch JSON-escaped\n\n", replyLimit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tool\tpatch\tE\tcalls\ttarget\tmet?\treplies\t× E\ttarget\tmet?\tall calls ms\tgit diff ms\tratio\ttarget\tmet?\tserver CPU ms\tclient CPU ms\tlean client ms\tgit diff ms\tratio\tjoined = git, applies")
	for _, r := range paging {
		p := r.Paging
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t≤ %.1f\t%s\t%s\t%.3f×\t≤ %.2f×\t%s\t%.1f\t%.1f\t%s\t≤ %.0f×\t%s\t%.0f\t%.0f\t%.1f\t%.1f\t%.2f×\t%s\n", r.Tool,
			humanBytes(p.PatchBytes), humanBytes(p.EscapedPatchBytes), p.Calls, p.CallsTarget, yes(p.CallsMet),
			humanBytes(p.ReplyBytes), p.ReplyRatio, pagingBytesTarget, yes(p.BytesMet),
			*r.ServerMs, *r.GitMs, ratio(r.Ratio), pagingTimeTarget, yes(p.TimeMet),
			p.ServerCPUMs, p.ClientCPUMs, p.LeanMs, p.LeanGitMs, p.LeanRatio, yes(p.Joined && p.Applies))
	}
	fmt.Fprintln(tw, "\t(all calls: through the go-sdk client, which the target is judged on; CPU: the server process's (not its git's) and the go-sdk client's over a drain; lean client: a request a line, each reply parsed once)")
	tw.Flush()
}

// writeThroughput prints the throughput cases: calls/s, latency, and the
// server's CPU per call.
func writeThroughput(w io.Writer, rows []*row) {
	var tp []*row
	for _, r := range rows {
		if r != nil && r.CallsPerS != nil && r.Error == "" {
			tp = append(tp, r)
		}
	}
	if len(tp) == 0 {
		return
	}
	fmt.Fprintf(w, "\nSequential calls on one stdio session, measured at the client\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tool\tcase\tcalls/s\tp50 ms\tp99 ms\tserver CPU ms/call\tvs list_repositories\ttarget\tmet?\tlean client: vs list_repositories")
	num := func(f *float64, format string) string {
		if f == nil {
			return "-"
		}
		return fmt.Sprintf(format, *f)
	}
	for _, r := range tp {
		versus := "-"
		if r.CallsRatio != nil {
			versus = fmt.Sprintf("%.0f calls/s: %.2f×", *r.VersusCallsPerS, *r.CallsRatio)
		}
		met := "-"
		if r.Met != nil {
			met = map[bool]string{true: "yes", false: "NO"}[*r.Met]
		}
		lean := "-"
		if r.LeanCallsRatio != nil {
			lean = fmt.Sprintf("%.0f against %.0f calls/s: %.2f×", *r.LeanCallsPerS, *r.LeanVersusCallsPerS, *r.LeanCallsRatio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Tool, r.Case, *r.CallsPerS, num(r.P50Ms, "%.3f"), num(r.P99Ms, "%.3f"),
			num(r.ServerCPUMsPerCall, "%.3f"), versus, orDash(r.Target), met, lean)
	}
	fmt.Fprintln(tw, "\t(through the go-sdk client, which the target is judged on; lean client: a request a line, each reply parsed once, on a server of its own)")
	tw.Flush()
}

// ratio keeps two significant digits for small ratios (0.0031×).
func ratio(f *float64) string {
	switch {
	case f == nil:
		return "-"
	case *f < 0.1:
		return fmt.Sprintf("%.2g×", *f)
	default:
		return fmt.Sprintf("%.2f×", *f)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func writeJSON(path string, rep *report) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
