package paging

import (
	"context"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
)

// Cutting a part from a run (reading up to its start, cutting its patch)
// is most of what a part costs the server. An agent that reads a diff part
// by part asks next for the part that starts where the last one ended,
// with the same room: so the run cuts that part in the background while
// the reply goes out and is read (cutAhead), and the call for it takes it
// (takeAhead). A part cut ahead is the part diff.ReadPage cuts on the call:
// the same run, the same options; any other call cuts its own.

// cutKey is what a part cut from a run depends on besides the run.
type cutKey struct {
	start     Pos
	room      int
	hide      bool
	startSize int64
	cost      Cost
}

func (q Request) cutKey() cutKey {
	return cutKey{start: q.Start, room: q.Room, hide: q.Hide != nil, startSize: q.Split.Bytes, cost: q.Cost}
}

// aheadCut is a part being cut, or cut, ahead of its call.
type aheadCut struct {
	key  cutKey
	done chan struct{}
	page *diff.Page // nil when the cut failed or met where the run stops short
}

// aheadTimeout bounds a cut ahead that waits for git.
const aheadTimeout = 10 * time.Second

// cutAhead cuts q's part from the run in the background, in place of any
// part cut ahead before.
func (r *patchRun) cutAhead(q Request) {
	a := &aheadCut{key: q.cutKey(), done: make(chan struct{})}
	r.mu.Lock()
	if r.ahead != nil && r.ahead.key == a.key {
		r.mu.Unlock()
		return
	}
	r.ahead = a
	r.mu.Unlock()
	go func() {
		defer close(a.done)
		ctx, cancel := context.WithTimeout(context.Background(), aheadTimeout)
		defer cancel()
		if page, _, err := r.cut(ctx, q); err == nil {
			a.page = page
		}
	}()
}

// cut cuts q's part from the run, as a call does (cachedPart) and as one
// is cut ahead. reached is false when the run ended, or ctx did, before
// q's change; page is nil with no error where the run stops short inside
// the part.
func (r *patchRun) cut(ctx context.Context, q Request) (page *diff.Page, reached bool, err error) {
	at, ok := r.offsetOf(ctx, q.Start.Change)
	if !ok {
		return nil, false, nil
	}
	rr := r.reader(ctx, at)
	page, err = diff.ReadPage(rr, q.pageOptions())
	if rr.cut {
		return nil, true, nil
	}
	return page, true, err
}

// takeAhead is the part cut ahead for q, waited for while it is being cut;
// nil when there is none.
func (r *patchRun) takeAhead(ctx context.Context, q Request) *diff.Page {
	r.mu.Lock()
	a := r.ahead
	if a == nil || a.key != q.cutKey() {
		r.mu.Unlock()
		return nil
	}
	r.ahead = nil
	r.mu.Unlock()
	select {
	case <-a.done:
		return a.page
	case <-ctx.Done():
		return nil
	}
}
