package git

import (
	"context"
	"errors"
	"strings"
)

// ResolveCommit resolves a revision to the full id of the commit it names,
// peeling tags. The caller has already refused revisions that could read as
// options or break the request stream; later commands get only the id.
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (string, error) {
	obj, err := r.Info(ctx, rev+"^{commit}")
	if err != nil {
		return "", err
	}
	if obj.Type != "commit" {
		return "", ErrMissing
	}
	return obj.OID, nil
}

// HasRef reports whether the full ref name exists.
func (r *Repo) HasRef(ctx context.Context, ref string) bool {
	_, err := r.Output(ctx, "show-ref", "--verify", "--quiet", "--end-of-options", ref)
	return err == nil
}

// DefaultBranch is the branch HEAD points at ("" when HEAD is detached).
func (r *Repo) DefaultBranch(ctx context.Context) string {
	out, err := r.Output(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ConfigValue reads one key of the repository's config ("" when unset).
func (r *Repo) ConfigValue(ctx context.Context, key string) string {
	out, err := r.Output(ctx, "config", "--get", "--end-of-options", key)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// LastCommit is the newest commit reachable from commit that changed path,
// with its committer and author dates (ISO 8601), as `git log -1 -- path`.
type LastCommit struct {
	OID, CommitterDate, AuthorDate string
}

// LastCommitFor runs `git log -1` for one path ("" for the whole tree).
func (r *Repo) LastCommitFor(ctx context.Context, commit, path string) (LastCommit, error) {
	args := []string{"log", "-1", "--no-show-signature", "--format=%H%x00%cI%x00%aI", "--end-of-options", commit, "--"}
	if path != "" {
		args = append(args, path)
	}
	out, err := r.Output(ctx, args...)
	if err != nil {
		return LastCommit{}, err
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\x00")
	if len(f) != 3 {
		return LastCommit{}, errors.New("git log: unexpected output")
	}
	return LastCommit{OID: f[0], CommitterDate: f[1], AuthorDate: f[2]}, nil
}
