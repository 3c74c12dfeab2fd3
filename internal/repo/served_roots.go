package repo

// Serving what the client's MCP roots name, for a server started outside
// any repository: it must not exit (no client shows why it did), so it
// serves nothing until the client says where its work is.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// rooted is what a Served started by ServeNothingYet serves now.
type rooted struct {
	start     string // the directory the server was started in
	startSays string // what that directory is: why nothing is served from it

	mu    sync.Mutex
	cur   *rootSet          // the latest answer served; nil: none yet
	asked uint64            // the generation of the latest roots request
	held  map[*rootSet]bool // replaced sets calls still use (roots_sets.go)
	how   string            // how the client gives the server a repository (SayHow)
	ready chan struct{}     // closed unless a roots request is pending
}

// ServeNothingYet serves no repository until SetRoots names some. start is
// the directory the server was started in, which errors name, and why is
// what finding no repository there gave (ErrNoRepository, or a
// NotOwnedError naming the repository above it that is not served).
func ServeNothingYet(env *git.Env, start string, why error) *Served {
	ready := make(chan struct{})
	close(ready)
	says := "which is not inside a git repository"
	var notOwned *NotOwnedError
	if errors.As(why, &notOwned) {
		says = fmt.Sprintf("which is inside %s, a repository not served: %s", notOwned.Top, notOwned.Reason())
	}
	return &Served{env: env, rooted: &rooted{start: start, startSays: says, ready: ready, held: map[*rootSet]bool{}}}
}

// FollowsRoots reports whether what is served comes from the client's roots.
func (s *Served) FollowsRoots() bool { return s != nil && s.rooted != nil }

// RootsRequest is one request for the client's roots. Answers are served
// in the order the requests were made, whatever order they come in: one
// older than the answer served is dropped (docs/security.md, review 4,
// finding 09).
type RootsRequest struct {
	gen  uint64
	done func()
}

// Done releases the calls that wait for the answer.
func (q *RootsRequest) Done() { q.done() }

// RootsPending holds Get and List until the request's Done: a roots request
// is on its way, and a call made meanwhile must see its answer.
func (s *Served) RootsPending() *RootsRequest {
	rt := s.rooted
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.asked++
	ch := make(chan struct{})
	rt.ready = ch
	var once sync.Once
	return &RootsRequest{gen: rt.asked, done: func() { once.Do(func() { close(ch) }) }}
}

// RootsServed is what SetRoots made of the client's roots.
type RootsServed struct {
	Served  []string      // the names served
	Refused []RootRefused // the roots not served, each with why
	Notes   []string      // names not given as the roots' remotes claim them, and why
	Dropped bool          // an answer to an older request than the one served: not served
}

// RootRefused is a root that is not served, and why.
type RootRefused struct {
	Root   string
	Why    string // for the client: no host path but the root's and its parents'
	Detail string // for the log
}

// SetRoots serves the git repositories the roots (absolute directories)
// are in, each held to the rules of --repo (ServeOne): one as --repo would
// serve it, several each by a name no other root can take (nameRoots). q
// is the request the roots answer (nil: one made now). unread are roots
// the caller did not look at, and why: they are said with the others.
func (s *Served) SetRoots(ctx context.Context, q *RootsRequest, roots []string, unread ...RootRefused) RootsServed {
	if q == nil {
		q = s.RootsPending()
		defer q.Done()
	}
	var out RootsServed
	var found []rootRepo
	for _, root := range roots {
		one, err := ServeOne(ctx, s.env, root, "")
		if err != nil {
			out.Refused = append(out.Refused, refusal(root, err))
			continue
		}
		r := one.single
		if same := sameRepository(found, r); same != "" {
			r.Git.Close()
			why := "the same repository as the root " + same
			out.Refused = append(out.Refused, RootRefused{Root: root, Why: why, Detail: why})
			continue
		}
		found = append(found, rootRepo{root: root, r: r})
	}
	kept, notes, clashed := nameRoots(found)
	out.Notes = notes
	out.Refused = append(append(out.Refused, clashed...), unread...)
	set := &rootSet{roots: roots, refused: out.Refused, notes: notes}
	switch len(kept) {
	case 0:
	case 1:
		set.served = &Served{env: s.env, single: kept[0]}
	default:
		set.served = &Served{env: s.env, set: kept}
	}
	for _, r := range kept {
		out.Served = append(out.Served, r.FullName())
	}
	if set.served != nil {
		set.served.rootsNote = set.remarks()
	}
	out.Dropped = !s.rooted.install(q.gen, set)
	return out
}

// refusal says why a root is not served, as ServeOne refused it.
func refusal(root string, err error) RootRefused {
	why := err.Error()
	var store *storeRefused
	switch {
	case errors.As(err, &store):
		why = "not served: " + store.why // the detail may name paths outside the root
	case errors.Is(err, ErrNoRepository):
		why = "not inside a git repository"
		if _, stop, ok := strings.Cut(err.Error(), " (the search stopped"); ok {
			why += " (the search stopped" + stop
		}
	}
	return RootRefused{Root: root, Why: why, Detail: err.Error()}
}

// sameRepository: two roots inside one work tree are one repository; it
// returns the root that has it already, or "".
func sameRepository(found []rootRepo, r *Repository) string {
	for _, o := range found {
		if o.r.Git.GitDir() == r.Git.GitDir() {
			return o.root
		}
	}
	return ""
}

// current waits for a pending roots request and returns what is served,
// held for the call ctx belongs to (roots_sets.go), or the error every
// tool answers while nothing is.
func (rt *rooted) current(ctx context.Context) (*Served, error) {
	rt.mu.Lock()
	ready := rt.ready
	rt.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if s := rt.hold(ctx); s != nil {
		return s, nil
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	gave := "the client gave no MCP root that is a git repository"
	if rt.cur != nil && len(rt.cur.roots) > 0 {
		gave = "none of the client's MCP roots is served: " + rt.cur.remarks()
	}
	how := rt.how
	if how == "" {
		how = "Start it with --repo PATH (one repository) or --root DIR (every repository under DIR/OWNER/REPO), or from inside a clone"
	}
	return nil, errcode.New(errcode.NotFound, "no repository is served: the server was started in %s, %s, and %s. %s", rt.start, rt.startSays, gave, how)
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

// NothingYet says, for the server's instructions, what a server started
// outside any repository serves and how to give it one ("" otherwise).
func (s *Served) NothingYet() string {
	if !s.FollowsRoots() {
		return ""
	}
	return "Nothing is served yet: the server was started in " + s.rooted.start + ", " + s.rooted.startSays + ". " +
		"It serves the git repositories the client gives as MCP roots; otherwise it must be started with --repo PATH or --root DIR, and until then every tool answers with an error that says so."
}

// Single is the one repository served by --repo, or nil.
func (s *Served) Single() *Repository {
	if s == nil {
		return nil
	}
	return s.single
}
