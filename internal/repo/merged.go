package repo

import (
	"context"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// MergedPull is where a pull request whose head is already in its base
// (its merge base) came in, when git can tell: by a merge commit on the
// base's first-parent line, whose first parent is the base before the
// merge. Its own commits are then those of its head not reachable from
// that parent. A head on the first-parent line itself (fast-forwarded,
// rebased, or the base's own commit) cannot be told from the base's.
type MergedPull struct {
	Merge, Since string // "" when OnLine
	OnLine       bool
}

// MergedPull is where pr's head came into its base, or nil when pr is not
// merged (its head is not its merge base).
func (r *Repository) MergedPull(ctx context.Context, pr *PullRequest) (*MergedPull, error) {
	if pr.Head != pr.MergeBase {
		return nil, nil
	}
	m, err := r.Git.FirstParentDescendant(ctx, pr.Base, pr.Head)
	if err != nil || m == "" {
		return &MergedPull{OnLine: true}, err
	}
	c, err := r.Git.Log(ctx, git.LogOptions{To: m, Limit: 1, MaxParents: 1})
	if err != nil {
		return nil, err
	}
	if len(c) == 0 || len(c[0].Parents) == 0 || c[0].Parents[0] == pr.Head {
		return &MergedPull{OnLine: true}, nil // the head's own child on the line
	}
	return &MergedPull{Merge: m, Since: c[0].Parents[0]}, nil
}
