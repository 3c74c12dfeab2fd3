package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Paging through patches: get_diff and get_pull_request_diff return a diff
// in parts that each fit a reply, and each part says where the next one
// starts (a cursor: a change of the diff's file list, a section of it, a
// line of that section). A part is read from a git diff restricted to the
// changes from that one on, so a later part costs what it holds, not what
// came before it; diff.ReadPage cuts it, between files and hunks where it
// can, inside a hunk at line boundaries where it must.

// partPos is where a part starts: the index of a change in the diff's file
// list, the section of it (a type change has two) and the body line.
type partPos struct {
	change, section int
	line            int64
}

// maxPartChanges and maxPartPathBytes bound the changes one part's git diff
// is restricted to, and so its memory and command line: a part lists at
// most 1,000 files (diff.ReadPage), and its text, at most a reply, names
// each file it shows at least twice.
const (
	maxPartChanges   = 500
	maxPartPathBytes = 128 << 10
)

// splitPos is what a part that starts inside a file, or the next part
// after one that ends inside a file, knows of it (zero: not known): which
// of the file's parts it is, and the size of the file's patch.
type splitPos struct {
	part  int
	bytes int64
}

// diffPart is one part of a diff.
type diffPart struct {
	page *diff.Page
	// counted is the whole selection's patch (its files' sections and
	// bytes), counted when the request asked for it (countRest; nil when
	// it could not be counted in time).
	counted *diff.Total
	// split is where the part's first file, continued from the previous
	// part, is; nextSplit where the next part's is, when it starts inside
	// a file.
	split, nextSplit splitPos
	// terse: the part does not say where it is in the files it splits
	// (fitPart), and its cursor carries nothing of them.
	terse bool
	// changes are the changes of the part's sections, one per section
	// (a type change's two sections share one).
	changes []git.Change
	next    *partPos // nil: this part ends the diff
	total   int      // changes in the whole selection
	// first and last are the indexes of the part's first and last changes.
	first, last int
	// generated tells the part's generated and vendored files (flagGenerated).
	generated func(string) bool
	// skipped are the part's changes too large to diff, by path, with the
	// size of the blob that is.
	skipped map[string]int64
	// bare are the changes the part passes that git printed no section
	// for, and did not skip: with -w, those whose changes are all
	// whitespace (bareNote).
	bare []git.Change
}

// maxDiffBlob is the largest file a part's git diff is given: git holds
// both sides of a file in memory, several times its size, and a git
// process runs under a memory cap (--max-git-memory); a 216 MB file made
// the whole range unreadable. A larger file is named, not diffed, and
// read_file reads it. A variable for the tests.
var maxDiffBlob int64 = 64 << 20

// tooLargeToDiff finds the changes whose new (for a deletion, old) blob is
// larger than maxDiffBlob, asking the object reader for sizes only.
func tooLargeToDiff(ctx context.Context, r *repo.Repository, o git.DiffOptions, kept []git.Change) map[string]int64 {
	var names, paths []string
	for _, c := range kept {
		commit, path := o.To, c.Path
		if c.Status == 'D' {
			commit, path = o.From, c.OldPath
		}
		if strings.Contains(path, "\n") {
			continue // cat-file names cannot hold a newline; let git decide
		}
		names, paths = append(names, commit+":"+path), append(paths, c.Path)
	}
	objs, err := r.Git.Infos(ctx, names)
	if err != nil {
		// One name the batch could not take (git died on it): ask for
		// each alone, so that the others are still known.
		objs = make([]git.Object, len(names))
		for i, name := range names {
			objs[i], _ = r.Git.Info(ctx, name)
		}
	}
	var out map[string]int64
	for i, obj := range objs {
		if obj.Size > maxDiffBlob {
			if out == nil {
				out = map[string]int64{}
			}
			out[paths[i]] = obj.Size
		}
	}
	return out
}

// flagGenerated decides which of the part's files are generated or
// vendored, by the rules of commit (by name alone when r is nil).
func (s *Server) flagGenerated(ctx context.Context, r *repo.Repository, commit string, p *diffPart) {
	var paths []string
	for _, f := range p.page.Files {
		if !f.Hidden {
			paths = append(paths, sectionName(f.Header))
		}
	}
	p.generated = s.generated(ctx, r, commit, paths)
}

// sectionName is the path a section is listed by: its new path, or its old
// one for a deletion.
func sectionName(h diff.Header) string {
	if h.NewPath != "" {
		return h.NewPath
	}
	return h.OldPath
}

// partRequest asks for one part of a diff.
type partRequest struct {
	repo *repo.Repository
	opts git.DiffOptions
	// only, when set, selects the changes to show (get_diff's paths, paired
	// with the other side of a rename; get_pull_request_diff's file_path).
	// The file list is then read without opts.Paths.
	only      *changeFilter
	start     partPos
	room      int
	countRest bool
	hide      func(diff.Header) bool
	// split is what the previous part knew of the file this one starts
	// inside (its cursor's).
	split splitPos
}

// changeFilter selects changes of a diff; key names the selection in the
// patch cache, so two filters must have the same key only if they select
// the same changes.
type changeFilter struct {
	key  string
	keep func(git.Change) bool
	// again is keep for a second listing in the same call (patchSizes),
	// where keep would note what it selects twice; nil: keep.
	again func(git.Change) bool
}

// cacheKey names the diff a part request reads in the patch cache.
func (q partRequest) cacheKey() string {
	o, only := q.opts, ""
	if q.only != nil {
		only = q.only.key
	}
	return strings.Join([]string{q.repo.Git.GitDir(), o.From, o.To, strconv.Itoa(o.Context), strconv.FormatBool(o.IgnoreWhitespace), strings.Join(o.Paths, "\x00"), only}, "\x01")
}

func (q partRequest) pageOptions() diff.PageOptions {
	return diff.PageOptions{
		Start: diff.Pos{File: q.start.section, Line: q.start.line},
		Room:  q.room, Cost: text.JSONLen[[]byte], Hide: q.hide,
		SizeLast: true, StartSize: q.split.bytes,
	}
}

// readPart lists the diff's changes (rename detection over the whole
// selection, no patches), keeps those from start.change on, at most
// maxPartChanges of them, and cuts the part from the patch cache or else
// from a git diff restricted to their paths.
func (s *Server) readPart(ctx context.Context, q partRequest) (*diffPart, error) {
	if q.countRest && q.start == (partPos{}) {
		// The count runs beside the part's read.
		counted, stop := s.startCount(ctx, q)
		defer stop()
		part, err := s.readPart(ctx, q.withoutCount())
		if err == nil {
			part.counted = counted()
		}
		return part, err
	}
	// A first part is most often cut from the diff of the whole
	// selection: git starts on it now, its rename detection and first
	// files overlapping the listing, and is stopped if the list says the
	// part needs another diff (known already when the list was read
	// before: a range of more files than a part takes).
	var early *partDiff
	n, listed := q.repo.Git.KnownChanges(q.opts)
	if q.start == (partPos{}) && q.only == nil && (!listed || n <= maxPartChanges) && s.patches.find(q.cacheKey(), 0, time.Now()) == nil {
		early = s.startDiff(ctx, q, q.opts)
		defer func() {
			if early != nil {
				early.abandon()
			}
		}()
	}
	var kept []git.Change
	total, keptBytes, full := 0, 0, false
	_, err := q.repo.Git.EachChange(ctx, q.listOptions(), func(_ int, c git.Change) error {
		if q.only != nil && !q.only.keep(c) {
			return nil
		}
		if total >= q.start.change && !full {
			if full = chunkFull(kept, keptBytes, c); !full {
				kept, keptBytes = append(kept, c), keptBytes+pathBytes(c)
			}
		}
		total++
		return nil
	})
	if err != nil {
		return nil, goneCommit(q.repo, q.start != (partPos{}), err)
	}
	if q.start.change > total || (q.start.change == total && q.start != (partPos{change: total})) {
		return nil, errBadPosition()
	}
	if len(kept) == 0 {
		return &diffPart{total: total, page: &diff.Page{Total: &diff.Total{}}, counted: &diff.Total{}}, nil
	}
	part, err := s.cachedPart(ctx, q, total)
	if err != nil {
		return nil, err
	}
	if part == nil {
		if part, err = s.partFromGit(ctx, q, &early, kept, total); err != nil {
			return nil, err
		}
		part.setSplit(q.split)
	}
	return part, nil
}

func (q partRequest) withoutCount() partRequest {
	q.countRest = false
	return q
}

// partFromGit cuts the part from a git diff of its kept changes: the
// early one when it is that diff (then taken: *early is set to nil).
func (s *Server) partFromGit(ctx context.Context, q partRequest, early **partDiff, kept []git.Change, total int) (*diffPart, error) {
	part := &diffPart{total: total}
	part.skipped = tooLargeToDiff(ctx, q.repo, q.opts, kept)
	opts, ok, restricted := q.chunkOptions(q.start.change, kept, total, part.skipped)
	if !ok {
		// Every change here is too large to diff: nothing to run.
		part.page = &diff.Page{}
		return part, part.place(q.start.change, q.start.section, kept, total)
	}
	d := *early
	if restricted || d == nil {
		d = s.startDiff(ctx, q, opts)
	} else {
		*early = nil
	}
	page, err := s.readFromGit(ctx, q, d, total, kept, part.skipped)
	if err != nil {
		return nil, err
	}
	part.page = page
	return part, part.place(q.start.change, q.start.section, kept, total)
}

// listOptions lists the changes q selects from: with a filter, the file
// list is read without opts.Paths.
func (q partRequest) listOptions() git.DiffOptions {
	list := q.opts
	if q.only != nil {
		list.Paths = nil
	}
	return list
}

// chunkFull: a chunk of kept changes, the changes one git diff is
// restricted to, has no room for c.
func chunkFull(kept []git.Change, keptBytes int, c git.Change) bool {
	return len(kept) == maxPartChanges || (len(kept) > 0 && keptBytes+pathBytes(c) > maxPartPathBytes)
}

func pathBytes(c git.Change) int { return len(c.Path) + len(c.OldPath) }

// chunkOptions is the git diff a chunk of kept changes, from change first
// of total, is read from. The whole selection, from its start, needs no
// restriction (restricted false): git prints exactly it. Otherwise the
// diff names the chunk's changes, both sides of renames, but those too
// large to diff; ok is false when that leaves none.
func (q partRequest) chunkOptions(first int, kept []git.Change, total int, skipped map[string]int64) (opts git.DiffOptions, ok, restricted bool) {
	if first == 0 && q.only == nil && len(kept) == total && len(skipped) == 0 {
		return q.opts, true, false
	}
	opts = q.opts
	opts.Paths = nil
	for _, c := range kept {
		if _, skip := skipped[c.Path]; !skip {
			opts.Paths = append(opts.Paths, c.Paths()...)
		}
	}
	return opts, len(opts.Paths) > 0, true
}

// startCount counts q's whole patch (patchTotal) in the background, by
// countDeadline; counted waits for it: nil when it was not counted (in
// time, or at all: the part says no total then, never a wrong one). stop
// ends it.
func (s *Server) startCount(ctx context.Context, q partRequest) (counted func() *diff.Total, stop func()) {
	if t, ok := s.patches.total(q.cacheKey()); ok {
		return func() *diff.Total { return &t }, func() {}
	}
	countCtx, cancel := context.WithDeadline(ctx, countDeadline(ctx))
	done := make(chan *diff.Total, 1)
	go func() {
		t, err := s.patchTotal(countCtx, q)
		if err != nil {
			done <- nil
			return
		}
		s.patches.keepTotal(q.cacheKey(), t)
		done <- &t
	}()
	return func() *diff.Total { return <-done }, cancel
}

// countDeadline is when a count started now gives up: within half the
// time the call has left, and at most countTime.
func countDeadline(ctx context.Context) time.Time {
	budget := countTime
	if deadline, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(deadline)/2)
	}
	return time.Now().Add(budget)
}

// countTime bounds the count of a diff's patch. A variable for the tests.
var countTime = 30 * time.Second

// patchTotal is git's byte count of q's whole patch, hidden files not
// counted. Without a filter it is of the git diff of the whole selection,
// the command the first part is cut from: a later part's git diff,
// restricted to its changes (both sides of renames), gives the same
// sections. With a filter it is of the diffs the parts are cut from, chunk
// by chunk (patchSizes).
func (s *Server) patchTotal(ctx context.Context, q partRequest) (diff.Total, error) {
	if q.only != nil {
		return s.patchSizes(ctx, q, 0, -1, nil)
	}
	var t *diff.Total
	err := q.repo.Git.Patch(ctx, q.opts, func(patch io.Reader) error {
		var err error
		t, err = diff.Count(patch, q.hide, nil)
		return err
	})
	if err != nil {
		return diff.Total{}, err
	}
	return *t, nil
}

// patchSizes counts the patch of q's selection from change from on, n
// changes of it (all of them when n < 0), as its parts are read: chunk by
// chunk, each the git diff a part is cut from (chunkOptions), so that the
// count and the parts cannot part. each, when not nil, is handed every
// change with its patch's bytes (its two sections' for a type change; 0
// when hidden, or too large to diff). list_pull_request_files' sizes and
// every diff part's total come from it.
func (s *Server) patchSizes(ctx context.Context, q partRequest, from, n int, each func(i int, c git.Change, bytes int64) error) (diff.Total, error) {
	var counted diff.Total
	var kept []git.Change
	first, keptBytes, i, stopped := from, 0, 0, false
	flush := func(total int) error {
		if len(kept) == 0 {
			return nil
		}
		skipped := tooLargeToDiff(ctx, q.repo, q.opts, kept)
		opts, ok, _ := q.chunkOptions(first, kept, total, skipped)
		sizes := make([]int64, len(kept))
		if ok {
			err := q.repo.Git.Patch(ctx, opts, func(patch io.Reader) error {
				j := 0
				t, err := diff.Count(patch, q.hide, func(sec diff.SectionSize) {
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
	if q.only != nil {
		keep = q.only.keep
		if q.only.again != nil {
			keep = q.only.again
		}
	}
	_, err := q.repo.Git.EachChange(ctx, q.listOptions(), func(_ int, c git.Change) error {
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
		kept, keptBytes = append(kept, c), keptBytes+pathBytes(c)
		return nil
	})
	if err == nil && stopped {
		err = flush(-1) // more follow: restricted
	} else if err == nil {
		err = flush(i)
	}
	if err != nil {
		return diff.Total{}, goneCommit(q.repo, false, err)
	}
	return counted, nil
}

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
func (s *Server) startDiff(ctx context.Context, q partRequest, opts git.DiffOptions) *partDiff {
	d := &partDiff{}
	if release, ok := s.patches.startFill(); ok {
		// Stamped before git reads: a change to the store while it does
		// makes the run unusable.
		if stamp, ok := q.repo.Git.ObjectsStamp(q.opts.From, q.opts.To); ok {
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
	d.patch = q.repo.Git.StartPatch(gitCtx, opts)
	return d
}

// abandon stops a diff that no part is cut from.
func (d *partDiff) abandon() {
	d.patch.Abandon()
	if d.fills {
		d.stopOnCall()
		d.stopGit()
		d.release()
	}
}

// readFromGit cuts a part from the git diff d, filling a run with it when
// d fills.
func (s *Server) readFromGit(ctx context.Context, q partRequest, d *partDiff, total int, kept []git.Change, skipped map[string]int64) (*diff.Page, error) {
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
	run := newPatchRun(q.cacheKey(), q.start.change, total, kept, maps.Clone(skipped), d.stamp, s.patches.runLimit())
	s.patches.put(run, time.Now())
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
func cutPart(patch io.Reader, run *patchRun, q partRequest) partCut {
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
func (c partCut) result(q partRequest, gitErr error) (*diff.Page, error) {
	switch {
	case gitErr != nil:
		return nil, goneCommit(q.repo, q.start != (partPos{}), gitErr)
	case errors.Is(c.err, diff.ErrBadPos):
		return nil, errBadPosition()
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

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		e.eof = true
	}
	return n, err
}

// cachedPart cuts the part from a run of the patch cache, waiting for
// git where the run is still being filled; nil when no run holds its
// start, or when cutting it met where the run stops short of the diff's
// end (git gives the part: a fuller one, or one that ends elsewhere).
func (s *Server) cachedPart(ctx context.Context, q partRequest, total int) (*diffPart, error) {
	run := s.patches.find(q.cacheKey(), q.start.change, time.Now())
	if run == nil {
		return nil, nil
	}
	if stamp, ok := q.repo.Git.ObjectsStamp(q.opts.From, q.opts.To); !ok || stamp != run.stamp {
		// The object store changed since the run was read: its commits
		// may be pruned (git then says so) or a pack rewritten; git is
		// asked again.
		return nil, nil
	}
	page := run.takeAhead(ctx, q)
	if page != nil {
		s.patches.aheadHits.Add(1)
	} else {
		var reached bool
		var err error
		page, reached, err = run.cut(ctx, q)
		switch {
		case !reached:
			return nil, context.Cause(ctx)
		case page == nil && err == nil: // the run stops short inside the part
			return nil, nil
		case errors.Is(err, diff.ErrBadPos):
			return nil, errBadPosition()
		case err != nil:
			return nil, err
		}
	}
	s.patches.hits.Add(1)
	part := &diffPart{total: total, page: page, skipped: maps.Clone(run.skipped)}
	if err := part.place(q.start.change, q.start.section, run.kept[q.start.change-run.first:], total); err != nil {
		return nil, err
	}
	part.setSplit(q.split)
	if part.next != nil && run.covers(part.next.change) {
		next := q
		next.start, next.split = *part.next, part.nextSplit
		run.cutAhead(next)
	}
	return part, nil
}

// place matches the part's sections to the kept changes (the first is
// change first, and the run started at its section firstSection) and works
// out where the next part starts.
func (p *diffPart) place(first, firstSection int, kept []git.Change, total int) error {
	j, k := 0, firstSection // the change and section of the section at hand
	for i, f := range p.page.Files {
		if i > 0 {
			if kept[j].Status == 'T' && k == 0 && sectionOf(f.Header, kept[j]) {
				k = 1
			} else {
				j, k = j+1, 0
			}
		}
		for j < len(kept) && !sectionOf(f.Header, kept[j]) {
			j, k = j+1, 0
		}
		if j == len(kept) {
			return fmt.Errorf("git diff: a section for %q is not in the file list", f.Header.NewPath)
		}
		p.changes = append(p.changes, kept[j])
	}
	p.first, p.last = first, first+j
	n := p.page.Next
	switch {
	case n == nil && first+len(kept) < total:
		p.next = &partPos{change: first + len(kept)}
	case n == nil:
	case len(p.page.Files) == 0:
		return errors.New("git diff: a part that holds nothing")
	case n.File == p.page.Files[len(p.page.Files)-1].Index:
		p.next = &partPos{change: first + j, section: k, line: n.Line}
	case kept[j].Status == 'T' && k == 0:
		p.next = &partPos{change: first + j, section: 1}
	default:
		p.next = &partPos{change: first + j + 1}
	}
	// The files too large to diff are noted in the part that passes them.
	passed := len(kept)
	if p.next != nil {
		passed = p.next.change - first
	}
	for path := range p.skipped {
		if !slices.ContainsFunc(kept[:passed], func(c git.Change) bool { return c.Path == path }) {
			delete(p.skipped, path)
		}
	}
	for _, c := range kept[:passed] {
		if _, skip := p.skipped[c.Path]; !skip && !slices.Contains(p.changes, c) {
			p.bare = append(p.bare, c)
		}
	}
	return nil
}

// setSplit works out where the part is in the files it continues and
// goes on with, from what the previous part knew (at): the number of the
// first file's part and the size of its patch, and the same for the next
// part when it starts inside a file. A size the part did not read is
// carried from the part that did, in the cursor.
func (p *diffPart) setSplit(at splitPos) {
	files := p.page.Files
	if len(files) == 0 {
		return
	}
	first := files[0]
	if first.Continued {
		p.split = splitPos{part: at.part, bytes: first.Size}
	}
	if p.next == nil || p.next.line == 0 {
		return
	}
	last := files[len(files)-1]
	p.nextSplit = splitPos{part: 2, bytes: last.Size}
	if last.Index == first.Index && first.Continued {
		p.nextSplit.part = 0 // not known when this part's is not
		if p.split.part > 0 {
			p.nextSplit.part = p.split.part + 1
		}
	}
}

// sectionOf: section header h belongs to change c.
func sectionOf(h diff.Header, c git.Change) bool {
	return h.NewPath == c.Path || (h.OldPath != "" && h.OldPath == c.OldPath)
}

// goneCommit is NOT_FOUND for git's failure on a commit the repository no
// longer has: a cursor's pinned commits that were pruned since (a
// long-lived object reader that had read them may still report them, so
// the check of a cursor's commits can pass and the diff fail); else err.
func goneCommit(r *repo.Repository, withCursor bool, err error) error {
	var exit *git.ExitError
	if !errors.As(err, &exit) {
		return err
	}
	id, ok := strings.CutPrefix(strings.TrimSpace(exit.Stderr), "fatal: bad object ")
	if !ok || !git.IsObjectID(id) {
		return err
	}
	if !withCursor {
		return errcode.New(errcode.NotFound, "commit %s is no longer in %s (it was pruned during the call); call again", short(id), r.FullName())
	}
	return errcode.New(errcode.NotFound, "commit %s, which this cursor was made for, is no longer in %s; leave cursor out to start again from the first part", short(id), r.FullName())
}

func errBadPosition() error {
	return errcode.New(errcode.InvalidArgument, "cursor points past the end of the diff: it was damaged or made for other arguments; leave it out to start from the first part")
}

// anyHidden: the part left out a file the secrets policy hides.
func anyHidden(p *diff.Page) bool {
	for _, f := range p.Files {
		if f.Hidden {
			return true
		}
	}
	return false
}

// needsNotes: a part changed or left out something of git's patch (a line
// too long for any reply, bytes that are not UTF-8), so even a diff that
// fits whole must come with its notes.
func needsNotes(p *diff.Page) bool {
	for _, f := range p.Files {
		if len(f.LongLines) > 0 || f.Replaced || f.Omitted {
			return true
		}
	}
	return false
}

// partNotes are the lines after a part's patch that say what it left out or
// changed: hidden files, a file whose header lines are too long for any
// reply, lines too long for any reply, bytes that are not UTF-8. readAt is
// the commit a left-out line can be read at.
func (s *Server) partNotes(p *diffPart, readAt string) string {
	var hidden, replaced, tests, generated []string
	var b strings.Builder
	longNotes := 0
	for _, f := range p.page.Files {
		name := sectionName(f.Header)
		switch {
		case f.Hidden:
			hidden = append(hidden, s.hiddenName(f.Header))
			continue
		case f.Omitted:
			// A part holds at most one (diff.ReadPage).
			fmt.Fprintf(&b, "[left out: the patch of %s, whose header lines alone are longer than a whole reply at this server's limit; read_file reads the file]\n", text.Name(name))
		case f.Replaced:
			replaced = append(replaced, name)
		}
		if isTestPath(name) && (len(tests) == 0 || tests[len(tests)-1] != name) {
			tests = append(tests, name)
		}
		if p.generated != nil && p.generated(name) && (len(generated) == 0 || generated[len(generated)-1] != name) {
			generated = append(generated, name)
		}
		for _, ll := range f.LongLines {
			if longNotes++; longNotes > maxLongNotes {
				continue
			}
			line, side, at := ll.NewLine, "new", readAt
			if line == 0 {
				line, side = ll.OldLine, "old"
			}
			args, _ := json.Marshal(map[string]any{"path": name, "ref": at, "startLine": max(1, line-20)})
			fmt.Fprintf(&b, "[left out: line %d of the %s %s is %d bytes, longer than a whole reply; read_file %s reads the file around it]\n", line, side, text.Name(name), ll.Bytes, text.JSONControls(string(args)))
		}
	}
	var skipped []string
	for path := range p.skipped {
		skipped = append(skipped, path)
	}
	slices.Sort(skipped)
	for i, path := range skipped {
		if i == maxLongNotes {
			fmt.Fprintf(&b, "[not diffed: %d more files too large for git to diff here]\n", len(skipped)-i)
			break
		}
		args := plainJSONText(map[string]any{"path": path, "ref": readAt, "startLine": 1})
		fmt.Fprintf(&b, "[not diffed: %s is %d bytes, too large for git to diff within the server's memory cap; read_file %s reads it]\n", text.Name(path), p.skipped[path], args)
	}
	if longNotes > maxLongNotes {
		fmt.Fprintf(&b, "[left out: %d more lines longer than a whole reply]\n", longNotes-maxLongNotes)
	}
	room := noteListRoom
	if len(hidden) > 0 {
		fmt.Fprintf(&b, "[hidden by the server's secrets policy: %s]\n", fileList(text.Names(hidden), nil, len(hidden), room, ""))
	}
	if len(replaced) > 0 {
		fmt.Fprintf(&b, "[not UTF-8: bytes shown as U+FFFD in %s]\n", fileList(text.Names(replaced), nil, len(replaced), room, ""))
	}
	if len(tests) > 0 {
		fmt.Fprintf(&b, "[test files: %s]\n", fileList(text.Names(tests), nil, len(tests), room, ""))
	}
	if len(generated) > 0 {
		fmt.Fprintf(&b, "[generated or vendored: %s]\n", fileList(text.Names(generated), nil, len(generated), room, ""))
	}
	b.WriteString(scanPart(p).notes(true))
	return b.String()
}

// hiddenName is how a part's notes name a section the secrets policy
// hides: by its path, or for a rename or copy with one side hidden, by its
// public side, said to come from or go to a hidden path. The public path
// is not itself hidden (read_file reads it), and the hidden one is refused
// everywhere, so naming it would tell the agent nothing it can act on.
func (s *Server) hiddenName(h diff.Header) string {
	oldHidden, newHidden := s.cfg.Policy.Denied(h.OldPath), s.cfg.Policy.Denied(h.NewPath)
	verb := "renamed"
	if h.Status == diff.StatusCopied {
		verb = "copied"
	}
	switch {
	case oldHidden == newHidden:
		return sectionName(h)
	case oldHidden:
		return fmt.Sprintf("%s (%s from a hidden path)", h.NewPath, verb)
	default:
		return fmt.Sprintf("%s (%s to a hidden path)", h.OldPath, verb)
	}
}

// noteListRoom bounds each list of names in a part's notes.
const (
	noteListRoom   = 1024
	maxLongNotes   = 5
	longNoteLength = 512
)

// patchRoom is the room a part's patch is given: what the reply leaves,
// within maxBytes when set, and at least minPartRoom so that a part moves
// on.
func patchRoom(room, maxBytes int) int {
	if maxBytes > 0 {
		room = min(room, maxBytes)
	}
	return max(room, minPartRoom)
}

// partNotesRoom is the most a part's notes take: three lists, a few
// left-out lines and hidden-character notes. A part read from a stream that cannot be read twice (a
// forge's diff) keeps it free.
func (s *Server) partNotesRoom() int {
	return 4*noteListRoom + 2*maxLongNotes*longNoteLength + maxHiddenNotes*(hiddenNoteLength+maxNoteName)
}

// notesSlack is the room a part's reply keeps for its notes at first: most
// parts have few or none. A part whose notes are longer is read again with
// the room they leave (partWithNotes).
const notesSlack = 512

// partWithNotes reads a part in the room a reply leaves beside its header
// and next call (and within maxBytes, when set), with its notes: first
// leaving notesSlack for them, and again with less room when they are
// longer. A part with less room holds a prefix of the files, so its notes
// are no longer than the first part's. It returns the patch room the part
// was read in too.
func partWithNotes(room, maxBytes int, read func(room int) (*diffPart, error), notes func(*diffPart) string) (*diffPart, string, int, error) {
	first := patchRoom(room-notesSlack, maxBytes)
	part, err := read(first)
	if err != nil {
		return nil, "", 0, err
	}
	n := notes(part)
	if cost := text.JSONLen(n); cost > notesSlack && patchRoom(room-cost, maxBytes) < first {
		first = patchRoom(room-cost, maxBytes)
		if part, err = read(first); err != nil {
			return nil, "", 0, err
		}
		n = notes(part)
	}
	return part, n, first, nil
}

// maxRefits is how many times fitPart reads a part again: from the patch
// cache, as the first read filled it.
const maxRefits = 6

// fitPart reads a part (partWithNotes) and builds its reply, then fits it
// by its measure. The room is reckoned before the part is read, with the
// header, notes and next call at their longest, and with --structured
// each file's fields are sent beside its patch, which it did not count: a
// reply over the limit is read again with less room, and one that left out
// what more room could hold (a file's header lines, lines as "longer than a
// whole reply") again with more; at a small limit the estimate left a
// 160-byte path's header lines out of every part, and 36-byte lines. Less
// room leaves more out (and its notes can make the reply longer), more
// room makes the patch longer: between a room too small and one too large
// it bisects. It returns the first reply that fits and leaves nothing out,
// or else the one that fit in the most room.
//
// Where a part is in the files it splits (diffPart.terse) takes a few
// hundred bytes: at the smallest limits that can leave a file's header
// lines out, so a part that left something out is fitted again without it.
func fitPart[Out any](s *Server, room, maxBytes int, read func(room int) (*diffPart, error), notes func(*diffPart) string, build func(*diffPart, string) reply[Out]) (reply[Out], error) {
	r, whole, err := fitPartOnce(s, room, maxBytes, read, notes, build)
	if err != nil || whole {
		return r, err
	}
	terse := func(room int) (*diffPart, error) {
		p, err := read(room)
		if p != nil {
			p.terse = true
		}
		return p, err
	}
	if t, whole, err := fitPartOnce(s, room, maxBytes, terse, notes, build); err == nil && whole {
		return t, nil
	}
	return r, nil
}

// fitPartOnce is fitPart's fitting; whole says the reply fits and leaves
// nothing out.
func fitPartOnce[Out any](s *Server, room, maxBytes int, read func(room int) (*diffPart, error), notes func(*diffPart) string, build func(*diffPart, string) reply[Out]) (_ reply[Out], whole bool, _ error) {
	part, partNotes, patch, err := partWithNotes(room, maxBytes, read, notes)
	if err != nil {
		return reply[Out]{}, false, err
	}
	var best *reply[Out]
	bestRoom := -1
	small, large := -1, -1 // the most room that left something out, the least whose reply was over (-1: none yet)
	for refit := 0; ; refit++ {
		r := build(part, partNotes)
		spare := s.cfg.MaxBytes - s.replySize(r)
		lost := lostToRoom(part.page)
		if spare >= 0 && !lost {
			return r, true, nil
		}
		if spare >= 0 && patch > bestRoom {
			best, bestRoom = &r, patch
		}
		if s.cfg.Structured && r.wire().structured != nil && spare > 0 {
			spare /= 2 // the patch is sent twice
		}
		next := patch + spare // a reply over the limit with nothing left out
		if lost {
			small, next = patch, patch+max(spare, minPartRoom)
		} else {
			large = patch
		}
		if large >= 0 && small >= 0 {
			next = small + (large-small)/2
		}
		next = patchRoom(next, maxBytes)
		if refit == maxRefits || next == patch || next <= small || (large >= 0 && next >= large) {
			if best == nil {
				return r, false, nil // the backstop refuses it (callTool)
			}
			return *best, false, nil
		}
		patch = next
		if part, err = read(patch); err != nil {
			return reply[Out]{}, false, err
		}
		partNotes = notes(part)
	}
}

// lostToRoom: the part left out a file's header lines or a line as longer
// than its room.
func lostToRoom(p *diff.Page) bool {
	for _, f := range p.Files {
		if f.Omitted || len(f.LongLines) > 0 {
			return true
		}
	}
	return false
}

// partRange says which files a part holds, and where it is in a file it
// continues or goes on with: "files 3–5 of 9 (a.c continues from the
// previous part: its part 2 of 2, bytes 65537–70000 of 70000, old lines
// 300–350, new lines 310–372; c.c goes on in the next part: its part 1,
// bytes 1–40000 of 123456, old lines 1–500, new lines 1–520)".
func partRange(p *diffPart) string {
	if len(p.page.Files) == 0 {
		return "no file in this part"
	}
	from, to := p.first+1, p.last+1
	s := fmt.Sprintf("files %d–%d of %d", from, to, p.total)
	if from == to {
		s = fmt.Sprintf("file %d of %d", from, p.total)
	}
	files := p.page.Files
	first, last := files[0], files[len(files)-1]
	// A type change's second section may go on in the next part: the
	// file goes on, but none of its sections is split.
	continues, goesOn := first.Continued, p.next != nil && p.next.change == p.last
	split := func(i int) string {
		if f := files[i]; !p.terse && (f.Continued || !f.Complete) {
			return ": " + p.shareOf(i)
		}
		return ""
	}
	name := func(f diff.PageFile) string {
		if p.terse {
			return strconv.Itoa(f.Index - files[0].Index + from)
		}
		return text.Name(sectionName(f.Header))
	}
	var notes []string
	switch {
	case continues && goesOn && len(files) == 1:
		notes = append(notes, name(first)+" continues from the previous part and goes on in the next"+split(0))
	default:
		if continues {
			notes = append(notes, name(first)+" continues from the previous part"+split(0))
		}
		if goesOn {
			notes = append(notes, name(last)+" goes on in the next part"+split(len(files)-1))
		}
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// share is where a part's share of a file split over parts is in it.
type share struct {
	part, parts int   // which of the file's parts, and of how many (0: not known)
	from, to    int64 // bytes of the file's patch it holds: [from, to)
	size        int64 // the patch's size (0: not known)
	old, new    diff.LineSpan
}

// shareAt is where the part's file i is in its file's patch. The number
// of the file's parts is known in its last part only: how later parts cut
// the rest depends on the room each is given.
func (p *diffPart) shareAt(i int) share {
	f := p.page.Files[i]
	sh := share{part: 1, from: f.From, to: f.To, size: f.Size, old: f.Old, new: f.New}
	if i == 0 && f.Continued {
		sh.part = p.split.part
	}
	if f.Complete {
		sh.parts = sh.part
	}
	return sh
}

// shareOf words shareAt(i): "its part 3, bytes 131073–196608 of 1234567,
// old lines 1200–1799, new lines 1200–1949".
func (p *diffPart) shareOf(i int) string {
	sh := p.shareAt(i)
	var words []string
	switch {
	case sh.parts > 0:
		words = append(words, fmt.Sprintf("its part %d of %d", sh.part, sh.parts))
	case sh.part > 0:
		words = append(words, fmt.Sprintf("its part %d", sh.part))
	}
	bytes := fmt.Sprintf("bytes %d–%d", sh.from+1, sh.to)
	if sh.size > 0 {
		bytes += fmt.Sprintf(" of %d", sh.size)
	}
	words = append(words, bytes)
	for _, side := range []struct {
		name string
		span diff.LineSpan
	}{{"old", sh.old}, {"new", sh.new}} {
		if side.span.First > 0 {
			words = append(words, fmt.Sprintf("%s lines %d–%d", side.name, side.span.First, side.span.Last))
		}
	}
	return strings.Join(words, ", ")
}

// cursorAt puts where the next part starts in c.
func (p *diffPart) cursorAt(c *cursor) {
	c.File, c.Section, c.Line = p.next.change, p.next.section, p.next.line
	if !p.terse {
		c.Split, c.SplitBytes = p.nextSplit.part, p.nextSplit.bytes
	}
}

// splitOf is what a cursor says of the file its part starts inside.
func splitOf(c cursor) splitPos { return splitPos{part: c.Split, bytes: c.SplitBytes} }

// filesOf splits a part's text into its files' texts, in the order of its
// non-hidden sections (each part is a valid patch, so each file's text
// starts with its "diff --git" line).
func filesOf(part []byte) [][]byte {
	var out [][]byte
	for len(part) > 0 {
		end := bytes.Index(part[1:], []byte("\ndiff --git "))
		if end < 0 {
			out = append(out, part)
			break
		}
		out = append(out, part[:end+2])
		part = part[end+2:]
	}
	return out
}
