package server

// A server started outside any repository serves what the client's MCP
// roots name (repo.ServeNothingYet), and its instructions say what is
// served and where pull requests are.

import (
	"context"
	"net/url"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// rootsTimeout bounds the wait for a client's roots: tool calls wait for
// them meanwhile.
const rootsTimeout = 10 * time.Second

// followRoots asks the client for its roots once it is initialized and
// again whenever it says they changed.
func (s *Server) followRoots(opts *mcp.ServerOptions) {
	if !s.served.FollowsRoots() {
		return
	}
	opts.InitializedHandler = func(_ context.Context, req *mcp.InitializedRequest) { s.askRoots(req.Session) }
	opts.RootsListChangedHandler = func(_ context.Context, req *mcp.RootsListChangedRequest) { s.askRoots(req.Session) }
}

// askRoots lists the client's roots and serves the git repositories among
// them. It returns at once (the request is answered on the connection this
// handler holds up); calls made meanwhile wait for the answer.
func (s *Server) askRoots(ss *mcp.ServerSession) {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return // the client offers no roots
	}
	done := s.served.RootsPending()
	go func() {
		defer done()
		ctx, cancel := context.WithTimeout(context.Background(), rootsTimeout)
		defer cancel()
		res, err := ss.ListRoots(ctx, nil)
		if err != nil {
			s.cfg.Logger.Warn("listing the client's roots", "err", err)
			return
		}
		var dirs []string
		for _, r := range res.Roots {
			if d, ok := rootDir(r.URI); ok {
				dirs = append(dirs, d)
			}
		}
		served, skipped := s.served.SetRoots(ctx, dirs)
		s.cfg.Logger.Info("serving the client's roots", "repositories", served, "notRepositories", skipped)
	}()
}

// rootDir is the local directory a file:// root names.
func rootDir(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}

// servedInstructions are the instructions and, after them, what this
// server serves when that is known as it starts: nothing yet, or the one
// repository and where its pull requests are.
func servedInstructions(served *repo.Served) string {
	if note := served.NothingYet(); note != "" {
		return instructions + "\n\n" + note
	}
	r := served.Single()
	if r == nil {
		return instructions
	}
	ctx, cancel := context.WithTimeout(context.Background(), rootsTimeout)
	defer cancel()
	if refs := r.PullRefs(ctx); refs != "" {
		return instructions + "\n\nServed: " + r.FullName() + "; its pull requests are " + refs + "."
	}
	return instructions + "\n\nServed: " + r.FullName() + "; it has no pull request refs (a plain clone): get_pull_request's error gives the git fetch command that brings one."
}

// withPullRefs says, for each listed repository, where its pull requests
// are (list_repositories, local mode).
func (s *Server) withPullRefs(ctx context.Context, page []repo.Info) []repo.Info {
	out := make([]repo.Info, len(page)) // the listing is cached: not written in place
	for i, info := range page {
		out[i] = info
		r, err := s.served.Get(ctx, info.Owner, info.Name, true)
		if err != nil {
			continue
		}
		if out[i].PullRequestRefs = r.PullRefs(ctx); out[i].PullRequestRefs == "" {
			out[i].PullRequestRefs = "none"
		}
	}
	return out
}
