package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
)

// replyLimit is the server's default reply limit (--max-bytes), which the
// bench does not change: what is measured is the server as it ships.
const replyLimit = 65536

// drainSpec: a paged diff followed from its first part to its last through
// the next calls, against git's patch of the range.
type drainSpec struct {
	want    []byte // git diff -M <merge base> <head>
	escaped int64  // want's bytes inside a JSON string
	scratch string // where a work tree of the merge base is made for git apply --check
}

// pagingResult is what a drained diff is held to (issue 13): calls, bytes
// on the wire and time, each against its target.
type pagingResult struct {
	PatchBytes        int64   `json:"patchBytes"`        // git's patch
	EscapedPatchBytes int64   `json:"escapedPatchBytes"` // the same inside a JSON string
	Limit             int     `json:"replyLimit"`
	Calls             int     `json:"calls"`
	CallsTarget       float64 `json:"callsTarget"` // 1.1 × ceil(escaped / limit) + 2
	ReplyBytes        int64   `json:"replyBytes"`  // JSON-RPC results of every call, as sent
	ReplyRatio        float64 `json:"replyRatio"`  // ReplyBytes / EscapedPatchBytes
	MaxReplyBytes     int64   `json:"maxReplyBytes"`
	// The longest result in characters, and what the tool declares in
	// _meta["anthropic/maxResultSizeChars"] (issue 23): Claude Code keeps
	// a longer result out of the conversation.
	MaxReplyChars int     `json:"maxReplyChars"`
	DeclaredChars int     `json:"declaredMaxResultSizeChars"`
	TimeRatio     float64 `json:"timeRatio"` // drain / one git diff
	// The same drains through leanClient, and one git diff in the same
	// rounds.
	LeanMs    float64 `json:"leanClientMs"`
	LeanGitMs float64 `json:"leanGitMs"`
	LeanRatio float64 `json:"leanClientRatio"`
	// The server process's CPU time over a drain through the go-sdk
	// client (median; its git children not included): the server's own
	// share of the time, steadier than the time on a shared machine.
	ServerCPUMs float64 `json:"serverCpuMs"`
	// The bench process's CPU time over the same drains: the go-sdk
	// client's work of sending the calls and decoding the replies.
	ClientCPUMs float64 `json:"clientCpuMs"`
	CallsMet    bool    `json:"callsMet"`
	BytesMet    bool    `json:"bytesMet"`
	TimeMet     bool    `json:"timeMet"`
	Joined      bool    `json:"joinedIsGitsPatch"`
	Applies     bool    `json:"appliesOnMergeBase"`
	// Each call of the checked drain: its result's bytes as sent, its
	// patch's bytes, and its round trip.
	ResultBytes []int64   `json:"resultBytes"`
	PartBytes   []int     `json:"partPatchBytes"`
	CallMs      []float64 `json:"callMs"`
}

const (
	pagingBytesTarget = 1.10
	pagingTimeTarget  = 3.0
)

// pagingTarget: all three of issue 13's targets for a drained diff.
func pagingTarget() *target {
	return &target{text: fmt.Sprintf("calls ≤ 1.1×⌈E/limit⌉+2, bytes ≤ %.2f×E, time ≤ %.0f× git", pagingBytesTarget, pagingTimeTarget),
		met: func(r *row) bool {
			p := r.Paging
			return p != nil && p.CallsMet && p.BytesMet && p.TimeMet && p.Joined && p.Applies && p.DeclaredChars > 0 && p.MaxReplyChars <= p.DeclaredChars
		}}
}

// drained is one diff followed to its end.
type drained struct {
	parts    [][]byte
	results  []*mcp.CallToolResult
	sizes    []int64 // each result as sent
	seen     []int64 // each result as a client gives it to its model (seenBytes)
	lines    []int   // each result's lines of text (textLines)
	each     []time.Duration
	calls    int
	bytes    int64 // results as sent
	maxBytes int64
	maxChars int             // the longest result in characters (replyChars)
	text     strings.Builder // every result's text, joined
	d        time.Duration   // the calls' round trips, summed
}

// caller is a client of a server: the go-sdk's (session) or leanClient.
type caller interface {
	call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error)
	resultBytes() int64
	cpuTime() (time.Duration, error) // the server process's
}

// drain calls tool and follows the next calls to the end. Only the calls
// are timed; each part's patch is kept to be joined afterwards.
func drain(ctx context.Context, s caller, tool string, args map[string]any) (*drained, error) {
	out := &drained{}
	for {
		if out.calls == 10_000 {
			return nil, fmt.Errorf("%s: more than 10,000 parts", tool)
		}
		start := time.Now()
		res, err := s.call(ctx, tool, args)
		d := time.Since(start)
		out.d += d
		out.each = append(out.each, d)
		if err != nil {
			return nil, fmt.Errorf("part %d (arguments %s): %w", out.calls+1, jsonOf(args), err)
		}
		out.calls++
		out.results = append(out.results, res)
		n := s.resultBytes()
		out.bytes += n
		out.maxBytes = max(out.maxBytes, n)
		out.sizes = append(out.sizes, n)
		out.seen = append(out.seen, seenBytes(res))
		out.lines = append(out.lines, textLines(res))
		text := resultText(res)
		out.parts = append(out.parts, []byte(patchOf(text)))
		out.text.WriteString(text)
		out.maxChars = max(out.maxChars, replyChars(res))
		next, err := nextOf(res)
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", out.calls, err)
		}
		if next == nil {
			if strings.Contains(text, "Next part:") {
				return nil, fmt.Errorf("part %d says there is a next part but _meta has none", out.calls)
			}
			return out, nil
		}
		if next.Tool != tool {
			return nil, fmt.Errorf("part %d: the next call is to %s, not %s", out.calls, next.Tool, tool)
		}
		args = next.Arguments
	}
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// jsonEscaped is how many bytes b takes inside a JSON string as
// encoding/json writes it (HTML escaping on: the most the wire can take).
func jsonEscaped(b []byte) (int64, error) {
	data, err := json.Marshal(string(b))
	if err != nil {
		return 0, err
	}
	return int64(len(data) - 2), nil
}

// drainDiffSpec: get_pull_request_diff or get_diff of the paging range,
// drained.
func drainDiffSpec(fx *fixture, args map[string]any, scratch string) (*spec, error) {
	want, err := fx.g.output(fx.dir, "diff", "-M", fx.mergeBase, fx.head)
	if err != nil {
		return nil, err
	}
	esc, err := jsonEscaped(want)
	if err != nil {
		return nil, err
	}
	return &spec{args: args, git: []string{"diff", "-M", fx.mergeBase, fx.head},
		drain: &drainSpec{want: want, escaped: esc, scratch: scratch},
		note:  fmt.Sprintf("git's patch %s, %s JSON-escaped", humanBytes(int64(len(want))), humanBytes(esc))}, nil
}

// checkDrained: every part within the reply limit, the parts joined are
// git's patch byte for byte. It returns the joined patch.
func checkDrained(dr *drained, ds *drainSpec) ([]byte, error) {
	if dr.maxBytes > replyLimit {
		return nil, fmt.Errorf("a part's result is %d bytes, over the %d-byte reply limit", dr.maxBytes, replyLimit)
	}
	joined, err := diff.Join(dr.parts...)
	if err != nil {
		return nil, fmt.Errorf("joining %d parts: %w", len(dr.parts), err)
	}
	if !bytes.Equal(joined, ds.want) {
		at := 0
		for at < min(len(joined), len(ds.want)) && joined[at] == ds.want[at] {
			at++
		}
		return nil, fmt.Errorf("%d parts joined differ from git's patch (%d bytes vs %d), first at byte %d: %.80q vs %.80q",
			len(dr.parts), len(joined), len(ds.want), at, joined[at:min(len(joined), at+80)], ds.want[at:min(len(ds.want), at+80)])
	}
	return joined, nil
}

// applies runs git apply --check of patch in a scratch work tree of the
// merge base (a linked work tree of the repository, removed afterwards).
func applies(fx *fixture, scratch string, patch []byte) error {
	wt := filepath.Join(scratch, "worktree")
	if _, err := fx.g.output(fx.dir, "worktree", "add", "--detach", "--quiet", wt, fx.mergeBase); err != nil {
		return err
	}
	defer func() {
		_, _ = fx.g.output(fx.dir, "worktree", "remove", "--force", wt)
		_, _ = fx.g.output(fx.dir, "worktree", "prune")
	}()
	f := filepath.Join(scratch, "joined.patch")
	if err := os.WriteFile(f, patch, 0o644); err != nil {
		return err
	}
	if _, err := fx.g.output(wt, "apply", "--check", f); err != nil {
		return fmt.Errorf("the joined patch does not apply on the merge base: %w", err)
	}
	return nil
}

// pagedDiff drains the diff once and checks it (the warm-up), then times
// whole drains against one plain git diff of the range, alternating.
func (ru *runner) pagedDiff(ctx context.Context, s *session, bs *side, fx *fixture, c benchCase, sp *spec, r *row) error {
	ds := sp.drain
	p := &pagingResult{PatchBytes: int64(len(ds.want)), EscapedPatchBytes: ds.escaped, Limit: replyLimit}
	p.CallsTarget = 1.1*math.Ceil(float64(ds.escaped)/replyLimit) + 2
	r.Paging = p
	r.ServerArgs = sp.args
	r.GitCommand = "git " + strings.Join(sp.git, " ")
	first, err := drain(ctx, s, c.tool, sp.args)
	if err != nil {
		return err
	}
	joined, err := checkDrained(first, ds)
	if err != nil {
		return fmt.Errorf("answer differs from git's: %w", err)
	}
	p.Joined = true
	if err := applies(fx, ds.scratch, joined); err != nil {
		return err
	}
	p.Applies = true
	p.Calls, p.ReplyBytes, p.MaxReplyBytes = first.calls, first.bytes, first.maxBytes
	p.MaxReplyChars, p.DeclaredChars = first.maxChars, s.declared[c.tool]
	p.ResultBytes, p.CallMs = first.sizes, msList(first.each)
	for _, part := range first.parts {
		p.PartBytes = append(p.PartBytes, len(part))
	}

	warm, err := timeGit(ru.g, fx.dir, sp.git, false)
	if err != nil {
		return err
	}
	// Each timed drain is a new diff to a running server: a server of its
	// own (its start not timed, its object reader started by a read of
	// another file), so that nothing of an earlier drain is in its patch
	// cache. Its RSS is the server's from before the drain to after it.
	// warmUp starts a new server's object reader with a read of another
	// file; checked makes sure a timed drain gave what the first did.
	warmUp := func(cl caller) error {
		_, err := cl.call(ctx, "read_file", map[string]any{"path": fx.changes[0].path, "ref": fx.head, "endLine": 1})
		return err
	}
	checked := func(dr, first *drained, client string) (time.Duration, error) {
		if dr.calls != first.calls || dr.bytes != first.bytes {
			return 0, fmt.Errorf("a drain through %s took %d calls and %d bytes, the first %d and %d", client, dr.calls, dr.bytes, first.calls, first.bytes)
		}
		if _, err := checkDrained(dr, ds); err != nil {
			return 0, err
		}
		return dr.d, nil
	}
	// drainFresh times a drain through a new client of a new server,
	// warmed up first, and closes it.
	drainFresh := func(cl interface {
		caller
		close() error
	}, first *drained, client string) (time.Duration, error) {
		defer cl.close()
		if err := warmUp(cl); err != nil {
			return 0, err
		}
		dr, err := drain(ctx, cl, c.tool, sp.args)
		if err != nil {
			return 0, err
		}
		return checked(dr, first, client)
	}
	var peakRSS int64
	var serverCPU, clientCPU []time.Duration
	server := func() (time.Duration, error) {
		fs, err := ru.fresh()
		if err != nil {
			return 0, err
		}
		defer fs.close()
		if err := warmUp(fs); err != nil {
			return 0, err
		}
		if err := fs.resetPeakRSS(); err != nil {
			return 0, fmt.Errorf("resetting the peak RSS: %w", err)
		}
		if before, _, err := fs.rss(); err == nil && r.RSSMiB == nil {
			r.RSSMiB = fptr(float64(before) / (1 << 20))
		}
		cpu0, err := fs.cpuTime()
		if err != nil {
			return 0, err
		}
		own0 := ownCPU()
		dr, err := drain(ctx, fs, c.tool, sp.args)
		if err != nil {
			return 0, err
		}
		own1 := ownCPU()
		cpu1, err := fs.cpuTime()
		if err != nil {
			return 0, err
		}
		serverCPU = append(serverCPU, cpu1-cpu0)
		clientCPU = append(clientCPU, own1-own0)
		if _, peak, err := fs.rss(); err == nil {
			peakRSS = max(peakRSS, peak)
		}
		return checked(dr, first, "the go-sdk client")
	}
	// The baseline's drains are checked as the current's are, each held
	// to the baseline's own first drain, on fresh servers of its build.
	var base timed
	if bs != nil {
		bfirst, err := drain(ctx, bs.s, c.tool, sp.args)
		if err == nil {
			_, err = checkDrained(bfirst, ds)
		}
		if err != nil {
			bs = r.baselineFailed(err)
		} else {
			r.Baseline.setCounts(first.calls, bfirst.calls, first.bytes, bfirst.bytes)
			base = func() (time.Duration, error) {
				fs, err := bs.fresh()
				if err != nil {
					return 0, err
				}
				return drainFresh(fs, bfirst, "the go-sdk client")
			}
		}
	}
	git := ru.gitTimer(fx, sp)
	bv, sv, gt, err := interleaved(ru.rounds, base, server, git)
	if err != nil {
		return err
	}
	lean := func() (time.Duration, error) {
		lc, err := ru.freshLean()
		if err != nil {
			return 0, err
		}
		return drainFresh(lc, first, "the lean client")
	}
	lv, lg, err := paired(ru.rounds, lean, git)
	if err != nil {
		return fmt.Errorf("through the lean client: %w", err)
	}
	p.LeanMs, p.LeanGitMs = ms(median(lv)), ms(median(lg))
	p.LeanRatio = p.LeanMs / p.LeanGitMs
	p.ServerCPUMs = ms(median(serverCPU))
	p.ClientCPUMs = ms(median(clientCPU))
	r.PeakRSSMiB = fptr(float64(peakRSS) / (1 << 20))
	r.setTimes(sv, gt)
	if bs != nil {
		r.setBaselineTimes(bv)
	}

	p.ReplyRatio = float64(p.ReplyBytes) / float64(p.EscapedPatchBytes)
	p.TimeRatio = *r.Ratio
	p.CallsMet = float64(p.Calls) <= p.CallsTarget
	p.BytesMet = p.ReplyRatio <= pagingBytesTarget
	p.TimeMet = p.TimeRatio <= pagingTimeTarget
	r.Notes = fmt.Sprintf("%s; %d calls (target ≤ %.1f), replies %s = %.3f× the escaped patch (largest %s, %d characters; declared %d), %.1f ms per call; git printed %s; joined parts = git's patch, git apply --check passes",
		sp.note, p.Calls, p.CallsTarget, humanBytes(p.ReplyBytes), p.ReplyRatio, humanBytes(p.MaxReplyBytes), p.MaxReplyChars, p.DeclaredChars, *r.ServerMs/float64(p.Calls), humanBytes(warm.printed))
	return nil
}
