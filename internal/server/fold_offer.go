package server

import (
	"context"
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// A pull request whose changed lines are mostly one edit repeated (an
// argument renamed in 128 files) is read in a few parts folded, in many
// as git prints it: the first part of its whole diff, and get_pull_request,
// say so with both counts (issue 40, "Offered when it pays"). It pays when
// patterns hold at least a third of the changed lines and folding takes
// at most three quarters of the parts (pays): on twelve real pull
// requests, those under a third saved at most 15% of the bytes.

// foldOffer is what folding a diff would give: its changed lines, those
// its patterns hold, and its parts folded at the call's budget.
type foldOffer struct {
	lines, patternLines, patterns, parts int
}

// pays: the diff takes plain parts as git prints it, and folding takes at
// most three quarters of them.
func (o foldOffer) pays(plain int) bool { return 4*o.parts <= 3*plain }

// note is the first part's note, the diff taking plain parts as git
// prints it.
func (o foldOffer) note(plain int) string {
	return fmt.Sprintf("[note: %d of %d changed lines follow %s: collapseRepeated reads this diff in %s instead of %d]\n",
		o.patternLines, o.lines, text.Count(o.patterns, "pattern"), text.Count(o.parts, "part"), plain)
}

// foldOffer is the offer for in's whole diff, when its patterns hold a
// third of its changed lines or more and its folded parts are counted; ok
// false else.
// Offers are kept, as counts are.
func (s *Server) foldOffer(ctx context.Context, in getPullRequestDiffIn, commits []string, size int64) (o foldOffer, ok bool) {
	// A patch of unknown size, or too large to fold, is not offered: the
	// offer's fold must not read what a fold would refuse.
	if _, counting := assumedParts(ctx); counting || in.FilePath != "" || len(in.Paths) > 0 || in.CollapseRepeated || in.FunctionContext || size <= 0 || size > maxFoldedPatch {
		return foldOffer{}, false
	}
	in.Cursor = ""
	key := fmt.Sprintf("%s %v %+v", paging.PlainJSON(in), commits, s.budget(ctx))
	if o, ok := s.offers.get(key); ok {
		return o, o.parts > 0
	}
	defer func() { s.offers.put(key, o) }()
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index, nil)
	if err != nil || pr.Head != commits[len(commits)-1] {
		return foldOffer{}, false
	}
	opts.Context, opts.IgnoreWhitespace = in.ContextLines, in.IgnoreWhitespace
	fv, err := s.foldGitDiff(ctx, r, opts)
	if err != nil {
		return foldOffer{}, false
	}
	v := fv.view
	if 2*v.PatternLines < v.FullLines {
		return foldOffer{}, false // a third or less: folding saves little (BENCHMARKS.md)
	}
	folded := in
	folded.CollapseRepeated = true
	n := s.countParts(ctx, "offer "+key, fv.files, guessParts(s.budget(ctx), int64(fv.bytes())), func(ctx context.Context, cursor string) (*paging.Call, error) {
		more := folded
		more.Cursor = cursor
		r, err := s.backend.pullRequestDiff(ctx, more, "")
		return r.Next, err
	})
	o = foldOffer{lines: v.PatternLines + v.FullLines, patternLines: v.PatternLines, patterns: len(v.Patterns), parts: n}
	return o, n > 0
}
