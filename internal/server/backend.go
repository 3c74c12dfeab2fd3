package server

import (
	"context"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// backend answers what a forge would: the tools whose contract is the
// Forgejo/Gitea-compatible one (docs/contracts.md) and the repository list.
// localBackend reads the served repositories and their pull request refs;
// forgeBackend (forge.go) asks the forge's API. The server picks one when it
// starts, so no handler asks which mode it is in. The other tools read
// repositories through s.served in both modes (mirrors of the forge's, in
// forge mode); list_commits index reads a pull request's commits there, at
// the base and head pullRequest gives.
type backend interface {
	repositoryPage(ctx context.Context, offset, limit int) ([]repo.Info, int, error)
	// pullRequestFiles: pinned, the call's cursor, pins the base, merge
	// base and head commits of the first page (nil: as the pull request is
	// now).
	pullRequestFiles(ctx context.Context, in listPullRequestFilesIn, pinned *paging.Cursor) (listPullRequestFilesOut, error)
	// pullRequestDiff: path is file_path checked ("" for the whole diff).
	pullRequestDiff(ctx context.Context, in getPullRequestDiffIn, path string) (textReply, error)
	// fileContent: path is filePath checked by the policy.
	fileContent(ctx context.Context, in getFileContentIn, path string) (textReply, error)
	// pullRequestDetails answers get_pull_request (get_pull_request.go);
	// cur is the call's cursor, decoded (nil for the first part).
	pullRequestDetails(ctx context.Context, in getPullRequestIn, cur *paging.Cursor) (reply[getPullRequestOut], error)
	// pullRequest finds a pull request's base, head and merge base in r,
	// for the tools that read its commits with git (s.pullRequest,
	// pull_request.go): locally from its refs, in forge mode from the
	// forge's pull request.
	pullRequest(ctx context.Context, r *repo.Repository, index int) (*repo.PullRequest, error)
	// pullTips is a pull request's base and head as the backend gives them
	// now, not yet looked up in r: a cursor's pins are checked against
	// them even while a mirror has not fetched a base that just moved.
	pullTips(ctx context.Context, r *repo.Repository, index int) (pullTips, error)
}

// pullTips: a pull request's base and head commits (full ids) and, where
// the forge names it, its base branch.
type pullTips struct {
	base, head, baseBranch string
}

// localBackend answers from the served repositories.
type localBackend struct{ s *Server }

// forgeBackend answers from a forge's API.
type forgeBackend struct {
	s *Server
	f *forge.Client
}

func newBackend(s *Server) backend {
	if s.cfg.Forge != nil {
		return forgeBackend{s: s, f: s.cfg.Forge}
	}
	return localBackend{s: s}
}

// repositoryPage is the page offset..offset+limit of the served
// repositories and how many there are.
func (b localBackend) repositoryPage(ctx context.Context, offset, limit int) ([]repo.Info, int, error) {
	all, err := b.s.served.List(ctx)
	if err != nil {
		return nil, 0, err
	}
	from := min(offset, len(all))
	return b.s.withPullRefs(ctx, all[from:min(from+limit, len(all))]), len(all), nil
}

// repositoryPage asks the forge only for the API pages that hold the page
// (cached for the TTL), not for its whole listing.
func (b forgeBackend) repositoryPage(ctx context.Context, offset, limit int) ([]repo.Info, int, error) {
	return b.f.ListPage(ctx, offset, limit)
}

// servedNames fills in owner and name, when both are left out, with the
// one repository served (by --repo, alone under --root, or alone on the
// forge), as repo.Served.Get does for the tools that read with git: the
// forge-compatible tools need the names themselves, for the forge's API
// and their headers, before any repository is opened. With more or fewer
// repositories served they are required.
func (s *Server) servedNames(ctx context.Context, owner, name *string) error {
	if *owner != "" || *name != "" {
		return nil // both, or one missing: Get says which
	}
	list, err := s.served.List(ctx)
	switch {
	case err != nil:
		return err
	case len(list) == 1:
		*owner, *name = list[0].Owner, list[0].Name
		return nil
	case len(list) == 0:
		return errcode.New(errcode.InvalidArgument, "owner and repo are required, and no repository is served")
	}
	return errcode.New(errcode.InvalidArgument, "owner and repo are required: %d repositories are served; list_repositories lists them", len(list))
}
