package repo

// What one answer of the client's roots serves, and its life: it is
// served from the answer's install until a newer answer's, and closed once
// the last call that got it ends (docs/security.md, review 4, findings 09
// and 10).

import (
	"context"
	"fmt"
	"strings"
)

// rootSet is what one answer of the client's roots serves.
type rootSet struct {
	served  *Served // nil: none of the roots is served
	gen     uint64  // the request it answers (RootsRequest)
	roots   []string
	refused []RootRefused
	notes   []string

	refs    int  // calls that got it and have not ended
	retired bool // replaced: closed when refs falls to 0
	closed  bool
}

// install serves set, the answer to request gen, unless an answer to a
// newer request is served already: then set is closed and install reports
// false. What it replaces is closed now, or by the last call using it.
func (rt *rooted) install(gen uint64, set *rootSet) bool {
	set.gen = gen
	rt.mu.Lock()
	old := rt.cur
	if old != nil && old.gen >= gen {
		rt.mu.Unlock()
		set.close()
		return false
	}
	rt.cur = set
	closeOld := old != nil && rt.retire(old)
	rt.mu.Unlock()
	if closeOld {
		old.close()
	}
	return true
}

// retire marks a replaced set; it reports whether no call uses it, so the
// caller closes it (outside the lock). Called with rt.mu held.
func (rt *rooted) retire(set *rootSet) bool {
	set.retired = true
	if set.refs > 0 {
		rt.held[set] = true
		return false
	}
	set.closed = true
	return true
}

// hold returns what is served now, for the call ctx belongs to: the set
// stays open until ctx ends (a tool call's context ends with the call). A
// context that never ends holds it until exit. nil: nothing is served.
func (rt *rooted) hold(ctx context.Context) *Served {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	set := rt.cur
	if set == nil || set.served == nil {
		return nil
	}
	set.refs++
	context.AfterFunc(ctx, func() { rt.release(set) })
	return set.served
}

// release ends one call's hold on set, and closes it if it was replaced
// and this was the last.
func (rt *rooted) release(set *rootSet) {
	rt.mu.Lock()
	set.refs--
	last := set.refs == 0 && set.retired && !set.closed
	if last {
		set.closed = true
		delete(rt.held, set)
	}
	rt.mu.Unlock()
	if last {
		set.served.Close()
	}
}

// close ends a set's repositories' git processes.
func (set *rootSet) close() {
	if set.served != nil {
		set.served.Close()
	}
}

// close, at exit, closes what is served and every set still held.
func (rt *rooted) close() {
	rt.mu.Lock()
	sets := []*rootSet{}
	for s := range rt.held {
		sets = append(sets, s)
	}
	if rt.cur != nil {
		sets = append(sets, rt.cur)
	}
	for _, s := range sets {
		s.closed = true
	}
	rt.cur, rt.held = nil, map[*rootSet]bool{}
	rt.mu.Unlock()
	for _, s := range sets {
		s.close()
	}
}

// remarksRoom bounds what remarks says: it ends errors, which must stay
// short enough to be read whole.
const remarksRoom = 4000

// remarks says why roots are not served, or not by the names their
// remotes claim ("" when all are, by those names).
func (set *rootSet) remarks() string {
	var parts []string
	for _, r := range set.refused {
		parts = append(parts, r.Root+": "+r.Why)
	}
	parts = append(parts, set.notes...)
	var b strings.Builder
	for i, p := range parts {
		if b.Len()+len(p) > remarksRoom {
			fmt.Fprintf(&b, "; and %d more (the server's log has them all)", len(parts)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// RootsRemarks says, for list_repositories, why some of the client's roots
// are not served, or not by the names their remotes claim ("" otherwise).
func (s *Served) RootsRemarks(ctx context.Context) string {
	if !s.FollowsRoots() {
		return ""
	}
	cur, err := s.rooted.current(ctx)
	if err != nil {
		return ""
	}
	return cur.rootsNote
}
