package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
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
	Rows       []*row     `json:"results"`
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
