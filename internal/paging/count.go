package paging

import (
	"context"
	"io"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// StartCount counts q's whole patch (patchTotal) in the background, by
// countDeadline; counted waits for it: nil when it was not counted (in
// time, or at all: the part says no total then, never a wrong one). stop
// ends it.
func (ds *Diffs) StartCount(ctx context.Context, q Request) (counted func() *diff.Total, stop func()) {
	if t, ok := ds.cache.total(q.cacheKey()); ok {
		return func() *diff.Total { return &t }, func() {}
	}
	countCtx, cancel := context.WithDeadline(ctx, countDeadline(ctx))
	done := make(chan *diff.Total, 1)
	go func() {
		t, err := ds.patchTotal(countCtx, q)
		if err != nil {
			done <- nil
			return
		}
		ds.cache.keepTotal(q.cacheKey(), t)
		done <- &t
	}()
	return func() *diff.Total { return <-done }, cancel
}

// countDeadline is when a count started now gives up: within half the
// time the call has left, and at most CountTime.
func countDeadline(ctx context.Context) time.Time {
	budget := CountTime
	if deadline, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(deadline)/2)
	}
	return time.Now().Add(budget)
}

// CountTime bounds the count of a diff's patch. A variable for the tests.
var CountTime = 30 * time.Second

// patchTotal is git's byte count of q's whole patch, hidden files not
// counted. Without a filter it is of the git diff of the whole selection,
// the command the first part is cut from: a later part's git diff,
// restricted to its changes (both sides of renames), gives the same
// sections. With a filter it is of the diffs the parts are cut from, chunk
// by chunk (PatchSizes).
func (ds *Diffs) patchTotal(ctx context.Context, q Request) (diff.Total, error) {
	if q.Only != nil {
		return ds.PatchSizes(ctx, q, 0, -1, nil)
	}
	var t *diff.Total
	err := q.Repo.Git.Patch(ctx, q.Opts, func(patch io.Reader) error {
		var err error
		t, err = diff.Count(patch, q.Hide, nil)
		return err
	})
	if err != nil {
		return diff.Total{}, err
	}
	return *t, nil
}

// PatchSizes counts the patch of q's selection from change from on, n
// changes of it (all of them when n < 0), as its parts are read: chunk by
// chunk, each the git diff a part is cut from (chunkOptions), so that the
// count and the parts cannot part. each, when not nil, is handed every
// change with its patch's bytes (its two sections' for a type change; 0
// when hidden, or too large to diff). list_pull_request_files' sizes and
// every diff part's total come from it.
func (ds *Diffs) PatchSizes(ctx context.Context, q Request, from, n int, each func(i int, c git.Change, bytes int64) error) (diff.Total, error) {
	var counted diff.Total
	var kept []git.Change
	first, keptBytes, i, stopped := from, 0, 0, false
	flush := func(total int) error {
		if len(kept) == 0 {
			return nil
		}
		skipped := tooLargeToDiff(ctx, q.Repo, q.Opts, kept)
		opts, ok, _ := q.chunkOptions(first, kept, total, skipped)
		sizes := make([]int64, len(kept))
		if ok {
			err := q.Repo.Git.Patch(ctx, opts, func(patch io.Reader) error {
				j := 0
				t, err := diff.Count(patch, q.Hide, func(sec diff.SectionSize) {
					for j < len(kept) && !sectionOf(sec.Header, kept[j]) {
						j++
					}
					if j < len(kept) && !sec.Hidden {
						sizes[j] += sec.Bytes
					}
				})
				if err == nil {
					counted.Files += t.Files
					counted.Bytes += t.Bytes
				}
				return err
			})
			if err != nil {
				return err
			}
		}
		for j, c := range kept {
			if each != nil {
				if err := each(first+j, c, sizes[j]); err != nil {
					return err
				}
			}
		}
		first, kept, keptBytes = first+len(kept), kept[:0], 0
		return nil
	}
	keep := func(git.Change) bool { return true }
	if q.Only != nil {
		keep = q.Only.Keep
		if q.Only.Again != nil {
			keep = q.Only.Again
		}
	}
	_, err := q.Repo.Git.EachChange(ctx, q.ListOptions(), func(_ int, c git.Change) error {
		if !keep(c) {
			return nil
		}
		i++
		if i <= from {
			return nil
		}
		if n >= 0 && i > from+n {
			stopped = true
			return git.ErrStop
		}
		if chunkFull(kept, keptBytes, c) {
			if err := flush(-1); err != nil { // more follow: restricted
				return err
			}
		}
		kept, keptBytes = append(kept, c), keptBytes+PathBytes(c)
		return nil
	})
	if err == nil && stopped {
		err = flush(-1) // more follow: restricted
	} else if err == nil {
		err = flush(i)
	}
	if err != nil {
		return diff.Total{}, GoneCommit(q.Repo, false, err)
	}
	return counted, nil
}
