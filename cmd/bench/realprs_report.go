package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
)

// writeRealPRs prints, per client, the twelve pull requests' totals, then
// each pull request's parts as VS Code, Codex and an unknown client,
// before and after, then every failure.
func writeRealPRs(w io.Writer, prs []*realPRResult) {
	if len(prs) == 0 {
		return
	}
	type total struct {
		calls       int
		seen, esc   int64
		fill        *float64
		fillAt      string
		unit, said  string
		failed      int
		framed, prs int
		under       int
	}
	var order []string
	totals := map[string]*total{}
	for _, pr := range prs {
		for _, d := range pr.Drains {
			t := totals[d.Client]
			if t == nil {
				t = &total{said: "yes", unit: realRules[d.Client].unit}
				if t.unit == "" {
					t.unit = "the server's measure of an unknown client's budget"
				}
				totals[d.Client] = t
				order = append(order, d.Client)
			}
			t.prs++
			t.calls += d.Calls
			t.seen += d.SeenBytes
			t.esc += pr.Escaped
			t.framed += d.Framed
			t.under += d.Under
			if d.MinFill != nil && (t.fill == nil || *d.MinFill < *t.fill) {
				t.fill, t.fillAt = d.MinFill, fmt.Sprintf("%s#%d part %d", pr.Repo, pr.Index, d.MinFillPart)
			}
			if len(d.Errors) > 0 {
				t.failed++
			}
			if d.Said != strconv.Itoa(d.Calls) {
				t.said = "NO"
			}
		}
	}
	fmt.Fprintf(w, "\nTwelve real pull requests read whole with get_pull_request_diff, as each client (issue 38); E = git's patch JSON-escaped\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "client\tPRs\tcalls\tsaid = drain\treplies ÷ E\tsmallest fill\tat\tparts < 85%\tfill measured by\tframed lines\tPRs failed")
	for _, name := range order {
		t := totals[name]
		fill := "-"
		if t.fill != nil {
			fill = fmt.Sprintf("%.1f%%", *t.fill*100)
		}
		if _, known := clients.Lookup(name); !known {
			name += " (unknown)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%.3f×\t%s\t%s\t%d\t%s\t%d\t%d\n", name, t.prs, t.calls, t.said, float64(t.seen)/float64(t.esc), fill, t.fillAt, t.under, t.unit, t.framed, t.failed)
	}
	tw.Flush()

	fmt.Fprintf(w, "\nEach pull request: parts as VS Code and Codex, after (and before, on the baseline's build), and as an unknown client\n\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "pull request\tpatch\tE\tVS Code\tbefore\tCodex\tbefore\tunknown\twhat")
	var sums, wholeSums [5]int
	for _, pr := range prs {
		if pr.Skipped != "" {
			fmt.Fprintf(tw, "%s#%d\tskipped: %s\n", pr.Repo, pr.Index, pr.Skipped)
			continue
		}
		whole := true
		calls := func(ds []*realDrain, name string) int {
			for _, d := range ds {
				if d.Client == name {
					whole = whole && d.Whole
					return d.Calls
				}
			}
			return 0
		}
		n := [5]int{calls(pr.Drains, "Visual Studio Code"), calls(pr.Baseline, "Visual Studio Code"), calls(pr.Drains, "codex-mcp-client"), calls(pr.Baseline, "codex-mcp-client"), calls(pr.Drains, unknownClient)}
		mark := ""
		for i := range n {
			sums[i] += n[i]
			if whole {
				wholeSums[i] += n[i]
			}
		}
		if !whole {
			mark = " (*)"
		}
		fmt.Fprintf(tw, "%s#%d%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", pr.Repo, pr.Index, mark, humanBytes(pr.PatchBytes), humanBytes(pr.Escaped), n[0], n[1], n[2], n[3], n[4], pr.What)
	}
	fmt.Fprintf(tw, "total\t\t\t%d\t%d\t%d\t%d\t%d\t\n", sums[0], sums[1], sums[2], sums[3], sums[4])
	fmt.Fprintf(tw, "total but (*)\t\t\t%d\t%d\t%d\t%d\t%d\t(*): a drain here, before or after, is not git's patch joined\n", wholeSums[0], wholeSums[1], wholeSums[2], wholeSums[3], wholeSums[4])
	tw.Flush()

	for _, pr := range prs {
		for i, ds := range [][]*realDrain{pr.Drains, pr.Baseline} {
			for _, d := range ds {
				for _, e := range d.Errors {
					fmt.Fprintf(w, "%s %s#%d as %s: %s\n", []string{"FAILED", "BEFORE (the baseline's build)"}[i], pr.Repo, pr.Index, d.Client, e)
				}
			}
		}
	}
}
