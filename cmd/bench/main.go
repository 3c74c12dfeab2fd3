// Command bench measures the mcp-repo-tools server against plain git, side
// by side, on generated repositories (or on any repository and range with
// --repo/--base/--head). It builds the server, drives it over stdio with
// the MCP Go SDK client, runs the equivalent git command for each case,
// alternating, and prints medians, ratios and the server's peak memory.
//
// The paging cases (issue 13) follow a large diff's next calls from its
// first part to its last and hold the parts, joined, to git's patch. The
// reviewer's cases (issue 14) list the tree, the last 100 commits and blame
// 100 lines, against ls-tree, log and blame (reviewer.go). The clients case
// (issue 32) drains the paging pull request under each known client's
// name and an unknown one, each reply held to that client's budget
// (clients.go); the other cases connect as Claude Code, whose budget is the
// server's limit (benchClient).
//
//	go run ./cmd/bench [--rounds 5] [--only SUBSTRING] [--json bench-results.json]
//	go run ./cmd/bench --repo PATH --base REV --head REV
//	go run ./cmd/bench --only paging --server-log DIR   # each call's ms in DIR/paging.log
//	go run ./cmd/bench --only reviewer --rounds 41      # issue 14's three cases
//	go run ./cmd/bench --only clients                   # issue 32: the paging PR drained as each client
//	go run ./cmd/bench --only fair                      # issue 39: honest clients beside unread hostile calls over HTTP (fair.go)
//	go run ./cmd/bench --only realprs-forge --mirror ...  # issue 38: real PRs through a Gitea (realprs_forge.go)
//	go run ./cmd/bench --only realprs-folded --mirror ... # issue 40: real PRs plain and folded (realprs_folded.go)
//	go run ./cmd/bench --only symbols --mirror ...        # issue 41: find_symbol, list_symbols, callers (symbols.go)
//	go run ./cmd/bench --baseline main~3                # both builds, alternating, current/baseline per case
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// logFunc prints progress to stderr.
type logFunc func(format string, args ...any)

type options struct {
	rounds           int
	calls            int
	cache            string
	repo, base, head string
	only             string
	keep             bool
	jsonPath         string
	serverLog        string
	baseline         string
	mirrors          mirrorFlags // --only realprs: name → a mirror with refs/pull/*
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
	}
	os.Exit(code)
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{mirrors: mirrorsFromEnv()}
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		cacheDir = os.TempDir()
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.rounds, "rounds", 5, "timed rounds per case, after one warm-up")
	fs.IntVar(&o.calls, "calls", 2000, "sequential calls in the throughput cases")
	fs.StringVar(&o.cache, "cache", filepath.Join(cacheDir, "mcp-repo-tools-bench"), "where generated repositories and the server binary are kept")
	fs.StringVar(&o.repo, "repo", "", "measure on this repository instead of generated ones (needs --base and --head)")
	fs.StringVar(&o.base, "base", "", "with --repo: the base revision")
	fs.StringVar(&o.head, "head", "", "with --repo: the head revision")
	fs.StringVar(&o.only, "only", "", "run only the cases whose \"tool case\" contains this (case-insensitive)")
	fs.BoolVar(&o.keep, "keep", false, "reuse the server binary built by an earlier run")
	fs.StringVar(&o.jsonPath, "json", "bench-results.json", "write the results as JSON to this file")
	fs.StringVar(&o.serverLog, "server-log", "", "keep the servers' logs in this directory, at --log-level debug (each call's ms), to see where time goes")
	fs.StringVar(&o.baseline, "baseline", "", "also build the server at this git revision and measure both builds, alternating, with the ratio current/baseline per case")
	fs.Var(o.mirrors, "mirror", "with --only realprs: NAME=PATH, a mirror of git/git (git) or prometheus/prometheus (prometheus) with its refs/pull/* (repeatable; default from BENCH_MIRRORS)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	case o.rounds < 1 || o.calls < 1:
		return nil, errors.New("--rounds and --calls must be at least 1")
	case (o.repo != "") != (o.base != "" && o.head != ""), o.repo == "" && (o.base != "" || o.head != ""):
		return nil, errors.New("--repo, --base and --head go together")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return 2, err
	}
	began := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "[%6.1fs] %s\n", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	home, err := os.MkdirTemp("", "mcp-repo-tools-bench-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(home)
	g := newGitRunner(home)

	cases := generatedCases(o.calls)
	if o.repo != "" {
		cases = givenCases(o.calls)
	}
	cases = selectCases(cases, o.only)
	realPRsToo := o.only != "" && (strings.Contains("realprs", strings.ToLower(o.only)) || strings.HasPrefix(strings.ToLower(o.only), "realprs "))
	forgePRsToo := strings.HasPrefix(strings.ToLower(o.only), "realprs-forge")
	if strings.EqualFold(o.only, "fair") {
		bin, err := buildServer(filepath.Join(o.cache, "bin"), o.keep, logf)
		if err != nil {
			return 1, err
		}
		builds := []fairBuild{{"current", bin}}
		if o.baseline != "" {
			baseBin, commit, err := buildBaseline(o.cache, o.baseline, logf)
			if err != nil {
				return 1, err
			}
			builds = append(builds, fairBuild{o.baseline + " (" + commit[:min(7, len(commit))] + ")", baseBin})
		}
		if err := runFair(ctx, o, g, builds, logf, stdout); err != nil {
			return 1, err
		}
		return 0, nil
	}
	if strings.EqualFold(o.only, "symbols") {
		bin, err := buildServer(filepath.Join(o.cache, "bin"), o.keep, logf)
		if err != nil {
			return 1, err
		}
		return runSymbols(ctx, o, g, bin, home, logf, stdout)
	}
	if strings.HasPrefix(strings.ToLower(o.only), "realprs-folded") {
		bin, err := buildServer(filepath.Join(o.cache, "bin"), o.keep, logf)
		if err != nil {
			return 1, err
		}
		return runFoldedPRs(ctx, o, g, bin, home, logf, stdout)
	}
	if len(cases) == 0 && !realPRsToo && !forgePRsToo {
		return 2, fmt.Errorf("no case matches --only %q", o.only)
	}
	bin, err := buildServer(filepath.Join(o.cache, "bin"), o.keep, logf)
	if err != nil {
		return 1, err
	}
	var baseBin string
	var baseInfo *baselineInfo
	if o.baseline != "" {
		baseInfo = &baselineInfo{Rev: o.baseline}
		if baseBin, baseInfo.Commit, err = buildBaseline(o.cache, o.baseline, logf); err != nil {
			return 1, err
		}
	}
	gitVersion, _ := g.line(home, "version")
	rep := &report{Started: began, GoVersion: runtime.Version(), GitVersion: gitVersion, CPUs: runtime.NumCPU(), Rounds: o.rounds,
		LoadAvg: []string{loadAvg()}, Baseline: baseInfo}
	rows := make([]*row, len(cases))
	ru := &runner{g: g, rounds: o.rounds, logf: logf}
	if realPRsToo {
		if rep.RealPRs, err = runRealPRs(ctx, o, g, bin, baseBin, home, logf); err != nil {
			return 1, err
		}
	}
	if forgePRsToo {
		if rep.ForgePRs, err = runForgePRs(ctx, o, g, bin, home, logf); err != nil {
			return 1, err
		}
	}

	for _, kind := range []string{repoTree, repoPaging, repoHuge, repoGiven} {
		var idx []int
		for i, c := range cases {
			if c.repo == kind {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		dir, fx, info, err := prepare(ctx, g, o, kind, logf)
		if err != nil {
			return 1, err
		}
		rep.Repos = append(rep.Repos, info)
		fx.scratch = filepath.Join(home, kind+"-scratch")
		if err := os.MkdirAll(fx.scratch, 0o755); err != nil {
			return 1, err
		}
		logDir, logFlags := home, []string(nil)
		if o.serverLog != "" {
			if err := os.MkdirAll(o.serverLog, 0o755); err != nil {
				return 1, err
			}
			logDir, logFlags = o.serverLog, []string{"--log-level", "debug"}
		}
		// A call repeated to be timed would be answered from the patch
		// cache: only the paging cases, which follow a diff part by part,
		// measure it; the others measure git's work.
		flags := logFlags
		if kind != "paging" {
			flags = append(slices.Clone(logFlags), "--patch-cache", "0")
		}
		withSandboxOff := slices.ContainsFunc(idx, func(i int) bool { return cases[i].sandboxOff })
		cur, err := startSide(ctx, bin, dir, logDir, kind, withSandboxOff, flags)
		if err != nil {
			return 1, err
		}
		ru.side, ru.base = *cur, nil
		if baseBin != "" {
			if ru.base, err = startSide(ctx, baseBin, dir, logDir, "baseline-"+kind, withSandboxOff, flags); err != nil {
				cur.close(logf, kind)
				return 1, fmt.Errorf("the baseline's server: %w", err)
			}
		}
		for _, i := range idx {
			if ctx.Err() != nil {
				break
			}
			rows[i] = ru.runCase(ctx, cur.s, fx, cases[i])
		}
		cur.close(logf, kind)
		if ru.base != nil {
			ru.base.close(logf, "baseline "+kind)
		}
		if ctx.Err() != nil {
			return 1, ctx.Err()
		}
	}
	rep.Rows = rows
	rep.LoadAvg = append(rep.LoadAvg, loadAvg())

	fmt.Fprintf(stdout, "mcp-repo-tools vs plain git: medians of %d rounds after one warm-up; %s; %s; %d CPUs; load average %s at start, %s at end\n\n",
		o.rounds, gitVersion, runtime.Version(), runtime.NumCPU(), rep.LoadAvg[0], rep.LoadAvg[1])
	if len(rows) > 0 {
		writeTable(stdout, rows)
	}
	writePaging(stdout, rows)
	writeClients(stdout, rows)
	writeRealPRs(stdout, rep.RealPRs)
	writeForgePRs(stdout, rep.ForgePRs)
	writeThroughput(stdout, rows)
	if baseInfo != nil && len(rows) > 0 {
		writeBaseline(stdout, baseInfo, rows)
	}
	for _, ri := range rep.Repos {
		switch {
		case ri.Name == repoGiven:
			fmt.Fprintf(stdout, "\n%s: %s (given with --repo)", ri.Name, ri.Path)
		case ri.Generated:
			fmt.Fprintf(stdout, "\n%s: %s (generated in %.0f s, %.0f MiB on disk)", ri.Name, ri.Path, ri.GenSec, ri.DiskMiB)
		default:
			fmt.Fprintf(stdout, "\n%s: %s (from cache, %.0f MiB on disk)", ri.Name, ri.Path, ri.DiskMiB)
		}
	}
	fmt.Fprintln(stdout)
	if err := writeJSON(o.jsonPath, rep); err != nil {
		return 1, err
	}
	logf("results written to %s", o.jsonPath)
	for _, r := range rows {
		if r.Error != "" {
			return 1, errors.New("some cases failed")
		}
	}
	if forgeFailed(rep.ForgePRs) {
		return 1, errors.New("some real pull requests through Gitea failed or differ (FAILED, DIFFERS above)")
	}
	for _, pr := range rep.RealPRs {
		for _, d := range pr.Drains {
			if len(d.Errors) > 0 {
				return 1, errors.New("some real pull requests failed (FAILED above)")
			}
		}
	}
	return 0, nil
}

// loadAvg is the 1-minute load average: on a shared machine it says how
// much to trust a timing.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func selectCases(cases []benchCase, only string) []benchCase {
	if only == "" {
		return cases
	}
	var out []benchCase
	for _, c := range cases {
		if strings.Contains(strings.ToLower(c.label()), strings.ToLower(only)) {
			out = append(out, c)
		}
	}
	return out
}
