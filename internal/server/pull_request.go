package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// pullRequest resolves owner/repo#index and the options of its diff: its
// base and head come from the backend (below: the local refs, or the
// forge's pull request). The commits cur pins (base, merge base and head)
// are used instead while its head is the pull request's, since the base
// branch may have moved on; cur is nil when the call has no cursor.
func (s *Server) pullRequest(ctx context.Context, owner, name string, index int, cur *paging.Cursor) (*repo.Repository, *repo.PullRequest, git.DiffOptions, error) {
	r, err := s.served.Get(ctx, owner, name, true)
	if err != nil {
		return nil, nil, git.DiffOptions{}, err
	}
	var pr *repo.PullRequest
	if cur != nil {
		pr, err = pinnedPullRequest(ctx, r, index, cur, func() (pullTips, error) { return s.backend.pullTips(ctx, r, index) })
	} else {
		pr, err = s.backend.pullRequest(ctx, r, index)
	}
	if err != nil {
		return nil, nil, git.DiffOptions{}, err
	}
	return r, pr, git.DiffOptions{From: pr.MergeBase, To: pr.Head, Context: 3}, nil
}

// pinnedPullRequest is the pull request as cur pinned it: three commits of
// r, the second the merge base of the first and the third, as git computes
// it (memoised: the first part computed the same pairs); the third the
// pull request's head now (a cursor that pinned any other head would show
// another branch as the pull request), the first its base now or an
// ancestor of it (the base branch may move on; while a mirror has not
// fetched the new base, an ancestor of its copy of the base branch).
func pinnedPullRequest(ctx context.Context, r *repo.Repository, index int, cur *paging.Cursor, current func() (pullTips, error)) (*repo.PullRequest, error) {
	pins, err := paging.CheckPins(ctx, r, cur, 3)
	if err != nil {
		return nil, err
	}
	base, mergeBase, head := pins[0], pins[1], pins[2]
	mb, err := r.Git.MergeBase(ctx, base, head)
	if err != nil && !errors.Is(err, git.ErrNoMergeBase) {
		return nil, err
	}
	if mb != mergeBase {
		return nil, paging.ErrCursor(fmt.Sprintf("pins %s as the merge base of %s and %s, which it is not", git.Short(mergeBase), git.Short(base), git.Short(head)))
	}
	now, err := current()
	if gone := new(errcode.Error); errors.As(err, &gone) && gone.Code == errcode.NotFound {
		return nil, errcode.New(errcode.NotFound, "%s; this cursor was made for its head %s: leave cursor out to start again", gone.Msg, git.Short(head))
	}
	if err != nil {
		return nil, err
	}
	if head != now.head {
		return nil, errcode.New(errcode.InvalidArgument, "the pull request moved: #%d's head is %s now, not %s as when this cursor was made; start over without cursor (leave cursor out)",
			index, git.Short(now.head), git.Short(head))
	}
	if base != now.base {
		past := now.base
		if _, err := r.Git.Info(ctx, past); errors.Is(err, git.ErrMissing) && now.baseBranch != "" {
			past = "refs/heads/" + now.baseBranch // the mirror's copy, until it fetches the new base
		}
		if mb, err := r.Git.MergeBase(ctx, base, past); err != nil && !errors.Is(err, git.ErrNoMergeBase) {
			return nil, err
		} else if mb != base {
			return nil, errcode.New(errcode.InvalidArgument, "the pull request moved: #%d's base %s is not %s or past it; start over without cursor (leave cursor out)",
				index, git.Short(now.base), git.Short(base))
		}
	}
	return &repo.PullRequest{Index: index, Base: base, MergeBase: mergeBase, Head: head}, nil
}

// pullRequest finds a local pull request's base and head by
// repo.PullRequest's rule: refs/pull/N/head, based on the first parent of
// refs/pull/N/merge where that exists, else on the default branch.
func (b localBackend) pullRequest(ctx context.Context, r *repo.Repository, index int) (*repo.PullRequest, error) {
	return r.PullRequest(ctx, index)
}

func (b localBackend) pullTips(ctx context.Context, r *repo.Repository, index int) (pullTips, error) {
	pr, err := r.PullRequest(ctx, index)
	if err != nil {
		return pullTips{}, err
	}
	return pullTips{base: pr.Base, head: pr.Head}, nil
}

// pullRequest takes a forge's pull request's base and head from the forge:
// its base is the commit of the forge's base branch, which need not be the
// mirror's default branch. Both commits are read in the mirror (fetched when
// it lacks them), where git computes the merge base.
func (b forgeBackend) pullRequest(ctx context.Context, r *repo.Repository, index int) (*repo.PullRequest, error) {
	tips, err := b.pullTips(ctx, r, index)
	if err != nil {
		return nil, err
	}
	return r.PullRequestAt(ctx, index, tips.base, tips.head)
}

func (b forgeBackend) pullTips(ctx context.Context, r *repo.Repository, index int) (pullTips, error) {
	p, err := b.f.Pull(ctx, r.Owner, r.Name, index)
	if err != nil {
		return pullTips{}, pullNotFound(err, r.Owner, r.Name, index)
	}
	if !git.IsObjectID(p.Base.SHA) || !git.IsObjectID(p.Head.SHA) {
		return pullTips{}, errcode.New(errcode.Unavailable, "the forge gives no base or head commit for pull request #%d of %s (its base branch may be gone)", index, r.FullName())
	}
	if !git.PlainRefName(p.Base.Ref) {
		p.Base.Ref = "" // untrusted: not a name to read a ref by
	}
	return pullTips{base: p.Base.SHA, head: p.Head.SHA, baseBranch: p.Base.Ref}, nil
}

// fileTally counts a diff's files as they stream by and keeps as many of
// their names (and patch sizes) as an error message of room bytes can
// show: a listing of 200,000 files costs the memory of its message.
type fileTally struct {
	room, used, count int
	names             []string
	sizes             []int64 // nil when sizes are not told
}

func (t *fileTally) add(name string, size int64, withSize bool) {
	t.count++
	if t.used += len(name) + 24; t.used > t.room-128 {
		return
	}
	t.names = append(t.names, name)
	if withSize {
		t.sizes = append(t.sizes, size)
	}
}

// String lists what was kept, and how many files were not.
func (t *fileTally) String() string {
	return paging.FileList(t.names, t.sizes, t.count, t.room, listPullRequestFilesName)
}

// partFraming is about what a part of a pull request's diff takes besides
// its patch, as a client's budget counts it: its first line, the next call,
// the notes' room, a split file's header lines again; measured at 8,000
// bytes (TestPartsAreFullAndLight). On the wire, at a budget that is
// --max-bytes, the _meta's copy of the next call adds about 350.
const partFraming = 850

// wholeDiffParts says how many replies get_pull_request_diff takes for the
// whole diff of pull request index, whose parts pin commits, at the budget
// of the client that reads this reply: counted by the pager's own cut
// (countParts), which the diff's first part then finds made; when that
// cannot be done in time, about as many as its patch of patch bytes,
// escaped in JSON (0: not counted, then about a tenth more), gives ("" with
// no patch size either).
func (s *Server) wholeDiffParts(ctx context.Context, owner, name string, index int, commits []string, files int, patch, escaped int64) string {
	// The diff's call asks for no less than the client is sent.
	ctx = paging.WithBudget(ctx, s.budget(ctx).Widened())
	in := getPullRequestDiffIn{Owner: owner, Repo: name, Index: index, ContextLines: defaultContextLines}
	n, _ := s.pullDiffParts(ctx, in, commits, files, patch, func(ctx context.Context, cursor string) (*paging.Call, error) {
		more := in
		more.Cursor = cursor
		r, err := s.backend.pullRequestDiff(ctx, more, "")
		return r.Next, err
	})
	switch {
	case n == 1:
		return "the whole diff fits one reply"
	case n > 1:
		whole := fmt.Sprintf("the whole diff: %d parts at this client's budget", n)
		if o, ok := s.foldOffer(ctx, in, commits, patch); ok && o.pays(n) {
			whole += fmt.Sprintf("; %d of its %d changed lines follow %s: collapseRepeated reads it in %s", o.patternLines, o.lines, text.Count(o.patterns, "pattern"), text.Count(o.parts, "part"))
		}
		return whole
	case patch == 0:
		return "" // not counted, and no size to estimate from
	}
	return diffPartsAbout(s.budget(ctx), patch, escaped)
}

// diffPartsAbout says about how many replies a whole diff of patch bytes,
// escaped in JSON (0: not counted, then about a tenth more, as code
// escapes), takes at budget b: parts are filled to about 97%.
func diffPartsAbout(b paging.Budget, patch, escaped int64) string {
	if escaped == 0 {
		escaped = patch + patch/10
	}
	if escaped <= int64(b.MaxBytes-b.ReplySize(textReply{})) {
		return "the whole diff fits one reply"
	}
	framing := partFraming
	if b.Whole <= b.MaxBytes {
		framing += 350
	}
	per := int64(max(b.MaxBytes-framing, b.MaxBytes/2)) * 97 / 100
	n := (escaped + per - 1) / per
	return fmt.Sprintf("the whole diff: about %d parts at this client's budget (not counted: too many files, or not in time)", n)
}

// checkedOutBase is what to add to why a local pull request's diff is
// empty when its base is the checked-out branch (refs/pull/N/merge is not
// fetched: repo.PullRequest's rule) and that branch already holds its
// head: in a clone with the pull request's own branch checked out, it
// showed "0 files changed" with nothing to say that the base was that
// branch. "" otherwise.
func checkedOutBase(ctx context.Context, r *repo.Repository, pr *repo.PullRequest) string {
	if pr.Head != pr.MergeBase || pr.HeadRef == "" {
		return "" // the base does not hold the head, or from a forge
	}
	merge := fmt.Sprintf("refs/pull/%d/merge", pr.Index)
	if _, err := r.PullMergeBase(ctx, pr.Index); !errors.Is(err, git.ErrMissing) {
		return ""
	}
	branch := r.Git.DefaultBranch(ctx)
	if branch == "" {
		branch = "HEAD, detached"
	}
	return fmt.Sprintf("; its base is the checked-out branch (%s), as %s is not fetched: if that is the pull request's own branch, not its target, get_diff with base set to the target and head=%s gives its changes",
		text.Name(branch), merge, pr.HeadRef)
}
