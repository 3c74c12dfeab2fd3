package forge

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// Mirrors keeps bare mirrors of forge repositories in a cache directory, for
// the tools that need git itself (diffs between any two commits, reads at a
// ref, search). A mirror holds branches, tags and refs/pull/*/head.
type Mirrors struct {
	client *Client
	env    *git.Env
	dir    string // DIR/HOST
	ttl    time.Duration
	// MinRefresh is the shortest time between two fetches of one mirror,
	// even when a ref is missing: an agent asking for bad refs must not
	// make every call a fetch.
	MinRefresh time.Duration

	fetches singleflight.Group
	running chan struct{} // bounds the fetches running at once
	mu      sync.Mutex
	fetched map[string]time.Time // last successful fetch, by mirror directory
}

// NewMirrors keeps mirrors under dir, refreshed when older than ttl.
func NewMirrors(c *Client, env *git.Env, dir string, ttl time.Duration) (*Mirrors, error) {
	dir = filepath.Join(dir, strings.ReplaceAll(c.base.Host, ":", "_"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--cache-dir: %w", err)
	}
	return &Mirrors{client: c, env: env, dir: dir, ttl: ttl, MinRefresh: 5 * time.Second,
		running: make(chan struct{}, maxFetches), fetched: map[string]time.Time{}}, nil
}

// refspecs are what a mirror fetches.
var refspecs = []string{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", "+refs/pull/*/head:refs/pull/*/head"}

// maxFetches bounds the fetches running at once, apart from the git
// processes that serve reads.
const maxFetches = 2

// fetchTimeout bounds one fetch, which callers share; it does not end with
// the first caller's call.
const fetchTimeout = 10 * time.Minute

// Open returns the mirror of owner/repo, fetched within the TTL, or now when
// refresh is set (a ref was missing). Concurrent callers share one fetch.
// When a refresh fails and a copy exists, the copy is served and Stale says so.
func (m *Mirrors) Open(ctx context.Context, owner, name string, refresh bool) (repo.Opened, error) {
	if !repo.ValidName(owner) || !repo.ValidName(name) {
		return repo.Opened{}, errcode.New(errcode.InvalidArgument, "%q/%q is not a repository name: names use letters, digits, '-', '_' and '.'", owner, name)
	}
	gitDir := filepath.Join(m.dir, strings.ToLower(owner), strings.ToLower(name)+".git")
	m.mu.Lock()
	last, ok := m.fetched[gitDir]
	m.mu.Unlock()
	if ok && (time.Since(last) < m.MinRefresh || !refresh && time.Since(last) < m.ttl) {
		return repo.Opened{GitDir: gitDir}, nil
	}
	ch := m.fetches.DoChan(gitDir, func() (any, error) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
		defer cancel()
		return nil, m.fetch(fctx, owner, name, gitDir)
	})
	select {
	case res := <-ch:
		if res.Err == nil {
			return repo.Opened{GitDir: gitDir}, nil
		}
		// A copy from before (this run or an earlier one) still serves.
		if fi, err := os.Stat(filepath.Join(gitDir, "refs")); err == nil && hasRefs(gitDir) {
			if !ok {
				last = fi.ModTime()
			}
			return repo.Opened{GitDir: gitDir, Stale: fmt.Errorf("the mirror of %s/%s was last refreshed %s ago; refreshing it failed: %w",
				owner, name, time.Since(last).Round(time.Second), res.Err)}, nil
		}
		return repo.Opened{}, res.Err
	case <-ctx.Done():
		return repo.Opened{}, context.Cause(ctx)
	}
}

func (m *Mirrors) fetch(ctx context.Context, owner, repo, gitDir string) error {
	select {
	case m.running <- struct{}{}:
		defer func() { <-m.running }()
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	info, err := m.client.Repo(ctx, owner, repo)
	if err != nil {
		return err
	}
	// The token goes only to the forge it belongs to.
	clone, err := url.Parse(info.CloneURL)
	if err != nil || clone.Host != m.client.base.Host || clone.Scheme != m.client.base.Scheme {
		return errcode.New(errcode.Unavailable, "the forge gives %q as the clone URL of %s/%s: not on %s, so it is not fetched", info.CloneURL, owner, repo, m.client.base.Host)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(gitDir), 0o700); err != nil {
			return err
		}
		if err := git.InitBare(ctx, m.env, gitDir); err != nil {
			return err
		}
	}
	g := git.Open(m.env, gitDir, "")
	defer g.Close()
	header := ""
	if m.client.token != "" {
		header = "Authorization: token " + m.client.token
	}
	if err := g.Fetch(ctx, info.CloneURL, header, refspecs...); err != nil {
		return errcode.New(errcode.Unavailable, "fetching %s/%s from the forge failed: %s", owner, repo, scrub(err.Error(), m.client.token))
	}
	if info.DefaultBranch != "" {
		if err := g.SetHead(ctx, info.DefaultBranch); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.fetched[gitDir] = time.Now()
	m.mu.Unlock()
	return nil
}

// hasRefs reports whether a mirror holds anything yet.
func hasRefs(gitDir string) bool {
	if fi, err := os.Stat(filepath.Join(gitDir, "packed-refs")); err == nil && fi.Size() > 0 {
		return true
	}
	entries, _ := os.ReadDir(filepath.Join(gitDir, "refs", "heads"))
	return len(entries) > 0
}

// Describe says what is served, for errors about names.
func (m *Mirrors) Describe() string {
	return "this server serves the repositories of " + m.client.Kind + " at " + m.client.BaseURL() + "; list_repositories lists them"
}

// List lists the forge's repositories the token can see.
func (m *Mirrors) List(ctx context.Context) ([]repo.Info, error) {
	repos, err := m.client.Repos(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]repo.Info, len(repos))
	for i, r := range repos {
		out[i] = repo.Info{Owner: r.Owner.Login, Name: r.Name, Bare: true, DefaultBranch: r.DefaultBranch}
	}
	return out, nil
}
