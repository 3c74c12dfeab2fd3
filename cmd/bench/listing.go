package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A listing drained (issue 23): what a reviewer reads before the code — a
// pull request's commits, its file list — followed through the next calls
// to the end, held to a most number of calls and of bytes, and checked
// against git: every item git lists appears, in git's order.

// listDrainSpec is a listing case's targets and its oracle.
type listDrainSpec struct {
	maxCalls int
	maxBytes int64
	// want are what git lists, in order, each as the text shows it.
	want []string
	what string // "commits", "files"
}

// listingResult is a drained listing's figures.
type listingResult struct {
	Items     int       `json:"items"`
	Calls     int       `json:"calls"`
	CallsMax  int       `json:"callsTarget"`
	Bytes     int64     `json:"replyBytes"`
	BytesMax  int64     `json:"replyBytesTarget"`
	MaxReply  int64     `json:"maxReplyBytes"`
	MaxChars  int       `json:"maxReplyChars"`
	Declared  int       `json:"declaredMaxResultSizeChars"`
	CallMs    []float64 `json:"callMs"`
	CallsMet  bool      `json:"callsMet"`
	BytesMet  bool      `json:"bytesMet"`
	AllListed bool      `json:"allListed"`
}

// listingTarget: the calls and bytes of the spec, every item listed, and
// no reply over what the tool declares.
func listingTarget(calls int, bytes int64) *target {
	return &target{text: fmt.Sprintf("≤ %d calls, ≤ %s, every item, each reply ≤ declared", calls, humanBytes(bytes)),
		met: func(r *row) bool {
			l := r.Listing
			return l != nil && l.CallsMet && l.BytesMet && l.AllListed && l.Declared > 0 && l.MaxChars <= l.Declared
		}}
}

// inOrder says whether every item of want appears in text, each after the
// one before.
func inOrder(text string, want []string) error {
	at := 0
	for i, w := range want {
		j := strings.Index(text[at:], w)
		if j < 0 {
			return fmt.Errorf("item %d of %d (%q) is not listed after item %d", i+1, len(want), w, i)
		}
		at += j + len(w)
	}
	return nil
}

// pagedListing drains the listing once and checks it, then times whole
// drains against the git command that lists the same, alternating.
func (ru *runner) pagedListing(ctx context.Context, s *session, bs *side, fx *fixture, c benchCase, sp *spec, r *row) error {
	ls := sp.list
	l := &listingResult{Items: len(ls.want), CallsMax: ls.maxCalls, BytesMax: ls.maxBytes, Declared: s.declared[c.tool]}
	r.Listing = l
	r.ServerArgs = sp.args
	r.GitCommand = "git " + strings.Join(sp.git, " ")
	first, err := drain(ctx, s, c.tool, sp.args)
	if err != nil {
		return err
	}
	if err := inOrder(first.text.String(), ls.want); err != nil {
		return fmt.Errorf("answer differs from git's: %w", err)
	}
	l.AllListed = true
	l.Calls, l.Bytes, l.MaxReply, l.MaxChars = first.calls, first.bytes, first.maxBytes, first.maxChars
	l.CallMs = msList(first.each)
	l.CallsMet, l.BytesMet = l.Calls <= ls.maxCalls, l.Bytes <= ls.maxBytes
	// The baseline's first drain is checked as the current's was; each
	// build's timed drains are held to its own first.
	var base timed
	if bs != nil {
		bfirst, err := drain(ctx, bs.s, c.tool, sp.args)
		if err == nil {
			err = inOrder(bfirst.text.String(), ls.want)
		}
		if err != nil {
			bs = r.baselineFailed(err)
		} else {
			r.Baseline.setCounts(first.calls, bfirst.calls, first.bytes, bfirst.bytes)
			base = timedDrain(ctx, bs.s, c.tool, sp.args, bfirst)
		}
	}
	git := ru.gitTimer(fx, sp)
	bv, sv, gt, err := interleaved(ru.rounds, base, timedDrain(ctx, s, c.tool, sp.args, first), git)
	if err != nil {
		return err
	}
	r.setTimes(sv, gt)
	if bs != nil {
		r.setBaselineTimes(bv)
	}
	r.Notes = fmt.Sprintf("%d %s in %d calls (target ≤ %d), replies %s (target ≤ %s, largest %s, %d characters; declared %d)",
		len(ls.want), ls.what, l.Calls, ls.maxCalls, humanBytes(l.Bytes), humanBytes(ls.maxBytes), humanBytes(l.MaxReply), l.MaxChars, l.Declared)
	return nil
}

// timedDrain times a drain of the listing on s, which must take the calls
// and bytes that first did.
func timedDrain(ctx context.Context, s *session, tool string, args map[string]any, first *drained) timed {
	return func() (time.Duration, error) {
		dr, err := drain(ctx, s, tool, args)
		if err != nil {
			return 0, err
		}
		if dr.calls != first.calls || dr.bytes != first.bytes {
			return 0, fmt.Errorf("a drain took %d calls and %d bytes, the first %d and %d", dr.calls, dr.bytes, first.calls, first.bytes)
		}
		return dr.d, nil
	}
}

// prCommitsSpec: get_pull_request of the paging repository's pull request
// #2, every part, against git log of its commits (oldest first).
func prCommitsSpec(fx *fixture) (*spec, error) {
	mb, err := fx.g.line(fx.dir, "merge-base", "main", pagingCommitsPR)
	if err != nil {
		return nil, err
	}
	out, err := fx.g.output(fx.dir, "rev-list", "--reverse", mb+".."+pagingCommitsPR)
	if err != nil {
		return nil, err
	}
	var want []string
	for _, sha := range strings.Fields(string(out)) {
		want = append(want, sha[:12]) // the text may show a short SHA
	}
	return &spec{args: map[string]any{"owner": benchOwner, "repo": benchRepo, "index": 2},
		git:  []string{"log", "--reverse", "--shortstat", mb + ".." + pagingCommitsPR},
		list: &listDrainSpec{maxCalls: 2, maxBytes: 100_000, want: want, what: "commits"}}, nil
}

// prFilesSpec: list_pull_request_files of the tree's pull request #1 with
// limit=5000, every page, against git diff --numstat -M.
func prFilesSpec(fx *fixture) (*spec, error) {
	var want []string
	for _, c := range fx.changes {
		want = append(want, c.path)
	}
	return &spec{args: map[string]any{"owner": benchOwner, "repo": benchRepo, "index": 1, "limit": 5000},
		git:  []string{"diff", "--numstat", "-M", fx.mergeBase, prRef},
		list: &listDrainSpec{maxCalls: 5, maxBytes: 5 * replyLimit, want: want, what: "files"}}, nil
}

// replyChars is how many characters a client shows of a result: its text
// contents, or (Claude Code, claude-code #79944) its structured content
// when it has one.
func replyChars(res *mcp.CallToolResult) int {
	if res.StructuredContent != nil {
		return len([]rune(jsonOf(res.StructuredContent)))
	}
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += len([]rune(t.Text))
		}
	}
	return n
}
