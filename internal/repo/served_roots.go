package repo

// Serving what the client's MCP roots name, for a server started outside
// any repository: it must not exit (no client shows why it did), so it
// serves nothing until the client says where its work is.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// rooted is what a Served started by ServeNothingYet serves now.
type rooted struct {
	start string // the directory the server was started in

	mu      sync.Mutex
	cur     *Served       // nil: nothing served yet
	roots   []string      // the client's last roots, for errors
	how     string        // how the client gives the server a repository (SayHow)
	ready   chan struct{} // closed unless a roots request is pending
	retired []*Served     // replaced, closed with the server: calls may still use them
}

// ServeNothingYet serves no repository until SetRoots names some. start is
// the directory the server was started in, which errors name.
func ServeNothingYet(env *git.Env, start string) *Served {
	ready := make(chan struct{})
	close(ready)
	return &Served{env: env, rooted: &rooted{start: start, ready: ready}}
}

// FollowsRoots reports whether what is served comes from the client's roots.
func (s *Served) FollowsRoots() bool { return s != nil && s.rooted != nil }

// RootsPending holds Get and List until done is called: a roots request is
// on its way, and a call made meanwhile must see its answer.
func (s *Served) RootsPending() (done func()) {
	rt := s.rooted
	rt.mu.Lock()
	defer rt.mu.Unlock()
	ch := make(chan struct{})
	rt.ready = ch
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

// SetRoots serves the git repositories the roots (absolute directories)
// are in: one as --repo would serve it, several each by its remote's name.
// It returns what is served now and the roots that are not repositories.
func (s *Served) SetRoots(ctx context.Context, roots []string) (served, skipped []string) {
	var repos []*Repository
	taken := map[string]bool{}
	for _, root := range roots {
		one, err := ServeOne(ctx, s.env, root, "")
		if err != nil {
			skipped = append(skipped, root)
			continue
		}
		r := one.single
		if taken[strings.ToLower(r.FullName())] { // two clones of one remote: the second by its directory
			r.Owner, r.Name = "local", sanitizeName(filepath.Base(root))
		}
		if taken[strings.ToLower(r.FullName())] || sameRepository(repos, r) {
			r.Git.Close()
			skipped = append(skipped, root)
			continue
		}
		taken[strings.ToLower(r.FullName())] = true
		repos = append(repos, r)
		served = append(served, r.FullName())
	}
	var next *Served
	switch len(repos) {
	case 0:
	case 1:
		next = &Served{env: s.env, single: repos[0]}
	default:
		next = &Served{env: s.env, set: repos}
	}
	rt := s.rooted
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.cur != nil {
		rt.retired = append(rt.retired, rt.cur)
	}
	rt.cur, rt.roots = next, roots
	return served, skipped
}

// sameRepository: two roots inside one work tree are one repository.
func sameRepository(repos []*Repository, r *Repository) bool {
	for _, o := range repos {
		if o.Git.GitDir() == r.Git.GitDir() {
			return true
		}
	}
	return false
}

// current waits for a pending roots request and returns what is served,
// or the error every tool answers while nothing is.
func (rt *rooted) current(ctx context.Context) (*Served, error) {
	rt.mu.Lock()
	ready := rt.ready
	rt.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.cur != nil {
		return rt.cur, nil
	}
	gave := "the client gave no MCP root that is"
	if len(rt.roots) > 0 {
		gave = fmt.Sprintf("none of the client's MCP roots (%s) is", strings.Join(rt.roots, ", "))
	}
	how := rt.how
	if how == "" {
		how = "Start it with --repo PATH (one repository) or --root DIR (every repository under DIR/OWNER/REPO), or from inside a clone"
	}
	return nil, errcode.New(errcode.NotFound, "no repository is served: the server was started in %s, which is not inside a git repository, and %s a git repository. %s", rt.start, gave, how)
}

// SayHow sets what the error every tool answers while nothing is served
// says after why: how, in the client that started the server, to give it
// a repository ("": start it with --repo or --root, or inside a clone).
func (s *Served) SayHow(how string) {
	if !s.FollowsRoots() {
		return
	}
	rt := s.rooted
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.how = how
}

func (rt *rooted) close() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for _, s := range append(rt.retired, rt.cur) {
		if s != nil {
			s.Close()
		}
	}
	rt.cur, rt.retired = nil, nil
}

// NothingYet says, for the server's instructions, what a server started
// outside any repository serves and how to give it one ("" otherwise).
func (s *Served) NothingYet() string {
	if !s.FollowsRoots() {
		return ""
	}
	return "Nothing is served yet: the server was started in " + s.rooted.start + ", which is not inside a git repository. " +
		"It serves the git repositories the client gives as MCP roots; otherwise it must be started with --repo PATH or --root DIR, and until then every tool answers with an error that says so."
}

// Single is the one repository served by --repo, or nil.
func (s *Served) Single() *Repository {
	if s == nil {
		return nil
	}
	return s.single
}
