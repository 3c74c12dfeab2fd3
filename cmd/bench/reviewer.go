package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The reviewer's workflow (issue 14): list the files of a large tree, list
// the last 100 commits, blame 100 lines, each against the plain git command
// a reviewer would otherwise run, on the tree repository (list_files at
// main, the others on its history branch, gen_history.go). As everywhere
// here, the first answer is compared with git's, whole, and every timed
// answer checked.

// historyBranch is the branch list_commits and blame read.
const historyBranch = "history"

// listFilesPage is list_files' default limit: the first page's entries.
const listFilesPage = 200

// logFormat is what list_commits has git log print of each commit
// (internal/git/log.go's logFormat): the plain git side prints the same.
const logFormat = "%x00%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%s"

// blameFile returns the file the history branch changes most often (the
// blamed file of gen_history.go), at the branch's tip, with a 100-line
// slice in its middle.
func blameFile(g gitRunner, dir string) (textFile, error) {
	out, err := g.output(dir, "log", "--format=", "--name-only", "main.."+historyBranch)
	if err != nil {
		return textFile{}, err
	}
	counts := map[string]int{}
	best := ""
	for _, p := range strings.Split(string(out), "\n") {
		if p == "" {
			continue
		}
		counts[p]++
		if counts[p] > counts[best] || (counts[p] == counts[best] && p < best) {
			best = p
		}
	}
	if best == "" {
		return textFile{}, fmt.Errorf("branch %s changes no file since main", historyBranch)
	}
	t, err := loadSlice(g, dir, historyBranch, best)
	if err == nil && t.totalLines() < 100 {
		err = fmt.Errorf("%s has %d lines at %s, fewer than the 100 to blame", best, t.totalLines(), historyBranch)
	}
	return t, err
}

// listFilesHeader is the end of list_files' first line for a first page
// with more to come.
var listFilesHeader = regexp.MustCompile(`^\S+ at ([0-9a-f]{12}) \((.+)\): /, recursively — entries 1–(\d+) shown; more follow\n`)

// listFilesSpec: list_files' first page of the whole tree at main,
// recursive, default limit, against `git ls-tree -r -l main` (every entry,
// to /dev/null: what a reviewer runs to see the tree). The page must be
// git's first 200 entries, each as the tool writes it.
func listFilesSpec(fx *fixture) (*spec, error) {
	const ref = "main"
	out, err := fx.g.output(fx.dir, "ls-tree", "-r", "-l", "-z", ref)
	if err != nil {
		return nil, err
	}
	recs := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(recs) <= listFilesPage {
		return nil, fmt.Errorf("git ls-tree lists %d entries at %s: no second page", len(recs), ref)
	}
	check := func(res *mcp.CallToolResult) error {
		text := resultText(res)
		m := listFilesHeader.FindStringSubmatch(text)
		if m == nil {
			return fmt.Errorf("no first-page list_files header: %.160q", text)
		}
		if n, _ := strconv.Atoi(m[3]); n != listFilesPage || m[2] != ref {
			return fmt.Errorf("entries 1–%s at %s, want 1–%d at %s", m[3], m[2], listFilesPage, ref)
		}
		body, err := pageBody(res, "list_files", listFilesPage)
		if err != nil {
			return err
		}
		if got := strings.Count(body, "\n"); got != listFilesPage {
			return fmt.Errorf("%d lines after the header, want %d entries", got, listFilesPage)
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		if err := check(res); err != nil {
			return err
		}
		var want strings.Builder
		for _, rec := range recs[:listFilesPage] {
			meta, path, _ := strings.Cut(rec, "\t")
			f := strings.Fields(meta)
			if len(f) != 4 {
				return fmt.Errorf("bad ls-tree record %q", rec)
			}
			switch {
			case f[0] == "120000":
				want.WriteString("link  " + path + "\n")
			case f[1] == "blob":
				n, err := strconv.ParseInt(f[3], 10, 64)
				if err != nil {
					return fmt.Errorf("bad ls-tree record %q", rec)
				}
				want.WriteString("file  " + path + " " + byteCount(n) + "\n")
			case f[1] == "commit":
				want.WriteString("submodule " + path + " (commit " + f[2][:12] + ")\n")
			default:
				return fmt.Errorf("unexpected ls-tree record %q", rec)
			}
		}
		body, _ := pageBody(res, "list_files", listFilesPage)
		return sameLines("list_files", body, want.String())
	}
	return &spec{args: map[string]any{"recursive": true, "ref": ref}, git: []string{"ls-tree", "-r", "-l", ref},
		check: check, oracle: oracle, note: fmt.Sprintf("the first %d of %d entries", listFilesPage, len(recs))}, nil
}

// listCommitsHeader is list_commits' first line for a page of a ref's
// history.
var listCommitsHeader = regexp.MustCompile(`^\S+: (\d+) commits reachable from (\S+) \(([0-9a-f]{12})\), newest first; commits 1–(\d+) of (\d+) shown\n`)

// listCommitsSpec: list_commits of the history branch, 100 commits, against
// `git log -100` printing what the tool reads: list_commits' own format,
// and each commit's files (--name-only -M; a merge's against its first
// parent), which the tool counts.
func listCommitsSpec(fx *fixture) (*spec, error) {
	const limit = 100
	total, err := fx.g.line(fx.dir, "rev-list", "--count", historyBranch)
	if err != nil {
		return nil, err
	}
	check := func(res *mcp.CallToolResult) error {
		text := resultText(res)
		m := listCommitsHeader.FindStringSubmatch(text)
		if m == nil {
			return fmt.Errorf("no list_commits header: %.160q", text)
		}
		if m[1] != total || m[5] != total || m[4] != strconv.Itoa(limit) || m[2] != historyBranch {
			return fmt.Errorf("commits 1–%s of %s of %s, want 1–%d of %s of %s", m[4], m[1], m[2], limit, total, historyBranch)
		}
		body, err := pageBody(res, "list_commits", limit)
		if err != nil {
			return err
		}
		if got := strings.Count(body, "\n"); got != limit {
			return fmt.Errorf("%d lines after the header, want %d commits", got, limit)
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		if err := check(res); err != nil {
			return err
		}
		want, err := gitCommitLines(fx, limit)
		if err != nil {
			return err
		}
		body, _ := pageBody(res, "list_commits", limit)
		return sameLines("list_commits", body, want)
	}
	return &spec{args: map[string]any{"ref": historyBranch, "limit": limit},
		git:   []string{"log", "-100", "-z", "--format=" + logFormat, "--name-only", "-M", "--diff-merges=first-parent", historyBranch},
		check: check, oracle: oracle, note: fmt.Sprintf("the newest %d of %s commits of %s", limit, total, historyBranch)}, nil
}

// gitCommitLines is list_commits' listing of the newest n commits of the
// history branch written from git log: "SHORT DAY AUTHOR SUBJECT (N files)",
// a merge's files counted against its first parent.
func gitCommitLines(fx *fixture, n int) (string, error) {
	log, err := fx.g.output(fx.dir, "log", "-"+strconv.Itoa(n), "--format=%H%x00%P%x00%an%x00%cI%x00%s", historyBranch)
	if err != nil {
		return "", err
	}
	names, err := fx.g.output(fx.dir, "log", "-"+strconv.Itoa(n), "--format=%x00%H", "--name-only", "-M", "--diff-merges=first-parent", historyBranch)
	if err != nil {
		return "", err
	}
	files := map[string]int{}
	for _, rec := range strings.Split(string(names), "\x00")[1:] {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		for _, l := range lines[1:] {
			if l != "" {
				files[lines[0]]++
			}
		}
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(string(log), "\n"), "\n") {
		f := strings.Split(l, "\x00")
		if len(f) != 5 || len(f[3]) < 10 {
			return "", fmt.Errorf("bad git log line %q", l)
		}
		count := plural(files[f[0]], "file")
		if len(strings.Fields(f[1])) > 1 {
			count = "merge, " + count + " against its first parent"
		}
		fmt.Fprintf(&b, "%s %s %s %s (%s)\n", f[0][:12], f[3][:10], f[2], f[4], count)
	}
	return b.String(), nil
}

// blameHeader is blame's first line.
var blameHeader = regexp.MustCompile(`: blame of (.+), lines (\d+)–(\d+) of (\d+), (\d+) commits?; `)

// blameSpec: blame of 100 lines in the middle of the history's most
// changed file, against `git blame --porcelain -L` of the same lines. The
// lines (number, commit, number there, text) and the commits' lines
// (author, date, summary) must be git's, as the tool writes them.
func blameSpec(fx *fixture) (*spec, error) {
	t := fx.blame
	lines := fmt.Sprintf("%d,%d", t.start, t.end)
	gitArgs := []string{"blame", "--porcelain", "-L", lines, t.rev, "--", t.path}
	check := func(res *mcp.CallToolResult) error {
		text := resultText(res)
		m := blameHeader.FindStringSubmatch(text)
		if m == nil {
			return fmt.Errorf("no blame header: %.160q", text)
		}
		if m[1] != t.path || m[2] != strconv.Itoa(t.start) || m[3] != strconv.Itoa(t.end) || m[4] != strconv.Itoa(t.totalLines()) {
			return fmt.Errorf("blame of %s lines %s–%s of %s, want %s lines %d–%d of %d", m[1], m[2], m[3], m[4], t.path, t.start, t.end, t.totalLines())
		}
		if next, err := nextOf(res); err != nil || next != nil {
			return fmt.Errorf("a partial reply (%v)", err)
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		if err := check(res); err != nil {
			return err
		}
		out, err := fx.g.output(fx.dir, gitArgs...)
		if err != nil {
			return err
		}
		want, commits, err := blameText(string(out), t.end)
		if err != nil {
			return err
		}
		text := resultText(res)
		if m := blameHeader.FindStringSubmatch(text); m[5] != strconv.Itoa(commits) {
			return fmt.Errorf("%s commits, git blames %d", m[5], commits)
		}
		_, body, _ := strings.Cut(text, "\n")
		return sameLines("blame", body, want)
	}
	return &spec{args: map[string]any{"path": t.path, "ref": t.rev, "start_line": t.start, "end_line": t.end}, git: gitArgs,
		check: check, oracle: oracle, note: fmt.Sprintf("%s, %d lines at %s, lines %d–%d", t.path, t.totalLines(), t.rev, t.start, t.end)}, nil
}

// blameCommit is what git blame --porcelain tells of a commit once.
type blameCommit struct {
	author, summary string
	time            int64
	tz              string
}

// blameText reads git blame --porcelain and writes the blame tool's lines
// from it: "LINE SHORT ORIG  TEXT" (LINE padded to the width of last, ORIG
// to the widest), then "commits:" and each commit once, in the order of its
// first line, "SHORT DAY AUTHOR: SUMMARY" (the author's date in the
// author's zone). It returns the count of commits too.
func blameText(porcelain string, last int) (string, int, error) {
	type line struct {
		sha         string
		orig, final int
		text        string
	}
	var lines []line
	var order []string
	details := map[string]*blameCommit{}
	var cur *line
	for _, l := range strings.Split(strings.TrimSuffix(porcelain, "\n"), "\n") {
		if cur != nil {
			if strings.HasPrefix(l, "\t") {
				cur.text = l[1:]
				lines = append(lines, *cur)
				cur = nil
				continue
			}
			key, value, _ := strings.Cut(l, " ")
			c := details[cur.sha]
			switch key {
			case "author":
				c.author = value
			case "author-time":
				c.time, _ = strconv.ParseInt(value, 10, 64)
			case "author-tz":
				c.tz = value
			case "summary":
				c.summary = value
			}
			continue
		}
		f := strings.Fields(l)
		if len(f) < 3 || len(f[0]) < 40 {
			return "", 0, fmt.Errorf("git blame: unexpected line %q", l)
		}
		orig, err1 := strconv.Atoi(f[1])
		final, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			return "", 0, fmt.Errorf("git blame: unexpected line %q", l)
		}
		cur = &line{sha: f[0], orig: orig, final: final}
		if details[f[0]] == nil {
			details[f[0]] = &blameCommit{}
			order = append(order, f[0])
		}
	}
	lw, ow := len(strconv.Itoa(last)), 1
	for _, l := range lines {
		ow = max(ow, len(strconv.Itoa(l.orig)))
	}
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%*d %s %*d  %s\n", lw, l.final, l.sha[:12], ow, l.orig, l.text)
	}
	b.WriteString("commits:\n")
	for _, sha := range order {
		c := details[sha]
		fmt.Fprintf(&b, "%s %s %s: %s\n", sha[:12], authorDay(c.time, c.tz), c.author, c.summary)
	}
	return b.String(), len(order), nil
}

// authorDay is a date (seconds since the epoch, zone "+HHMM") as a day in
// that zone.
func authorDay(sec int64, tz string) string {
	offset := 0
	if len(tz) == 5 {
		hh, _ := strconv.Atoi(tz[1:3])
		mm, _ := strconv.Atoi(tz[3:5])
		offset = (hh*60 + mm) * 60
		if tz[0] == '-' {
			offset = -offset
		}
	}
	return time.Unix(sec, 0).In(time.FixedZone("", offset)).Format(time.DateOnly)
}

// pageBody is a first page's lines after the header, without the last
// line that says the next call; the next call, in _meta, must be the same
// tool from offset next.
func pageBody(res *mcp.CallToolResult, tool string, next int) (string, error) {
	_, body, _ := strings.Cut(resultText(res), "\n")
	i := strings.LastIndex(body, "\n[partial reply] Next part: call "+tool+" with ")
	if i < 0 || !strings.HasSuffix(body, "}\n") || strings.Count(body[i+1:], "\n") != 1 {
		return "", fmt.Errorf("%s: the text does not end with the next call", tool)
	}
	n, err := nextOf(res)
	if err != nil {
		return "", err
	}
	if n == nil || n.Tool != tool || n.Arguments["offset"] != float64(next) {
		return "", fmt.Errorf("%s: the next call in _meta is %s, want %s from offset %d", tool, jsonOf(n), tool, next)
	}
	return body[:i+1], nil
}

// sameLines compares a reply's lines with the ones written from git's
// output and names the first that differs.
func sameLines(tool, got, want string) error {
	if got == want {
		return nil
	}
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Errorf("%s: line %d is %q, from git %q", tool, i+2, g[i], w[i])
		}
	}
	return fmt.Errorf("%s: %d lines, from git %d", tool, len(g), len(w))
}

// plural is "1 file", "3 files", as the tools count.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// byteCount is a file's size as list_files writes it: "1 byte",
// "1,234 bytes".
func byteCount(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + " bytes"
}
