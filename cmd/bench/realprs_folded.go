package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/fold"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Repeated changes folded (issue 40): the pull requests of realPRs read
// whole with get_pull_request_diff, plain and with collapseRepeated, at
// four budgets (an unknown client's 8,000 bytes, Codex's 12,000, Claude
// Code's declared size, and a client with no limit of its own under the
// server's 65,536), each client on a server of its own. Counted, not
// timed: the parts (calls) and the bytes of text the model reads (each
// result's text items joined, which every client's rule passes whole).
// Each plain drain is held to git's patch joined (as realprs holds it),
// each folded drain to its parts, joined, rebuilding git's patch
// (fold.Rebuild of them = fold.Normalize of git's; if not, the parts are
// left in a directory under os.TempDir(), which the error names). For git
// 1497, a series, its commits read one by one with get_commit as well.
//
//	XDG_CACHE_HOME=/tmp/benchxdg go run ./cmd/bench --only realprs-folded \
//	    --mirror git=/work/.mirror/git+git/repo --mirror prometheus=/work/.mirror/prometheus+prometheus/repo
//	go run ./cmd/bench --only "realprs-folded git#1497" ...   # one of them

// foldedClients are the budgets, by the client name the server sizes to.
var foldedClients = []struct{ name, label string }{
	{unknownClient, "an unknown client (8,000 bytes, 2,000 lines)"},
	{"codex-mcp-client", "Codex (12,000 bytes of its header and the content's JSON)"},
	{"claude-code", "Claude Code (its declared size: the server's 65,536)"},
	{"Cline", "Cline (no limit of its own: the server's 65,536 bytes)"},
}

// foldedSeries is the pull request read commit by commit as well.
const foldedSeries = 1497

// foldedCost is one drain: its calls and the bytes of text the model reads.
type foldedCost struct {
	Calls     int   `json:"calls"`
	TextBytes int64 `json:"textBytes"`
}

// foldedDrain is a pull request (or a series' commits, summed) read as
// one client, plain and folded.
type foldedDrain struct {
	Client  string     `json:"client"`
	Plain   foldedCost `json:"plain"`
	Folded  foldedCost `json:"folded"`
	Rebuilt bool       `json:"rebuilt"` // every folded drain rebuilds git's patch
	Framed  int        `json:"framedLines,omitempty"`
	// Offer is the plain first part's offer, "N instead of M" parts.
	Offer  string   `json:"offer,omitempty"`
	Errors []string `json:"errors,omitempty"`
	folded []byte   // the folded text joined (the last drain's)
}

// foldedPRResult is one pull request's drains.
type foldedPRResult struct {
	realPR
	MergeBase    string         `json:"mergeBase"`
	PatchBytes   int64          `json:"patchBytes"`
	Summary      string         `json:"summary"` // the folded text's first line
	ChangedLines int            `json:"changedLines"`
	PatternLines int            `json:"patternLines"`
	Patterns     []string       `json:"patterns"`
	SameFolded   bool           `json:"sameFoldedTextAtEveryBudget"`
	Drains       []*foldedDrain `json:"drains"`
	Commits      []*foldedDrain `json:"commitByCommit,omitempty"` // the series', summed over its commits
	CommitCount  int            `json:"commits,omitempty"`
	CommitPatch  int64          `json:"commitsPatchBytes,omitempty"` // git's patches of the commits, summed
	Skipped      string         `json:"skipped,omitempty"`
}

var (
	foldedOfferRe   = regexp.MustCompile(`collapseRepeated reads this diff in (\d+) parts? instead of (\d+)\]`)
	foldedSummaryRe = regexp.MustCompile(`^(\d+) of (\d+) changed lines? follow (\d+) patterns?; (\d+)`)
)

// runFoldedPRs drains every pull request of realPRs as each client of
// foldedClients, plain and folded, prints the tables and writes the
// results to --json; 1 when a drain failed.
func runFoldedPRs(ctx context.Context, o *options, g gitRunner, bin, logDir string, logf logFunc, stdout io.Writer) (int, error) {
	only := strings.ToLower(o.only)
	var out []*foldedPRResult
	for _, pr := range realPRs {
		res := &foldedPRResult{realPR: pr}
		out = append(out, res)
		label := fmt.Sprintf("%s#%d", pr.Repo, pr.Index)
		dir := o.mirrors[pr.Repo]
		switch {
		case only != "realprs-folded" && !strings.Contains("realprs-folded "+label, only):
			res.Skipped = "not --only " + o.only
		case dir == "":
			res.Skipped = "no --mirror " + pr.Repo
		}
		if res.Skipped != "" {
			continue
		}
		rp := &realPRResult{realPR: pr}
		want, err := rp.prepare(g, dir)
		if err != nil {
			return 1, err
		}
		res.MergeBase, res.PatchBytes = rp.MergeBase, rp.PatchBytes
		logf("realprs-folded %s: %s of patch", label, humanBytes(res.PatchBytes))
		for _, c := range foldedClients {
			s, err := startServerAs(ctx, bin, dir, filepath.Join(logDir, "realprs-folded-"+fileWord(c.name)+".log"), c.name)
			if err != nil {
				return 1, fmt.Errorf("%s as %s: %w", label, c.name, err)
			}
			args := map[string]any{"owner": benchOwner, "repo": benchRepo, "index": pr.Index}
			d := foldedDrainOf(ctx, s, c.name, "get_pull_request_diff", args, want, pr.Index)
			res.Drains = append(res.Drains, d)
			if pr.Repo == "git" && pr.Index == foldedSeries {
				cd, n, err := res.foldedCommits(ctx, s, g, dir, c.name, res.MergeBase, fmt.Sprintf("refs/pull/%d/head", pr.Index))
				if err != nil {
					s.close()
					return 1, fmt.Errorf("%s as %s, commit by commit: %w", label, c.name, err)
				}
				res.Commits, res.CommitCount = append(res.Commits, cd), n
			}
			s.close()
			logf("realprs-folded %s as %s: plain %d parts, %s; folded %d parts, %s; rebuilt %v; %d errors",
				label, c.name, d.Plain.Calls, humanBytes(d.Plain.TextBytes), d.Folded.Calls, humanBytes(d.Folded.TextBytes), d.Rebuilt, len(d.Errors))
		}
		res.describe()
	}
	writeFoldedPRs(stdout, out)
	data, _ := json.MarshalIndent(out, "", "  ")
	if err := os.WriteFile(o.jsonPath, append(data, '\n'), 0o644); err != nil {
		return 1, err
	}
	logf("results written to %s", o.jsonPath)
	for _, res := range out {
		for _, d := range append(res.Drains, res.Commits...) {
			if len(d.Errors) > 0 {
				return 1, errors.New("some folded drains failed (FAILED above)")
			}
		}
	}
	return 0, nil
}

// describe reads the folded text's first line and patterns, and whether
// every budget's parts joined into the same folded text.
func (res *foldedPRResult) describe() {
	var first []byte
	res.SameFolded = true
	for _, d := range res.Drains {
		if first == nil {
			first = d.folded
		}
		res.SameFolded = res.SameFolded && d.folded != nil && bytes.Equal(first, d.folded)
	}
	if first == nil {
		return
	}
	head, _, _ := bytes.Cut(first, []byte(fold.Separator))
	lines := strings.Split(strings.TrimSuffix(string(head), "\n"), "\n")
	res.Summary = lines[0]
	if m := foldedSummaryRe.FindStringSubmatch(lines[0]); m != nil {
		res.PatternLines, _ = strconv.Atoi(m[1])
		res.ChangedLines, _ = strconv.Atoi(m[2])
	}
	res.Patterns = lines[1:] // the pattern lines, "#N …"
}

// foldedDrainOf drains tool with args as client, plain then folded, on
// s; want is git's patch as a reply shows it. The plain parts joined must
// be want (but for framed lines), the folded parts joined must rebuild
// it.
func foldedDrainOf(ctx context.Context, s *session, client, tool string, args map[string]any, want []byte, index int) *foldedDrain {
	d := &foldedDrain{Client: client}
	plain, err := drain(ctx, s, tool, args)
	if err != nil {
		d.Errors = append(d.Errors, "plain: "+err.Error())
	} else {
		d.Plain = costOf(plain)
		if m := foldedOfferRe.FindStringSubmatch(resultText(plain.results[0])); m != nil {
			d.Offer = m[1] + " instead of " + m[2]
		}
		parts := plain.parts
		if tool == "get_commit" {
			parts = commitParts(plain)
		}
		joined, err := diff.Join(parts...)
		if err != nil {
			d.Errors = append(d.Errors, fmt.Sprintf("plain: joining %d parts: %v", plain.calls, err))
		} else if framed, bad, _ := framedOnly(joined, want); bad != "" {
			d.Errors = append(d.Errors, fmt.Sprintf("plain: the %d parts joined are not git's patch: %s%s", plain.calls, bad, keepParts(plain, "plain-"+client, index)))
		} else {
			d.Framed = framed
		}
	}
	fargs := maps.Clone(args)
	fargs["collapseRepeated"] = true
	folded, err := drain(ctx, s, tool, fargs)
	if err != nil {
		d.Errors = append(d.Errors, "folded: "+err.Error())
		return d
	}
	d.Folded = costOf(folded)
	if said := fmt.Sprintf("%d instead of %d", d.Folded.Calls, d.Plain.Calls); d.Offer != "" && d.Offer != said {
		d.Errors = append(d.Errors, fmt.Sprintf("the offer says %s parts, the drains took %s", d.Offer, said))
	}
	var texts []string
	for i, res := range folded.results {
		t := resultText(res)
		if tool == "get_commit" && i == 0 {
			// The commit comes first; the folded text after "Patch against".
			_, t, _ = strings.Cut(t, "\nPatch against ")
		}
		if tool == "get_commit" && commitStageRe.MatchString(t) {
			continue
		}
		texts = append(texts, t)
	}
	if d.folded, err = joinFoldedParts(texts); err == nil {
		err = rebuilds(d.folded, want)
	}
	if err != nil {
		d.Errors = append(d.Errors, fmt.Sprintf("folded: the %d parts do not rebuild git's patch: %v%s", folded.calls, err, keepParts(folded, "folded-"+client, index)))
		return d
	}
	d.Rebuilt = true
	return d
}

// add adds d's costs to sum's.
func (sum *foldedDrain) add(d *foldedDrain) {
	sum.Plain.Calls, sum.Plain.TextBytes = sum.Plain.Calls+d.Plain.Calls, sum.Plain.TextBytes+d.Plain.TextBytes
	sum.Folded.Calls, sum.Folded.TextBytes = sum.Folded.Calls+d.Folded.Calls, sum.Folded.TextBytes+d.Folded.TextBytes
}

func costOf(dr *drained) foldedCost {
	c := foldedCost{Calls: dr.calls}
	for _, res := range dr.results {
		c.TextBytes += int64(len(resultText(res)))
	}
	return c
}

// commitParts are a plain get_commit drain's patches: the first part's
// after its commit, from its "Patch against" line; the parts that go on
// with the commit's parents or message are not the patch's.
func commitParts(dr *drained) [][]byte {
	var parts [][]byte
	for i, p := range dr.parts {
		t := resultText(dr.results[i])
		if i == 0 {
			_, after, _ := strings.Cut(t, "\nPatch against ")
			if p = []byte(foldedPatchOf(after)); len(p) == 0 {
				continue // the patch starts in a later part
			}
		}
		if !commitStageRe.MatchString(t) {
			parts = append(parts, p)
		}
	}
	return parts
}

// commitStageRe is the first line of a get_commit part that goes on with
// the commit's parents or message (get_commit_stages.go): such parts come
// before the patch, which starts in a part of its own.
var commitStageRe = regexp.MustCompile(`^\S+: commit [0-9a-f]+, (?:parents|message bytes) \d+–\d+ of \d+`)

// foldedCommits reads the commits of base..head, oldest first, one by
// one with get_commit, plain and folded, as client; their costs summed,
// each held as foldedDrainOf holds a drain to `git diff -M` of the commit
// and its first parent.
func (res *foldedPRResult) foldedCommits(ctx context.Context, s *session, g gitRunner, dir, client, base, head string) (*foldedDrain, int, error) {
	list, err := g.output(dir, "rev-list", "--reverse", base+".."+head)
	if err != nil {
		return nil, 0, err
	}
	shas := strings.Fields(string(list))
	sum := &foldedDrain{Client: client, Rebuilt: true}
	res.CommitPatch = 0
	for i, sha := range shas {
		patch, err := g.output(dir, "diff", "-M", "-l1000", sha+"^1", sha)
		if err != nil {
			return nil, 0, err
		}
		res.CommitPatch += int64(len(patch))
		d := foldedDrainOf(ctx, s, client, "get_commit", map[string]any{"owner": benchOwner, "repo": benchRepo, "ref": sha}, []byte(asShown(string(patch))), foldedSeries*100+i+1)
		sum.add(d)
		sum.Rebuilt = sum.Rebuilt && d.Rebuilt
		sum.Framed += d.Framed
		for _, e := range d.Errors {
			sum.Errors = append(sum.Errors, fmt.Sprintf("commit %d of %d (%.12s): %s", i+1, len(shas), sha, e))
		}
	}
	return sum, len(shas), nil
}

// joinFoldedParts is internal/server/folded_test.go's joinFolded: the
// texts of a folded drain's parts put back together into the folded
// text. Each part's first line is its header; outside the rest, notes
// ("[…]") and empty lines are dropped and a line in pieces is joined
// (without its line feed when its marker says it goes on); between
// fold.Separator and fold.SitesSeparator, the rest's parts joined as any
// diff's (diff.Join).
func joinFoldedParts(parts []string) ([]byte, error) {
	const (
		zoneHead = iota
		zoneRest
		zoneTail
	)
	var own strings.Builder // the patterns, then the sites
	var rest [][]byte
	zone := zoneHead
	piece, goesOn := false, false
	for _, part := range parts {
		_, body, _ := strings.Cut(part, "\n")
		var restText strings.Builder
		for _, l := range strings.SplitAfter(body, "\n") {
			switch {
			case zone == zoneRest && l == fold.SitesSeparator:
				own.WriteString(l)
				zone = zoneTail
			case zone == zoneRest:
				restText.WriteString(l)
			case piece:
				if goesOn {
					l = strings.TrimSuffix(l, "\n")
				}
				own.WriteString(l)
				piece = false
			case strings.HasPrefix(l, text.PieceOpener):
				piece, goesOn = true, strings.HasSuffix(l, text.PieceMore)
			case strings.HasPrefix(l, "["), l == "":
			default:
				own.WriteString(l)
				if l == fold.Separator {
					zone = zoneRest
				}
			}
		}
		if p := foldedPatchOf("x\n" + restText.String()); p != "" {
			rest = append(rest, []byte(p))
		}
	}
	if zone != zoneTail {
		return nil, errors.New("the parts end before the sites")
	}
	joined, err := diff.Join(rest...)
	if err != nil {
		return nil, fmt.Errorf("joining the rest: %w", err)
	}
	patterns, sites, _ := strings.Cut(own.String(), fold.Separator)
	return []byte(patterns + fold.Separator + string(joined) + sites), nil
}

// foldedPatchOf is internal/server/paging_test.go's patchOf: the patch
// after a part's first line, before its notes (an empty line, a line
// that starts with "[").
func foldedPatchOf(s string) string {
	if !strings.HasPrefix(s, "diff --git ") {
		_, s, _ = strings.Cut(s, "\n")
	}
	lines := strings.SplitAfter(s, "\n")
	end := len(lines)
	for end > 0 && (strings.HasPrefix(lines[end-1], "[") || lines[end-1] == "" || lines[end-1] == "\n") {
		end--
	}
	return strings.Join(lines[:end], "")
}

// rebuilds: fold.Rebuild of the folded text is fold.Normalize of patch;
// else the first line where they differ.
func rebuilds(folded, patch []byte) error {
	got, err := fold.Rebuild(folded)
	if err != nil {
		return fmt.Errorf("fold.Rebuild: %w", err)
	}
	want, err := fold.Normalize(patch)
	if err != nil {
		return fmt.Errorf("fold.Normalize of git's patch: %w", err)
	}
	if bytes.Equal(got, want) {
		return nil
	}
	g, w := strings.SplitAfter(string(got), "\n"), strings.SplitAfter(string(want), "\n")
	for i := 0; i < min(len(g), len(w)); i++ {
		if g[i] != w[i] {
			return fmt.Errorf("rebuilt %d bytes, git's %d normalized; line %d is %.200q, git's %.200q", len(got), len(want), i+1, g[i], w[i])
		}
	}
	return fmt.Errorf("rebuilt %d lines, git's %d normalized", len(g), len(w))
}

// writeFoldedPRs prints a table per budget, the patterns of each pull
// request, the series read commit by commit, and every failure.
func writeFoldedPRs(w io.Writer, prs []*foldedPRResult) {
	fmt.Fprintf(w, "\nReal pull requests read whole with get_pull_request_diff, plain and with collapseRepeated (issue 40); bytes: the text the model reads\n")
	for k, c := range foldedClients {
		fmt.Fprintf(w, "\nAs %s:\n\n", c.label)
		fmt.Fprintln(w, "| pull request | changed lines | lines in patterns | plain parts | folded parts | plain bytes | folded bytes | folded÷plain | rebuilt ok | offered (parts) |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
		var sum foldedDrain
		for _, pr := range prs {
			if pr.Skipped != "" || k >= len(pr.Drains) {
				continue
			}
			d := pr.Drains[k]
			sum.add(d)
			fmt.Fprintf(w, "| %s %d | %s | %s (%.0f%%) | %d | %d | %s | %s | %s | %s | %s |\n", pr.Repo, pr.Index, digits(int64(pr.ChangedLines)),
				digits(int64(pr.PatternLines)), 100*float64(pr.PatternLines)/float64(max(1, pr.ChangedLines)), d.Plain.Calls, d.Folded.Calls,
				digits(d.Plain.TextBytes), digits(d.Folded.TextBytes), foldedRatio(d.Folded.TextBytes, d.Plain.TextBytes), rebuiltWord(d), cmp.Or(d.Offer, "-"))
		}
		fmt.Fprintf(w, "| total | | | %d | %d | %s | %s | %s | | |\n", sum.Plain.Calls, sum.Folded.Calls,
			digits(sum.Plain.TextBytes), digits(sum.Folded.TextBytes), foldedRatio(sum.Folded.TextBytes, sum.Plain.TextBytes))
	}
	fmt.Fprintf(w, "\nThe folded texts (the same at every budget unless said):\n\n")
	for _, pr := range prs {
		if pr.Skipped != "" {
			continue
		}
		same := map[bool]string{false: " (NOT the same folded text at every budget)"}[pr.SameFolded]
		fmt.Fprintf(w, "- %s %d (%s of patch): %s%s\n", pr.Repo, pr.Index, humanBytes(pr.PatchBytes), pr.Summary, same)
		for _, p := range pr.Patterns[:min(3, len(pr.Patterns))] {
			fmt.Fprintf(w, "  - `` %.160s ``\n", p)
		}
		if len(pr.Patterns) > 3 {
			fmt.Fprintf(w, "  - … %d more\n", len(pr.Patterns)-3)
		}
	}
	for _, pr := range prs {
		if len(pr.Commits) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s %d, %d commits: the whole diff (get_pull_request_diff) against its commits one by one (get_commit, summed); git's patches: %s whole, %s the commits' summed\n\n",
			pr.Repo, pr.Index, pr.CommitCount, digits(pr.PatchBytes), digits(pr.CommitPatch))
		fmt.Fprintln(w, "| budget | whole plain | whole folded | commits plain | commits folded | commits plain ÷ whole plain | commits folded ÷ whole folded | rebuilt ok |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---|")
		for k, c := range pr.Commits {
			d := pr.Drains[k]
			cost := func(f foldedCost) string {
				return fmt.Sprintf("%d parts, %s bytes", f.Calls, digits(f.TextBytes))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", foldedClients[k].name, cost(d.Plain), cost(d.Folded), cost(c.Plain), cost(c.Folded),
				foldedRatio(c.Plain.TextBytes, d.Plain.TextBytes), foldedRatio(c.Folded.TextBytes, d.Folded.TextBytes), rebuiltWord(c))
		}
	}
	for _, pr := range prs {
		for _, ds := range [][]*foldedDrain{pr.Drains, pr.Commits} {
			for _, d := range ds {
				for _, e := range d.Errors {
					fmt.Fprintf(w, "FAILED %s#%d as %s: %s\n", pr.Repo, pr.Index, d.Client, e)
				}
				if d.Framed > 0 {
					fmt.Fprintf(w, "%s#%d as %s: %d framed lines in the plain drain\n", pr.Repo, pr.Index, d.Client, d.Framed)
				}
			}
		}
	}
}

func foldedRatio(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}

func rebuiltWord(d *foldedDrain) string {
	if !d.Rebuilt {
		return "NO"
	}
	if len(d.Errors) > 0 {
		return "yes (plain: FAILED)"
	}
	return "yes"
}
