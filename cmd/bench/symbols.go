package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Symbols at a ref (issue 41), on the mirrors of realprs:
//
//   - find_symbol's references of a few names at the mirror's HEAD, drained
//     by a fresh server (cold: every file parsed) and again (warm: kept by
//     blob id), against git grep -w -n at the same commit in the same run
//     (the best of three): the ratio is the target (at most 3).
//   - list_symbols of a file of about 10,000 lines, cold and warm.
//   - The server's binary with and without cgo (the parser): its size.
//   - An agent's question on each real pull request, "who calls the
//     changed functions, and which calls did it not update": calls and
//     bytes of text with get_pull_request_symbols, and with search_code of
//     each changed function's name at the head (what an agent without it
//     does; it still has to tell the calls from comments and strings, and
//     the updated from the rest), at an unknown client's 8,000 bytes.
//
//	XDG_CACHE_HOME=/tmp/benchxdg go run ./cmd/bench --only symbols \
//	    --mirror git=/work/.mirror/git+git/repo --mirror prometheus=/work/.mirror/prometheus+prometheus/repo

// symbolNames are the names whose references are timed, by mirror.
var symbolNames = map[string][]string{
	"git":        {"repo_read_index", "strbuf_addf", "parse_options", "oid_to_hex"},
	"prometheus": {"NewHead", "Labels", "Appender", "Select"},
}

// symbolFiles are the long files outlined, by mirror.
var symbolFiles = map[string]string{"git": "diff.c", "prometheus": "tsdb/head_test.go"}

type symbolTiming struct {
	Repo       string  `json:"repo"`
	Name       string  `json:"name"`
	References int     `json:"references"`
	GrepLines  int     `json:"grepLines"`
	GitMs      float64 `json:"gitGrepMs"`
	ColdMs     float64 `json:"coldMs"`
	WarmMs     float64 `json:"warmMs"`
	Calls      int     `json:"calls"`
}

type outlineTiming struct {
	Repo   string  `json:"repo"`
	Path   string  `json:"path"`
	Lines  int     `json:"lines"`
	ColdMs float64 `json:"coldMs"`
	WarmMs float64 `json:"warmMs"`
}

type callersCost struct {
	PR        string     `json:"pr"`
	Functions int        `json:"functions"` // changed or removed, references searched
	NotUpdate int        `json:"notUpdated"`
	Symbols   foldedCost `json:"getPullRequestSymbols"`
	Search    foldedCost `json:"searchCode"`
	Matches   int        `json:"searchCodeMatches"`
	Skipped   string     `json:"skipped,omitempty"`
	Failed    []string   `json:"searchCodeFailed,omitempty"`
}

type symbolsReport struct {
	References []symbolTiming  `json:"references"`
	Outlines   []outlineTiming `json:"outlines"`
	BinaryCgo  int64           `json:"binaryBytesWithParser"`
	BinaryNone int64           `json:"binaryBytesWithoutCgo"`
	Callers    []callersCost   `json:"callers"`
}

var (
	changedFuncRe = regexp.MustCompile(`(?m)^(?:changed|removed) (?:function|method|macro) (\S+): .*; (\d+) of its|^(?:changed|removed) (?:function|method|macro) (\S+): .*(?:all on changed lines|no reference at head)`)
)

func runSymbols(ctx context.Context, o *options, g gitRunner, bin, logDir string, logf logFunc, stdout io.Writer) (int, error) {
	rep := &symbolsReport{}
	for _, repoName := range []string{"git", "prometheus"} {
		dir := o.mirrors[repoName]
		if dir == "" {
			logf("symbols: no --mirror %s", repoName)
			continue
		}
		head, err := g.line(dir, "rev-parse", "HEAD")
		if err != nil {
			return 1, err
		}
		for _, name := range symbolNames[repoName] {
			t, err := timeReferences(ctx, g, bin, dir, logDir, repoName, head, name)
			if err != nil {
				return 1, err
			}
			logf("symbols %s %s: %d references; git grep %.0f ms, cold %.0f ms, warm %.0f ms", repoName, name, t.References, t.GitMs, t.ColdMs, t.WarmMs)
			rep.References = append(rep.References, t)
		}
		ot, err := timeOutline(ctx, g, bin, dir, logDir, repoName, head, symbolFiles[repoName])
		if err != nil {
			return 1, err
		}
		rep.Outlines = append(rep.Outlines, ot)
	}
	var err error
	if rep.BinaryCgo, rep.BinaryNone, err = binarySizes(bin); err != nil {
		return 1, err
	}
	for _, pr := range realPRs {
		c, err := callersOf(ctx, g, bin, o.mirrors[pr.Repo], logDir, pr)
		if err != nil {
			return 1, err
		}
		logf("symbols %s: %+v", c.PR, c)
		rep.Callers = append(rep.Callers, c)
	}
	writeSymbols(stdout, rep)
	data, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(o.jsonPath, append(data, '\n'), 0o644); err != nil {
		return 1, err
	}
	logf("results written to %s", o.jsonPath)
	return 0, nil
}

// timeReferences drains find_symbol's references of name at head on a
// fresh server twice, and times git grep -w -n at head (best of three).
func timeReferences(ctx context.Context, g gitRunner, bin, dir, logDir, repoName, head, name string) (symbolTiming, error) {
	t := symbolTiming{Repo: repoName, Name: name, GitMs: 1e18}
	for range 3 {
		start := time.Now()
		out, err := g.output(dir, "grep", "-w", "-n", "-I", "-e", name, head)
		if err != nil {
			return t, fmt.Errorf("git grep %s: %w", name, err)
		}
		t.GitMs = min(t.GitMs, ms(time.Since(start)))
		t.GrepLines = strings.Count(string(out), "\n")
	}
	s, err := startServerAs(ctx, bin, dir, filepath.Join(logDir, "symbols.log"), "claude-code")
	if err != nil {
		return t, err
	}
	defer s.close()
	args := map[string]any{"owner": benchOwner, "repo": benchRepo, "name": name, "mode": "references", "ref": head}
	for i, into := range []*float64{&t.ColdMs, &t.WarmMs} {
		dr, err := drain(ctx, s, "find_symbol", args)
		if err != nil {
			return t, fmt.Errorf("find_symbol %s: %w", name, err)
		}
		*into = ms(dr.d)
		if i == 0 {
			t.Calls = dr.calls
			if _, err := fmt.Sscanf(resultText(dr.results[0]), "find_symbol: %d reference", &t.References); err != nil {
				return t, fmt.Errorf("find_symbol %s: its first line: %w", name, err)
			}
		}
	}
	return t, nil
}

// timeOutline times list_symbols of path at head, cold then warm.
func timeOutline(ctx context.Context, g gitRunner, bin, dir, logDir, repoName, head, path string) (outlineTiming, error) {
	ot := outlineTiming{Repo: repoName, Path: path}
	src, err := g.output(dir, "show", head+":"+path)
	if err != nil {
		return ot, err
	}
	ot.Lines = strings.Count(string(src), "\n")
	s, err := startServerAs(ctx, bin, dir, filepath.Join(logDir, "symbols.log"), "claude-code")
	if err != nil {
		return ot, err
	}
	defer s.close()
	args := map[string]any{"owner": benchOwner, "repo": benchRepo, "path": path, "ref": head}
	for _, into := range []*float64{&ot.ColdMs, &ot.WarmMs} {
		dr, err := drain(ctx, s, "list_symbols", args)
		if err != nil {
			return ot, err
		}
		*into = ms(dr.d)
	}
	return ot, nil
}

// binarySizes builds the server without cgo beside bin (built with it,
// as go build does where a C compiler is) and gives both sizes.
func binarySizes(bin string) (withParser, without int64, err error) {
	root, err := moduleRoot()
	if err != nil {
		return 0, 0, err
	}
	plain := bin + "-nocgo"
	c := exec.Command("go", "build", "-o", plain, "./cmd/mcp-repo-tools")
	c.Dir, c.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := c.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("go build without cgo: %w\n%s", err, out)
	}
	a, err := os.Stat(bin)
	if err != nil {
		return 0, 0, err
	}
	b, err := os.Stat(plain)
	if err != nil {
		return 0, 0, err
	}
	return a.Size(), b.Size(), nil
}

// callersOf answers "who calls the changed functions, and which calls
// were not updated" for pr both ways, as an unknown client (8,000 bytes).
func callersOf(ctx context.Context, g gitRunner, bin, dir, logDir string, pr realPR) (callersCost, error) {
	c := callersCost{PR: fmt.Sprintf("%s#%d", pr.Repo, pr.Index)}
	if dir == "" {
		c.Skipped = "no --mirror " + pr.Repo
		return c, nil
	}
	head, err := g.line(dir, "rev-parse", fmt.Sprintf("refs/pull/%d/head", pr.Index))
	if err != nil {
		return c, err
	}
	s, err := startServerAs(ctx, bin, dir, filepath.Join(logDir, "symbols.log"), unknownClient)
	if err != nil {
		return c, err
	}
	defer s.close()
	dr, err := drain(ctx, s, "get_pull_request_symbols", map[string]any{"owner": benchOwner, "repo": benchRepo, "index": pr.Index})
	if err != nil {
		return c, fmt.Errorf("%s: get_pull_request_symbols: %w", c.PR, err)
	}
	c.Symbols = costOf(dr)
	var names []string
	for _, m := range changedFuncRe.FindAllStringSubmatch(dr.text.String(), -1) {
		name := m[1] + m[3]
		c.Functions++
		if m[2] != "" {
			n, err := strconv.Atoi(m[2])
			if err != nil {
				return c, err
			}
			c.NotUpdate += n
		}
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		sd, err := drain(ctx, s, "search_code", map[string]any{"owner": benchOwner, "repo": benchRepo, "query": name, "ref": head, "caseSensitive": true})
		if err != nil {
			// The prometheus mirror lacks a large blob git grep reads
			// (tsdb/testdata/20kseries.json): that name is not counted.
			c.Failed = append(c.Failed, name+": "+err.Error())
			continue
		}
		sc := costOf(sd)
		c.Search.Calls += sc.Calls
		c.Search.TextBytes += sc.TextBytes
		c.Matches += strings.Count(sd.text.String(), "\n") // about a line a match
	}
	return c, nil
}

func writeSymbols(w io.Writer, rep *symbolsReport) {
	fmt.Fprintln(w, "### find_symbol references against git grep -w (same commit, same run)")
	fmt.Fprintln(w, "| repository | name | references | git grep -w lines | git grep ms | cold ms (×git) | warm ms (×git) | calls |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|")
	for _, t := range rep.References {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %.0f | %.0f (%.1f×) | %.0f (%.1f×) | %d |\n", t.Repo, t.Name, t.References, t.GrepLines, t.GitMs, t.ColdMs, t.ColdMs/t.GitMs, t.WarmMs, t.WarmMs/t.GitMs, t.Calls)
	}
	fmt.Fprintln(w, "\n### list_symbols of a long file")
	fmt.Fprintln(w, "| repository | file | lines | cold ms | warm ms |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|")
	for _, o := range rep.Outlines {
		fmt.Fprintf(w, "| %s | %s | %d | %.0f | %.0f |\n", o.Repo, o.Path, o.Lines, o.ColdMs, o.WarmMs)
	}
	fmt.Fprintf(w, "\nBinary: %s with the parser (cgo), %s without (+%s).\n", humanBytes(rep.BinaryCgo), humanBytes(rep.BinaryNone), humanBytes(rep.BinaryCgo-rep.BinaryNone))
	fmt.Fprintln(w, "\n### Who calls the changed functions, and which calls were not updated (an unknown client, 8,000 bytes)")
	fmt.Fprintln(w, "| pull request | functions | references not updated | get_pull_request_symbols calls, bytes | search_code calls, bytes (lines) |")
	fmt.Fprintln(w, "|---|---:|---:|---|---|")
	for _, c := range rep.Callers {
		if c.Skipped != "" {
			continue
		}
		failed := ""
		if len(c.Failed) > 0 {
			failed = fmt.Sprintf("; %d names failed", len(c.Failed))
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d, %s | %d, %s (%d)%s |\n", c.PR, c.Functions, c.NotUpdate, c.Symbols.Calls, humanBytes(c.Symbols.TextBytes), c.Search.Calls, humanBytes(c.Search.TextBytes), c.Matches, failed)
	}
}
