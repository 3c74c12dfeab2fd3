package repo

import (
	"context"
	"errors"
	"strconv"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// PullRequest is a pull request's commits: locally refs/pull/N/head (where
// GitHub, Gitea and Forgejo keep it) and a base by PullRequest's rule; in
// forge mode the commits the forge gives (PullRequestAt).
type PullRequest struct {
	Index      int
	Base, Head string // commit ids
	MergeBase  string // where its diff starts, as a forge shows it
}

// PullRequest resolves pull request index. Its base is the first parent of
// refs/pull/N/merge where that ref exists (GitHub keeps it), else the
// default branch (HEAD). Refs are built only from the integer.
func (r *Repository) PullRequest(ctx context.Context, index int) (*PullRequest, error) {
	if index < 1 {
		return nil, errcode.New(errcode.InvalidArgument, "pull request index %d: want a positive integer", index)
	}
	prefix := "refs/pull/" + strconv.Itoa(index) + "/"
	head, err := r.resolve(ctx, prefix+"head")
	if errors.Is(err, git.ErrMissing) {
		if obj, ierr := r.Git.Info(ctx, prefix+"head"); ierr == nil && obj.Type != "commit" {
			return nil, errcode.New(errcode.InvalidRef, "pull request #%d of %s is broken: %shead points at a %s, not a commit; the forge or whoever wrote the ref must fix it", index, r.FullName(), prefix, obj.Type)
		}
		return nil, errcode.New(errcode.NotFound, "pull request #%d does not exist in %s (no %shead, or it points at an object the repository does not have)", index, r.FullName(), prefix)
	}
	if err != nil {
		return nil, err
	}
	base, err := r.Git.CommitID(ctx, prefix+"merge^1")
	if errors.Is(err, git.ErrMissing) {
		base, err = r.Git.CommitID(ctx, "HEAD")
	}
	if errors.Is(err, git.ErrMissing) {
		return nil, errcode.New(errcode.InvalidRef, "pull request #%d has no base: %s has no default branch commit", index, r.FullName())
	}
	if err != nil {
		return nil, err
	}
	return r.withMergeBase(ctx, &PullRequest{Index: index, Base: base, Head: head})
}

// PullRequestAt is pull request index at the base and head commits (full
// ids) a forge gives for it: its base branch's commit, whichever branch
// that is. Both are looked up in the repository (a mirror that lacks one
// is fetched, as for any missing revision) and the merge base is git's.
func (r *Repository) PullRequestAt(ctx context.Context, index int, base, head string) (*PullRequest, error) {
	for _, c := range [][2]string{{"base", base}, {"head", head}} {
		_, err := r.resolve(ctx, c[1])
		if errors.Is(err, git.ErrMissing) {
			return nil, errcode.New(errcode.Unavailable, "pull request #%d's %s commit %s is not in the mirror of %s yet; try again in a few seconds", index, c[0], c[1], r.FullName())
		}
		if err != nil {
			return nil, err
		}
	}
	return r.withMergeBase(ctx, &PullRequest{Index: index, Base: base, Head: head})
}

// withMergeBase sets pr's merge base: where its diff and commits start.
func (r *Repository) withMergeBase(ctx context.Context, pr *PullRequest) (*PullRequest, error) {
	mb, err := r.Git.MergeBase(ctx, pr.Base, pr.Head)
	if errors.Is(err, git.ErrNoMergeBase) {
		return nil, errcode.New(errcode.InvalidRef, "pull request #%d shares no history with its base %s", pr.Index, pr.Base)
	}
	if err != nil {
		return nil, err
	}
	pr.MergeBase = mb
	return pr, nil
}
