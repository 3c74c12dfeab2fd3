package repo

import (
	"context"
	"errors"
	"strconv"
	"strings"

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
	HeadRef    string // the local ref its head was read from ("" from a forge)
}

// PullRequest resolves pull request index: refs/pull/N/head (GitHub, Gitea,
// Forgejo), else refs/merge-requests/N/head (GitLab). Its base is the first
// parent of refs/pull/N/merge where that ref exists (GitHub keeps it), else
// the default branch (HEAD). Refs are built only from the integer.
func (r *Repository) PullRequest(ctx context.Context, index int) (*PullRequest, error) {
	if index < 1 {
		return nil, errcode.New(errcode.InvalidArgument, "pull request index %d: want a positive integer", index)
	}
	n := strconv.Itoa(index)
	headRef := "refs/pull/" + n + "/head"
	head, err := r.pullRef(ctx, index, headRef, true)
	merge := true
	if errors.Is(err, git.ErrMissing) {
		headRef = "refs/merge-requests/" + n + "/head"
		head, err = r.pullRef(ctx, index, headRef, false)
		merge = false // GitLab keeps no merge ref: the base is the default branch
		if errors.Is(err, git.ErrMissing) {
			return nil, errcode.New(errcode.NotFound, "pull request #%d does not exist in %s: it has neither refs/pull/%d/head (GitHub, Gitea, Forgejo) nor refs/merge-requests/%d/head (GitLab). %s",
				index, r.FullName(), index, index, r.fetchHint(ctx, index))
		}
	}
	if err != nil {
		return nil, err
	}
	base, err := "", git.ErrMissing
	if merge {
		base, err = r.PullMergeBase(ctx, index)
	}
	if errors.Is(err, git.ErrMissing) {
		base, err = r.Git.CommitID(ctx, "HEAD")
	}
	if errors.Is(err, git.ErrMissing) {
		return nil, errcode.New(errcode.InvalidRef, "pull request #%d has no base: %s has no default branch commit", index, r.FullName())
	}
	if err != nil {
		return nil, err
	}
	return r.withMergeBase(ctx, &PullRequest{Index: index, Base: base, Head: head, HeadRef: headRef})
}

// pullRef is the commit the full ref ref of pull request index names,
// read exactly (git.RefCommit): never a tag or branch that git's revision
// rules would find for the name. A mirror that lacks it is refreshed once
// if refresh (a mirror fetches heads, never merge refs).
// ErrMissing when it does not exist; a ref that exists but names no commit
// is refused with what it names.
func (r *Repository) pullRef(ctx context.Context, index int, ref string, refresh bool) (string, error) {
	oid, err := r.Git.RefCommit(ctx, ref)
	if errors.Is(err, git.ErrMissing) && refresh && r.refresh != nil {
		if rerr := r.refresh(ctx); rerr != nil {
			return "", rerr
		}
		oid, err = r.Git.RefCommit(ctx, ref)
	}
	var nc *git.NotCommitError
	if errors.As(err, &nc) {
		return "", errcode.New(errcode.InvalidRef, "pull request #%d of %s is broken: %s points at a %s, not a commit; the forge or whoever wrote the ref must fix it", index, r.FullName(), ref, nc.Type)
	}
	return oid, err
}

// PullMergeBase is the first parent of pull request index's merge ref,
// refs/pull/N/merge (GitHub keeps it), read exactly as pullRef reads:
// a tag named "refs/pull/N/merge" never chooses the base. ErrMissing when
// the ref does not exist.
func (r *Repository) PullMergeBase(ctx context.Context, index int) (string, error) {
	merge, err := r.pullRef(ctx, index, "refs/pull/"+strconv.Itoa(index)+"/merge", false)
	if err != nil {
		return "", err
	}
	return r.Git.CommitID(ctx, merge+"^1")
}

// PullHeadRef is the ref pull request index's head is read from:
// refs/pull/N/head unless only GitLab's refs/merge-requests/N/head exists.
func (r *Repository) PullHeadRef(ctx context.Context, index int) string {
	n := strconv.Itoa(index)
	if gl := "refs/merge-requests/" + n + "/head"; !r.Git.HasRef(ctx, "refs/pull/"+n+"/head") && r.Git.HasRef(ctx, gl) {
		return gl
	}
	return "refs/pull/" + n + "/head"
}

// fetchHint is the command that fetches pull request index from the
// clone's origin remote: a plain clone has none of them. The remote's URL
// is read only to tell the forge by its host: GitLab keeps merge requests
// under merge-requests/, GitHub, Gitea and Forgejo under pull/. An origin
// that is a path, or on a host that names neither, gets both commands,
// each said for which: the GitHub form alone sent a GitLab user to a ref
// that does not exist.
func (r *Repository) fetchHint(ctx context.Context, index int) string {
	n := strconv.Itoa(index)
	pull := "pull/" + n + "/head:refs/pull/" + n + "/head"
	mr := "merge-requests/" + n + "/head:refs/merge-requests/" + n + "/head"
	url := r.Git.ConfigValue(ctx, "remote.origin.url")
	switch host := remoteHost(url); {
	case url == "":
		return "It has no origin remote: fetch it from the forge's repository, in the clone: git fetch URL " + pull + " (GitHub, Gitea, Forgejo), or git fetch URL " + mr + " (GitLab)"
	case strings.Contains(host, "gitlab"):
		return "Fetch it from the clone's remote (GitLab), in the clone: git fetch origin " + mr
	case strings.Contains(host, "github") || strings.Contains(host, "gitea") || strings.Contains(host, "forgejo") || strings.Contains(host, "codeberg"):
		return "Fetch it from the clone's remote, in the clone: git fetch origin " + pull
	}
	return "Fetch it from the clone's remote, in the clone: git fetch origin " + pull + " where origin keeps GitHub's, Gitea's or Forgejo's refs, or git fetch origin " + mr + " where it keeps GitLab's"
}

// remoteHost is the host of a remote URL, lower-cased (gitlab.com,
// gitlab.example.org); "" for a local path, which has none.
func remoteHost(url string) string {
	var host string
	if _, rest, ok := strings.Cut(url, "://"); ok {
		host, _, _ = strings.Cut(rest, "/")
	} else if h, _, ok := strings.Cut(url, ":"); ok && !strings.Contains(h, "/") {
		host = h // scp-like user@host:path
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	host, _, _ = strings.Cut(host, ":")
	return strings.ToLower(host)
}

// PullRefs says where the repository keeps its pull requests'
// refs ("refs/pull/<n>/head", "refs/merge-requests/<n>/head", both), or ""
// when it has none (a plain clone).
func (r *Repository) PullRefs(ctx context.Context) string {
	var have []string
	if r.Git.HasRefUnder(ctx, "refs/pull/") {
		have = append(have, "refs/pull/<n>/head")
	}
	if r.Git.HasRefUnder(ctx, "refs/merge-requests/") {
		have = append(have, "refs/merge-requests/<n>/head")
	}
	return strings.Join(have, " and ")
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
