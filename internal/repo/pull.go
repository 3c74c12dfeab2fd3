package repo

import (
	"context"
	"errors"
	"strconv"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// PullRequest is a local pull request: refs/pull/N/head, where GitHub, Gitea
// and Forgejo keep it.
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
		return nil, errcode.New(errcode.NotFound, "pull request #%d does not exist in %s (no %shead)", index, r.FullName(), prefix)
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
	mb, err := r.Git.MergeBase(ctx, base, head)
	if errors.Is(err, git.ErrNoMergeBase) {
		return nil, errcode.New(errcode.InvalidRef, "pull request #%d shares no history with its base %s", index, base)
	}
	if err != nil {
		return nil, err
	}
	return &PullRequest{Index: index, Base: base, Head: head, MergeBase: mb}, nil
}
