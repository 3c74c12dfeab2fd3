package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
)

// Real pull requests (issue 38): twelve large pull requests of git/git and
// prometheus/prometheus, served from local mirrors, each read whole with
// get_pull_request_diff as every client of clients.Known and as an
// unknown one, each on a server of its own. Every reply is held to that
// client's own rule (written again here from the clients' sources, as
// internal/server/clients_test.go has them), the parts joined are git's
// patch byte for byte, each part says "part k of n" with n the drain's,
// and list_pull_request_files and get_pull_request said that n
// beforehand. With --baseline, the same pull requests as VS Code and Codex
// on the baseline's build: parts before and after. Counted, not timed.
//
//	go run ./cmd/bench --only realprs --mirror git=/work/.mirror/git+git/repo \
//	    --mirror prometheus=/work/.mirror/prometheus+prometheus/repo --baseline 43eca83
//	go run ./cmd/bench --only "realprs prometheus#4679" ...   # one of them
//
// A drain whose parts do not join to git's patch leaves its parts' texts
// in a directory under os.TempDir(), which its error names.
//
// Without a mirror (--mirror, or BENCH_MIRRORS="git=PATH,prometheus=PATH")
// its pull requests are skipped.

// realPR is one pull request of a mirror.
type realPR struct {
	Repo  string `json:"repo"` // the --mirror name
	Index int    `json:"index"`
	What  string `json:"what"`
}

var realPRs = []realPR{
	{"git", 1778, "128 files, most of them renamed"},
	{"git", 1497, "103 files"},
	{"git", 2271, "710 files; .gitmodules' [submodule] lines"},
	{"git", 2203, "a 7,638-line translation (po/es.po) and a binary .mo"},
	{"git", 2291, "91 files; two merge bases"},
	{"git", 2294, "44 files, a new 994-line script"},
	{"prometheus", 4679, "a vendored moment.min.js; 35 KB lines of assets_vfsdata.go"},
	{"prometheus", 10208, "the old UI removed: minified bootstrap-datetimepicker.min.js"},
	{"prometheus", 10172, "a 935-line new file among Go changes"},
	{"prometheus", 1054, "vendored sarama (Godeps), based on its merge ref"},
	{"prometheus", 10642, "tsdb moves and rewrites"},
	{"prometheus", 10353, "230 files of small changes"},
}

// realOwnRule is a client's own rule: a result as the client counts it,
// as a share of what it passes whole (over 1: cut, filed or previewed).
type realOwnRule struct {
	unit  string
	share func(res *mcp.CallToolResult, declared int) float64
}

// realRules: one a known client (by its first name); a client added to
// clients.Known without one here stops the case.
var realRules = map[string]realOwnRule{
	"claude-code": {"UTF-16 units of the text, of the declared size", func(res *mcp.CallToolResult, declared int) float64 {
		if declared == 0 {
			declared = 50_000
		}
		return float64(utf16Len(strings.Join(textsOf(res), ""))) / float64(declared)
	}},
	"codex-mcp-client": {`bytes of "Wall time…Output:" and the content's JSON`, func(res *mcp.CallToolResult, _ int) float64 {
		return float64(len("Wall time: 3600.0000 seconds\nOutput:\n")+len(plainJSON(res.Content))) / 12_000
	}},
	"Visual Studio Code": {"UTF-16 units of its largest text item, of 8,192; bytes on the wire", func(res *mcp.CallToolResult, _ int) float64 {
		most := 0
		for _, t := range textsOf(res) {
			most = max(most, utf16Len(t))
		}
		return float64(most) / 8_192
	}},
	"gemini-cli-mcp-client": {"UTF-16 units of the text part and its wrapper", func(res *mcp.CallToolResult, _ int) float64 {
		if t := textsOf(res); len(t) == 1 {
			return float64(utf16Len(t[0])+41) / 40_000
		}
		return 0
	}},
	"copilot-cli": {"bytes of text", func(res *mcp.CallToolResult, _ int) float64 {
		return float64(len(strings.Join(textsOf(res), ""))) / 30_000
	}},
	"opencode": {"bytes or lines of the text", func(res *mcp.CallToolResult, _ int) float64 {
		j := strings.Join(textsOf(res), "\n\n")
		return max(float64(len(j))/51_200, float64(strings.Count(j, "\n")+1)/2_000)
	}},
	"goose-cli": {"characters of a text part", func(res *mcp.CallToolResult, _ int) float64 {
		most := 0
		for _, t := range textsOf(res) {
			most = max(most, utf8.RuneCountInString(t))
		}
		return float64(most) / 200_000
	}},
	"Cline":             {"no limit of its own", func(*mcp.CallToolResult, int) float64 { return 0 }},
	clients.CommandLine: {"no limit of its own", func(*mcp.CallToolResult, int) float64 { return 0 }},
}

// realDrain is one pull request read whole as one client.
type realDrain struct {
	Client string `json:"client"`
	Calls  int    `json:"calls"`
	// Said is the count list_pull_request_files gives beforehand, SaidPR
	// get_pull_request's; "about N" when not counted, "" when not said (an error).
	Said      string `json:"said"`
	SaidPR    string `json:"saidByGetPullRequest"`
	SeenBytes int64  `json:"seenBytes"` // as clients give the results to their model (seenBytes)
	WireBytes int64  `json:"wireBytes"`
	// MinFill is the least full part but the last, by the largest share
	// of a limit it is held to: the client's own in its unit, the
	// server's --max-bytes on the wire; for an unknown client, its
	// budget as the server measures it. nil with one part.
	MinFill     *float64 `json:"minFill"`
	MinFillPart int      `json:"minFillPart,omitempty"`
	Framed      int      `json:"framedLines,omitempty"` // lines the joined patch has with the server's leading \ (each noted)
	Under       int      `json:"partsUnder85"`          // parts but the last under 85% full
	Whole       bool     `json:"joinedIsGitsPatch"`     // but for framed lines
	Errors      []string `json:"errors,omitempty"`
}

// realPRResult is one pull request's drains.
type realPRResult struct {
	realPR
	Base       string       `json:"base"` // as the server takes it
	MergeBase  string       `json:"mergeBase"`
	PatchBytes int64        `json:"patchBytes"`
	Escaped    int64        `json:"escapedPatchBytes"`
	Drains     []*realDrain `json:"drains"`
	Baseline   []*realDrain `json:"baseline,omitempty"` // VS Code and Codex on the baseline's build
	Skipped    string       `json:"skipped,omitempty"`
}

// mirrorFlags reads --mirror NAME=PATH, repeatable.
type mirrorFlags map[string]string

func (m mirrorFlags) String() string { return fmt.Sprint(map[string]string(m)) }

func (m mirrorFlags) Set(v string) error {
	for _, kv := range strings.Split(v, ",") {
		name, path, ok := strings.Cut(kv, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("--mirror %q: want NAME=PATH", kv)
		}
		m[name] = path
	}
	return nil
}

// runRealPRs drains every pull request of realPRs as every client.
func runRealPRs(ctx context.Context, o *options, g gitRunner, bin, baseBin, logDir string, logf logFunc) ([]*realPRResult, error) {
	names := clientNames()
	for _, n := range names[:len(names)-1] {
		if _, ok := realRules[n]; !ok {
			return nil, fmt.Errorf("realprs: no rule written for the known client %q", n)
		}
	}
	var out []*realPRResult
	for _, pr := range realPRs {
		res := &realPRResult{realPR: pr}
		out = append(out, res)
		label := fmt.Sprintf("%s#%d", pr.Repo, pr.Index)
		if !strings.Contains("realprs "+label, strings.ToLower(o.only)) && !strings.Contains("realprs", strings.ToLower(o.only)) {
			res.Skipped = "not --only " + o.only
			continue
		}
		dir := o.mirrors[pr.Repo]
		if dir == "" {
			res.Skipped = "no --mirror " + pr.Repo
			continue
		}
		want, err := res.prepare(g, dir)
		if err != nil {
			return nil, err
		}
		logf("realprs %s: %s of patch, merge base %.12s of %s", label, humanBytes(res.PatchBytes), res.MergeBase, res.Base)
		each := func(b, name string) (*realDrain, error) {
			s, err := startServerAs(ctx, b, dir, filepath.Join(logDir, "realprs-"+fileWord(name)+".log"), name)
			if err != nil {
				return nil, err
			}
			defer s.close()
			return realDrainAs(ctx, s, name, pr.Index, want, b == bin)
		}
		for _, name := range names {
			d, err := each(bin, name)
			if err != nil {
				return nil, fmt.Errorf("%s as %s: %w", label, name, err)
			}
			res.Drains = append(res.Drains, d)
			logf("realprs %s: as %s, %d calls, said %s; %d errors", label, name, d.Calls, d.Said, len(d.Errors))
		}
		for _, name := range []string{"Visual Studio Code", "codex-mcp-client"} {
			if baseBin == "" {
				break
			}
			d, err := each(baseBin, name)
			if err != nil {
				return nil, fmt.Errorf("%s as %s on the baseline: %w", label, name, err)
			}
			res.Baseline = append(res.Baseline, d)
			logf("realprs %s: as %s on the baseline, %d calls", label, name, d.Calls)
		}
	}
	return out, nil
}

// prepare finds the pull request's base as the server takes it locally
// (refs/pull/N/merge^1 where fetched, else the checked-out branch), and
// git's patch of it, with every byte that is not UTF-8 shown as U+FFFD
// as the server shows it.
func (res *realPRResult) prepare(g gitRunner, dir string) ([]byte, error) {
	head := fmt.Sprintf("refs/pull/%d/head", res.Index)
	res.Base = fmt.Sprintf("refs/pull/%d/merge^1", res.Index)
	if _, err := g.line(dir, "rev-parse", "--verify", "--quiet", res.Base); err != nil {
		res.Base = "HEAD"
	}
	var err error
	if res.MergeBase, err = g.line(dir, "merge-base", res.Base, head); err != nil {
		return nil, err
	}
	want, err := g.output(dir, "diff", "-M", "-l1000", res.MergeBase, head)
	if err != nil {
		return nil, err
	}
	res.PatchBytes = int64(len(want))
	if res.Escaped, err = jsonEscaped(want); err != nil {
		return nil, err
	}
	return []byte(asShown(string(want))), nil
}

var (
	wholeDiffRe = regexp.MustCompile(`the whole diff: (about )?(\d+) parts|the whole diff fits one reply`)
	partRe      = regexp.MustCompile(`; part (\d+)(?: of (\d+))?: `)
)

// realDrainAs reads pull request index whole on s as the client name and
// holds the joined parts to want and, when current (not the baseline's
// build, which neither counted nor numbered its parts), every reply to
// that client's rule and its number, and the count said beforehand to
// the drain; what does not hold is said in Errors.
func realDrainAs(ctx context.Context, s *session, name string, index int, want []byte, current bool) (*realDrain, error) {
	d, _, err := realDrainOf(ctx, s, name, benchOwner, benchRepo, index, want, current)
	return d, err
}

// realDrainOf is realDrainAs of owner/repo's pull request; it also gives
// the drain, nil when a call failed (said in Errors).
func realDrainOf(ctx context.Context, s *session, name, owner, repo string, index int, want []byte, current bool) (*realDrain, *drained, error) {
	args := map[string]any{"owner": owner, "repo": repo, "index": index}
	d := &realDrain{Client: name}
	said := func(tool string) (string, error) {
		res, err := s.call(ctx, tool, args)
		if err != nil {
			return "", err
		}
		first, _, _ := strings.Cut(resultText(res), "\n")
		m := wholeDiffRe.FindStringSubmatch(first)
		switch {
		case m == nil:
			return "", fmt.Errorf("%s does not say how many parts the diff takes: %.300q", tool, first)
		case m[2] == "":
			return "1", nil
		}
		return m[1] + m[2], nil
	}
	var err error
	if current {
		// A count not said is a failure of the drain, not of the case.
		if d.Said, err = said("list_pull_request_files"); err != nil {
			d.Errors = append(d.Errors, err.Error())
		}
		if d.SaidPR, err = said("get_pull_request"); err != nil {
			d.Errors = append(d.Errors, err.Error())
		}
	}
	dr, err := drain(ctx, s, "get_pull_request_diff", args)
	if err != nil {
		d.Errors = append(d.Errors, err.Error())
		return d, nil, nil
	}
	d.Calls, d.WireBytes = dr.calls, dr.bytes
	for _, n := range dr.seen {
		d.SeenBytes += n
	}
	if current {
		d.checkReplies(dr, s.declared["get_pull_request_diff"])
	}
	joined, err := diff.Join(dr.parts...)
	if err != nil {
		d.Errors = append(d.Errors, fmt.Sprintf("joining %d parts: %v", dr.calls, err))
		return d, dr, nil
	}
	framed, bad, line := framedOnly(joined, want)
	d.Framed, d.Whole = framed, bad == ""
	switch {
	case bad != "":
		d.Errors = append(d.Errors, fmt.Sprintf("the %d parts joined (%d bytes) are not git's patch (%d bytes): %s%s%s", dr.calls, len(joined), len(want), bad, partHolding(dr, line), keepParts(dr, name, index)))
	case d.Framed > 0 && !strings.Contains(dr.text.String(), "\n[framed: "):
		d.Errors = append(d.Errors, fmt.Sprintf("%d lines framed with no [framed: …] note", d.Framed))
	}
	return d, dr, nil
}

// checkReplies holds each reply of the drain to the client's rule and its
// number, and the count said beforehand to the drain; declared is the
// size the tool declares.
func (d *realDrain) checkReplies(dr *drained, declared int) {
	name := d.Client
	if (d.Said != "" && d.Said != strconv.Itoa(d.Calls)) || (d.SaidPR != "" && d.SaidPR != strconv.Itoa(d.Calls)) {
		d.Errors = append(d.Errors, fmt.Sprintf("list_pull_request_files said %s parts, get_pull_request %s, the drain took %d", d.Said, d.SaidPR, d.Calls))
	}
	rule, known := realRules[name]
	budget := clients.NewTable(replyLimit, nil).For(name)
	for i, res := range dr.results {
		text := resultText(res)
		where := fmt.Sprintf("part %d of %d", i+1, dr.calls)
		if dr.calls > 1 {
			first, _, _ := strings.Cut(text, "\n")
			if m := partRe.FindStringSubmatch(first); m == nil || m[1] != strconv.Itoa(i+1) || m[2] != strconv.Itoa(dr.calls) {
				d.Errors = append(d.Errors, fmt.Sprintf("%s: its first line does not say %q: %.300q", where, where, first))
			}
		}
		wire := float64(dr.sizes[i]) / replyLimit
		var fill float64
		if known {
			fill = max(rule.share(res, declared), wire)
		} else {
			// Every known client's rule passes it whole; filled to the
			// server's measure of an unknown client's budget.
			for n, r := range realRules {
				if sh := r.share(res, declared); sh > 1 {
					d.Errors = append(d.Errors, fmt.Sprintf("%s: %.1f%% of %s's limit (%s)", where, sh*100, n, r.unit))
				}
			}
			fill = max(float64(dr.seen[i])/float64(budget.Bytes), float64(dr.lines[i])/float64(budget.Lines), wire)
		}
		if fill > 1 {
			d.Errors = append(d.Errors, fmt.Sprintf("%s: %.1f%% of what the client passes whole", where, fill*100))
		}
		if i < dr.calls-1 && fill < clientsFillTarget {
			d.Under++
		}
		if i < dr.calls-1 && (d.MinFill == nil || fill < *d.MinFill) {
			d.MinFill, d.MinFillPart = fptr(fill), i+1
		}
	}
}

// framedOnly compares the joined patch with git's line by line: how many
// lines are git's with the server's \ put before their text (after git's
// prefix, and any blanks), and the first other difference ("" when none)
// with the joined line that differs.
func framedOnly(joined, want []byte) (framed int, bad, line string) {
	if bytes.Equal(joined, want) {
		return 0, "", ""
	}
	got, exp := strings.SplitAfter(string(joined), "\n"), strings.SplitAfter(string(want), "\n")
	file := ""
	for i := 0; i < min(len(got), len(exp)); i++ {
		if strings.HasPrefix(exp[i], "diff --git ") {
			file = strings.TrimSpace(exp[i])
		}
		if got[i] == exp[i] {
			continue
		}
		if g, e := got[i], exp[i]; len(g) == len(e)+1 && len(e) > 0 {
			body := strings.TrimLeft(e[1:], " \t")
			at := len(e) - len(body)
			if g[:at] == e[:at] && g[at] == '\\' && g[at+1:] == e[at:] {
				framed++
				continue
			}
		}
		return framed, fmt.Sprintf("line %d of git's patch (in %s) is %.200q, joined %.200q", i+1, file, exp[i], got[i]), got[i]
	}
	if len(got) != len(exp) {
		return framed, fmt.Sprintf("joined %d lines, git's patch %d", len(got), len(exp)), ""
	}
	return framed, "", ""
}

// partHolding names the first part whose text holds line, to find where
// a difference came from.
func partHolding(dr *drained, line string) string {
	if strings.TrimSpace(line) == "" {
		return ""
	}
	for k, res := range dr.results {
		if strings.Contains(resultText(res), line) {
			return fmt.Sprintf("; first in part %d", k+1)
		}
	}
	return ""
}

// keepParts writes the drain's texts, one file a part, for a failure to
// be looked at; it says where.
func keepParts(dr *drained, client string, index int) string {
	dir, err := os.MkdirTemp("", fmt.Sprintf("realprs-%d-%s-", index, fileWord(client)))
	if err != nil {
		return ""
	}
	for i, res := range dr.results {
		if os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%03d.txt", i+1)), []byte(resultText(res)), 0o644) != nil {
			return ""
		}
	}
	return "; the parts are in " + dir
}

func textsOf(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return out
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// plainJSON is v's JSON with HTML not escaped (as serde writes it).
func plainJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// asShown is s with every byte that is not part of valid UTF-8 replaced
// by U+FFFD, one for one, as a reply shows it.
func asShown(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// mirrorsFromEnv is BENCH_MIRRORS ("git=PATH,prometheus=PATH").
func mirrorsFromEnv() mirrorFlags {
	m := mirrorFlags{}
	if v := os.Getenv("BENCH_MIRRORS"); v != "" {
		_ = m.Set(v)
	}
	return m
}
