package paging

import (
	"context"
	"errors"
	"io"
	"maps"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// partDiff is the git diff a part is cut from. With a fill slot free it
// fills a run of the patch cache: git then goes on after the part, in the
// background (until its end, the run's bound, or fillTimeout), under a
// context of its own that the call's end stops only while the part is
// read.
type partDiff struct {
	patch *git.StartedPatch
	fills bool
	// With fills: the object store's state before git read (stamp), the
	// fill slot's release, and what stops git.
	stamp      string
	release    func()
	stopGit    context.CancelFunc
	stopOnCall func() bool
}

// startDiff starts the git diff of opts for q's part.
func (ds *Diffs) startDiff(ctx context.Context, q Request, opts git.DiffOptions) *partDiff {
	return ds.startDiffAs(ctx, q, opts, false)
}

// startEarlyDiff starts the git diff of q's whole selection before the
// listing says whether the part is cut from it, when a process slot is
// spare (git.Repo.StartPatchEarly); nil when none is.
func (ds *Diffs) startEarlyDiff(ctx context.Context, q Request) *partDiff {
	return ds.startDiffAs(ctx, q, q.Opts, true)
}

func (ds *Diffs) startDiffAs(ctx context.Context, q Request, opts git.DiffOptions, early bool) *partDiff {
	d := &partDiff{}
	if release, ok := ds.cache.startFill(); ok {
		// Stamped before git reads: a change to the store while it does
		// makes the run unusable.
		if stamp, ok := q.Repo.Git.ObjectsStamp(q.Opts.From, q.Opts.To); ok {
			d.fills, d.stamp, d.release = true, stamp, release
		} else {
			release()
		}
	}
	gitCtx := ctx
	if d.fills {
		gitCtx, d.stopGit = context.WithTimeout(context.WithoutCancel(ctx), fillTimeout)
		d.stopOnCall = context.AfterFunc(ctx, d.stopGit)
	}
	if !early {
		d.patch = q.Repo.Git.StartPatch(gitCtx, opts)
		return d
	}
	var ok bool
	if d.patch, ok = q.Repo.Git.StartPatchEarly(gitCtx, opts); !ok {
		d.stopAll()
		return nil
	}
	return d
}

// abandon stops a diff that no part is cut from.
func (d *partDiff) abandon() {
	d.patch.Abandon()
	d.stopAll()
}

// stopAll gives back what a diff that fills took: its fill slot, its
// context.
func (d *partDiff) stopAll() {
	if d.fills {
		d.stopOnCall()
		d.stopGit()
		d.release()
	}
}

// readFromGit cuts a part from the git diff d, filling a run with it when
// d fills.
func (ds *Diffs) readFromGit(ctx context.Context, q Request, d *partDiff, total int, kept []git.Change, skipped map[string]int64) (*diff.Page, error) {
	if !d.fills {
		var c partCut
		err := d.patch.Read(func(patch io.Reader) error {
			c = cutPart(patch, nil, q)
			return nil
		})
		return c.result(q, err)
	}
	// The part's own skipped map is filtered by place: the run keeps its
	// own.
	run := newPatchRun(q.cacheKey(), q.Start.Change, total, kept, maps.Clone(skipped), d.stamp, ds.cache.runLimit())
	ds.cache.put(run, time.Now())
	cuts, gitDone, partRead := make(chan partCut, 1), make(chan error, 1), make(chan struct{})
	go func() {
		defer d.release()
		defer d.stopGit()
		eof, called := false, false
		err := d.patch.Read(func(patch io.Reader) error {
			called = true
			c := cutPart(patch, run, q)
			cuts <- c
			<-partRead
			if c.eof || c.err != nil {
				eof = c.eof
				return nil
			}
			var err error
			eof, err = run.fill(patch)
			return err
		})
		if !called {
			cuts <- partCut{err: errNoOutput}
		}
		run.finish(err, eof)
		gitDone <- err
	}()
	c := <-cuts
	d.stopOnCall() // from here on, git fills the run as readers want it
	run.wantMore()
	if c.err != nil && !errors.Is(c.err, diff.ErrBadPos) {
		d.stopGit()
	}
	close(partRead)
	if c.eof || c.err != nil {
		// git's exit tells a failure (a pinned commit pruned) from a
		// position that is not in the diff.
		return c.result(q, <-gitDone)
	}
	return c.page, nil
}

// partCut is a part cut from git's output, and whether git's output ended
// in it.
type partCut struct {
	page *diff.Page
	err  error
	eof  bool
}

// errNoOutput: git did not start; its error says why.
var errNoOutput = errors.New("git diff gave no output")

// cutPart cuts q's part from git's patch, keeping what it reads in run
// (when not nil).
func cutPart(patch io.Reader, run *patchRun, q Request) partCut {
	src := &eofReader{r: patch}
	var in io.Reader = src
	if run != nil {
		in = io.TeeReader(src, run)
	}
	page, err := diff.ReadPage(in, q.pageOptions())
	return partCut{page, err, src.eof}
}

// result is the part, or the error: git's failure first (a pinned commit
// pruned), then a position that is not in the diff.
func (c partCut) result(q Request, gitErr error) (*diff.Page, error) {
	switch {
	case gitErr != nil:
		return nil, GoneCommit(q.Repo, q.Start != (Pos{}), gitErr)
	case errors.Is(c.err, diff.ErrBadPos):
		return nil, ErrBadPosition()
	case c.err != nil:
		return nil, c.err
	}
	return c.page, nil
}

// eofReader notes that its reader reached its end.
type eofReader struct {
	r   io.Reader
	eof bool
}
