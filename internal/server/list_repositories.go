package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type listRepositoriesIn struct {
	Offset int `json:"offset,omitempty"`
	Limit  int `json:"limit,omitempty"`
	paging.ReplyLimit
}

type listRepositoriesOut struct {
	Repositories []repo.Info `json:"repositories"`
	Total        int         `json:"total"`
	NextOffset   *int        `json:"nextOffset" jsonschema:"offset of the next page, null at the end"`
	paging.Paged
}

// listRepositoriesTool is list_repositories's definition (registry.go).
var listRepositoriesTool = defineTool(toolSpec{
	Name:  "list_repositories",
	Title: "List repositories",
	Description: "List the repositories this server serves: owner, repo, bare or not, default branch. " +
		"Call it when owner and repo are unknown; with one repository served, tools may omit them." + partialNext,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "offset", 0, 0, 1_000_000_000)
		argcheck.SetInt(in, "limit", 100, 1, 500)
	},
}, (*Server).listRepositories)

func (s *Server) listRepositories(ctx context.Context, in listRepositoriesIn) (reply[listRepositoriesOut], error) {
	page, total, err := s.backend.repositoryPage(ctx, in.Offset, in.Limit)
	if err != nil {
		return reply[listRepositoriesOut]{}, err
	}
	if why := s.served.RootsRemarks(ctx); why != "" {
		// Roots not served, or not by the names their remotes claim: why.
		notes.Add(ctx, "of the client's MCP roots, "+why)
	}
	from := min(in.Offset, total)
	out := listRepositoriesOut{Total: total}
	render := func(n int) reply[listRepositoriesOut] {
		out.Repositories = page[:n]
		out.NextOffset = nil
		if next := from + n; next < total {
			out.NextOffset = &next
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s served", text.Count(total, "repository"))
		if n < total {
			b.WriteString("; " + paging.Shown(in.Offset, n, total, "repository", "list_repositories", in))
		}
		b.WriteString("\n")
		for _, r := range out.Repositories {
			kind := "work tree"
			if r.Bare {
				kind = "bare"
			}
			// The branch is always quoted (strconv.Quote, as text.Name does
			// when it must); a forge's names are written as every name is.
			pulls := ""
			if r.PullRequestRefs != "" {
				pulls = "; pull requests: " + r.PullRequestRefs
			}
			fmt.Fprintf(&b, "%s (%s, default branch %q%s)\n", text.Name(r.Owner+"/"+r.Name), kind, r.DefaultBranch, pulls)
		}
		r := reply[listRepositoriesOut]{Text: b.String(), Out: out}
		if out.NextOffset != nil {
			more := in
			more.Offset = *out.NextOffset
			r.Next = paging.Continue("list_repositories", more)
		}
		return r
	}
	return paging.FitList(s.budget(ctx), len(page), render), nil
}
