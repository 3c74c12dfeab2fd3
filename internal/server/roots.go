package server

// A server started outside any repository serves what the client's MCP
// roots name (repo.ServeNothingYet), and its instructions say what is
// served and where pull requests are.
//
// How the roots are asked for depends on the protocol revision the client
// speaks. Up to 2025-11-25 the server sends roots/list once the client is
// initialized, and again when the client says its roots changed. From
// 2026-07-28 on there is no initialized step and a server may send the
// client no request of its own: it answers a tools/call with an
// input-required result that asks for roots/list (multi round-trip
// requests), and the client calls again with its roots (beforeCall).

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"
)

// rootsTimeout bounds the wait for a client's roots: tool calls wait for
// them meanwhile.
const rootsTimeout = 10 * time.Second

// maxRoots is the most roots of one answer that are looked at: each is
// opened as a repository, within rootsTimeout.
const maxRoots = 64

// multiRoundTrip is the first protocol revision whose server asks for
// roots in a tool result (inputRequests), not in a request of its own.
const multiRoundTrip = "2026-07-28"

// rootsKey names the roots/list request in a result's inputRequests, and
// the client's answer in the next call's inputResponses.
const rootsKey = "roots"

// followRoots asks the client for its roots once it is initialized and
// again whenever it says they changed (protocol 2025-11-25 and before);
// from 2026-07-28 on, a tool call asks (beforeCall).
func (s *Server) followRoots(opts *mcp.ServerOptions) {
	if !s.served.FollowsRoots() {
		return
	}
	s.calls.Before = s.beforeCall
	opts.InitializedHandler = func(_ context.Context, req *mcp.InitializedRequest) { s.askRoots(req.Session) }
	opts.RootsListChangedHandler = func(_ context.Context, req *mcp.RootsListChangedRequest) {
		if asksInResults(req.Session) {
			s.ask.changed() // the next call asks again
			return
		}
		s.askRoots(req.Session)
	}
}

// askRoots lists the client's roots and serves the git repositories among
// them. It returns at once (the request is answered on the connection this
// handler holds up); calls made meanwhile wait for the answer.
func (s *Server) askRoots(ss *mcp.ServerSession) {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return // the client offers no roots
	}
	// Numbered as asked: an answer that comes after a newer one's is
	// dropped (repo.RootsRequest).
	q := s.served.RootsPending()
	go func() {
		defer q.Done()
		ctx, cancel := context.WithTimeout(context.Background(), rootsTimeout)
		defer cancel()
		res, err := ss.ListRoots(ctx, nil)
		if err != nil {
			s.cfg.Logger.Warn("listing the client's roots", "err", err)
			return
		}
		s.serveRoots(ctx, q, res.Roots)
	}()
}

// serveRoots serves the git repositories among the client's roots, each
// held to the rules of --repo (repo.Served.SetRoots), as the answer to q.
// Each root not served is logged with why.
func (s *Server) serveRoots(ctx context.Context, q *repo.RootsRequest, roots []*mcp.Root) {
	var dirs []string
	var unread []repo.RootRefused // said with the roots refused
	for i, r := range roots {
		if i == maxRoots {
			why := fmt.Sprintf("not looked at: at most %d roots of one answer are", maxRoots)
			unread = append(unread, repo.RootRefused{Root: fmt.Sprintf("the last %d roots", len(roots)-maxRoots), Why: why, Detail: why})
			break
		}
		if r == nil {
			continue
		}
		if d, ok := rootDir(r.URI); ok {
			dirs = append(dirs, d)
		} else {
			why := "not looked at: only a local file:// URI (no host but localhost) is"
			unread = append(unread, repo.RootRefused{Root: strconv.Quote(r.URI), Why: why, Detail: why})
		}
	}
	got := s.served.SetRoots(ctx, q, dirs, unread...)
	if got.Dropped {
		s.cfg.Logger.Info("a roots answer came after a newer one's and is not served", "repositories", got.Served)
		return
	}
	for _, r := range got.Refused {
		s.cfg.Logger.Warn("a client root is not served", "root", r.Root, "why", r.Detail)
	}
	for _, n := range got.Notes {
		s.cfg.Logger.Info("a client root is not named as its remote claims", "why", n)
	}
	s.cfg.Logger.Info("serving the client's roots", "repositories", got.Served, "refused", len(got.Refused))
}

// asksInResults: the session's client speaks 2026-07-28 or later, where
// the server asks for roots in a tool result (the SDK's own test, which
// decides whether such a result is sent as input_required).
func asksInResults(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= multiRoundTrip
}

// beforeCall sees every tool call of a server started outside any
// repository. It names, in the error tools answer while nothing is
// served, the fix for the calling client; and on protocol 2026-07-28 it
// asks a client that declares roots for them, once: the call is answered
// with an input-required result whose inputRequests hold roots/list, and
// the client calls again with the answer in inputResponses. Calls made
// meanwhile wait for it (at most rootsTimeout, and their own deadline). A
// client that does not answer is not asked again until it says its roots
// changed: nothing loops.
func (s *Server) beforeCall(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	s.served.SayHow(howToServe(toolcall.ClientName(req)))
	if !asksInResults(req.Session) {
		return nil // asked once initialized (askRoots)
	}
	if answer, ok := req.Params.InputResponses[rootsKey].(*mcp.ListRootsResult); ok {
		s.ask.answered(func(q *repo.RootsRequest) {
			ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
			defer cancel()
			s.serveRoots(ctx, q, answer.Roots)
		})
		return nil
	}
	if len(req.Params.InputResponses) > 0 || req.Params.RequestState != "" {
		if s.ask.unanswered() { // called again, without roots: not asked again
			s.cfg.Logger.Warn("the client called again without the roots it was asked for")
		}
		return nil
	}
	if caps := req.ClientCapabilities(); caps == nil || caps.RootsV2 == nil {
		return nil // the client offers no roots
	}
	if !s.ask.start(s.served.RootsPending) {
		return nil
	}
	s.cfg.Logger.Info("asking the client for its roots in a tool result (protocol 2026-07-28)")
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsKey: &mcp.ListRootsParams{}}}
}

// rootsAsk is where asking a client for its roots in a tool result stands.
type rootsAsk struct {
	wait  time.Duration // how long the answer is waited for; 0: rootsTimeout
	mu    sync.Mutex
	state askState
	req   *repo.RootsRequest // releases the calls waiting for the answer
	timer *time.Timer
}

type askState int

const (
	notAsked askState = iota // the next call asks
	asking                   // asked: calls wait for the answer
	settled                  // answered or given up on: not asked until the roots change
)

// start asks, unless it was asked already: pending holds the calls until
// the answer is served, or for a.wait at most.
func (a *rootsAsk) start(pending func() *repo.RootsRequest) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != notAsked {
		return false
	}
	a.state, a.req = asking, pending()
	a.timer = time.AfterFunc(cmp.Or(a.wait, rootsTimeout), func() { a.unanswered() })
	return true
}

// answered serves the answer (serve) if it was asked for and not given up
// on; any other answer is not looked at.
func (a *rootsAsk) answered(serve func(*repo.RootsRequest)) {
	a.mu.Lock()
	if a.state != asking {
		a.mu.Unlock()
		return
	}
	a.state = settled
	a.timer.Stop()
	q := a.req
	a.mu.Unlock()
	defer q.Done()
	serve(q)
}

// unanswered gives up on an answer: the calls waiting for it go on, and
// find nothing served. It reports whether one was awaited.
func (a *rootsAsk) unanswered() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != asking {
		return false
	}
	a.state = settled
	a.timer.Stop()
	a.req.Done()
	return true
}

// changed: the client's roots changed, and the next call asks for them.
func (a *rootsAsk) changed() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state == settled {
		a.state = notAsked
	}
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

// howToServe is, for the client called name, how to give the server a
// repository: the fix the error of every tool names while nothing is
// served. --repo and --root are named for every client.
func howToServe(name string) string {
	const flags = "--repo PATH serves one repository, --root DIR every repository under DIR/OWNER/REPO"
	switch name {
	case "claude-code":
		return "In Claude Code: start claude inside the repository, or add this server with the repository named: " +
			"claude mcp add -s user repo-tools -- mcp-repo-tools serve --repo /path/to/repo (" + flags + ")"
	case "Visual Studio Code", "Visual Studio Code - Insiders":
		return "In VS Code: open the repository as a workspace folder (VS Code gives its workspace folders as MCP roots), " +
			`or put "--repo", "/path/to/repo" after "serve" in the server's args in mcp.json (` + flags + ")"
	case "cursor-vscode":
		return "In Cursor: open the repository as the workspace, " +
			`or put "--repo", "/path/to/repo" after "serve" in the server's args in .cursor/mcp.json (` + flags + ")"
	}
	return "" // repo's own: start it with --repo or --root, or from inside a clone
}
