package paging

import (
	"bytes"
	"context"
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
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
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

// maxPartChanges and maxPartPathBytes bound the changes one part's git diff
// is restricted to, and so its memory and command line: a part lists at
// most 1,000 files (diff.ReadPage), and its text, at most a reply, names
// each file it shows at least twice.
const (
	maxPartChanges   = 500
	maxPartPathBytes = 128 << 10
)

// Diffs cuts diffs into parts, keeping what git printed past a part in
// its patch cache for the next parts (patchcache.go).
type Diffs struct{ cache patchCache }

// NewDiffs is a Diffs whose patch cache holds at most cacheBytes (none when
// it is not positive).
func NewDiffs(cacheBytes int) *Diffs { return &Diffs{cache: patchCache{limit: cacheBytes}} }

// Hits counts the parts cut from the patch cache, and AheadHits those of
// them cut ahead of their call; Filling tells whether a git diff is still
// filling a run of it. For the tests.
func (ds *Diffs) Hits() int64      { return ds.cache.hits.Load() }
func (ds *Diffs) AheadHits() int64 { return ds.cache.aheadHits.Load() }
func (ds *Diffs) Filling() bool {
	ds.cache.mu.Lock()
	defer ds.cache.mu.Unlock()
	return len(ds.cache.fills) > 0
}

// Part is one part of a diff.
type Part struct {
	Page *diff.Page
	// Counted is the whole selection's patch (its files' sections and
	// bytes), counted when the request asked for it (CountRest; nil when
	// it could not be counted in time).
	Counted *diff.Total
	// Split is where the part's first file, continued from the previous
	// part, is; NextSplit where the next part's is, when it starts inside
	// a file.
	Split, NextSplit SplitPos
	// Terse: the part does not say where it is in the files it splits
	// (FitPart), and its cursor carries nothing of them.
	Terse bool
	// Changes are the changes of the part's sections, one per section
	// (a type change's two sections share one).
	Changes []git.Change
	Next    *Pos // nil: this part ends the diff
	Total   int  // changes in the whole selection
	// First and Last are the indexes of the part's first and last changes.
	First, Last int
	// Generated tells the part's generated and vendored files (the server sets it: flagGenerated).
	Generated func(string) bool
	// Skipped are the part's changes too large to diff, by path, with the
	// size of the blob that is.
	Skipped map[string]int64
	// Bare are the changes the part passes that git printed no section
	// for, and did not skip: with -w, those whose changes are all
	// whitespace (bareNote).
	Bare []git.Change
	// RenamesSkipped: the selection has more deleted times added files
	// than git searches for renames (git.RenamesSkipped).
	RenamesSkipped bool
}

// SectionName is the path a section is listed by: its new path, or its old
// one for a deletion.
func SectionName(h diff.Header) string {
	if h.NewPath != "" {
		return h.NewPath
	}
	return h.OldPath
}

// Request asks for one part of a diff.
type Request struct {
	// FirstRoom is the room of the call's first read, when FitPart reads
	// its part again in others: the part after each read is cut ahead in
	// it (each in place of the last), the room the next call first asks
	// with.
	FirstRoom int
	Repo      *repo.Repository
	Opts      git.DiffOptions
	// Only, when set, selects the changes to show (get_diff's paths, paired
	// with the other side of a rename; get_pull_request_diff's file_path).
	// The file list is then read without opts.Paths.
	Only  *Filter
	Start Pos
	// Room is the patch's room, counted by Cost (the budget's).
	Room      int
	Cost      Cost
	CountRest bool
	Hide      func(diff.Header) bool
	// Split is what the previous part knew of the file this one starts
	// inside (its cursor's).
	Split SplitPos
}

// Filter selects changes of a diff; key names the selection in the
// patch cache, so two filters must have the same key only if they select
// the same changes.
type Filter struct {
	Key  string
	Keep func(git.Change) bool
	// Again is keep for a second listing in the same call (PatchSizes),
	// where keep would note what it selects twice; nil: keep.
	Again func(git.Change) bool
	// note, when set, says what the selection noted as it kept changes
	// (Note).
	note func() string
	// missed, when set, names the paths that matched no change kept
	// (Missed).
	missed func() string
}

// Missed is a note naming the paths of the filter that matched none of
// the changes it was asked to keep, after a listing of the whole diff
// (ReadPart lists it whole with a filter); "" when each matched, when
// none did, and for no filter. A call says it once, in its first part.
func (f *Filter) Missed() string {
	if f == nil || f.missed == nil {
		return ""
	}
	return f.missed()
}

// Note is what the filter noted of the changes it kept, for the part's
// notes: "" for none, and for no filter.
func (f *Filter) Note() string {
	if f == nil || f.note == nil {
		return ""
	}
	return f.note()
}

// cacheKey names the diff a part request reads in the patch cache.
func (q Request) cacheKey() string {
	o, only := q.Opts, ""
	if q.Only != nil {
		only = q.Only.Key
	}
	return strings.Join([]string{q.Repo.Git.GitDir(), o.From, o.To, strconv.Itoa(o.Context), strconv.FormatBool(o.IgnoreWhitespace), strings.Join(o.Paths, "\x00"), only}, "\x01")
}

func (q Request) pageOptions() diff.PageOptions {
	return diff.PageOptions{
		Start: diff.Pos{File: q.Start.Section, Line: q.Start.Line, Byte: q.Start.Byte, LineBytes: q.Start.LineBytes},
		Room:  q.Room, Cost: q.Cost.Bytes, Frame: text.FramePatch, Hide: q.Hide,
		SizeLast: true, StartSize: q.Split.Bytes,
	}
}

// ReadPart lists the diff's changes (rename detection over the whole
// selection, no patches), keeps those from start.change on, at most
// maxPartChanges of them, and cuts the part from the patch cache or else
// from a git diff restricted to their paths.
func (ds *Diffs) ReadPart(ctx context.Context, q Request) (*Part, error) {
	if q.CountRest && q.Start == (Pos{}) {
		// The count runs beside the part's read.
		counted, stop := ds.StartCount(ctx, q)
		defer stop()
		part, err := ds.ReadPart(ctx, q.withoutCount())
		if err == nil {
			part.Counted = counted()
		}
		return part, err
	}
	// A first part is most often cut from the diff of the whole
	// selection: git starts on it now, its rename detection and first
	// files overlapping the listing, and is stopped if the list says the
	// part needs another diff (known already when the list was read
	// before: a range of more files than a part takes).
	var early *partDiff
	n, listed := q.Repo.Git.KnownChanges(q.Opts)
	if q.Start == (Pos{}) && q.Only == nil && (!listed || n <= maxPartChanges) && ds.cache.find(q.cacheKey(), 0, time.Now()) == nil {
		early = ds.startEarlyDiff(ctx, q)
		defer func() {
			if early != nil {
				early.abandon()
			}
		}()
	}
	var kept []git.Change
	total, keptBytes, full := 0, 0, false
	deleted, added := 0, 0
	_, err := q.Repo.Git.EachChange(ctx, q.ListOptions(), func(_ int, c git.Change) error {
		switch c.Status {
		case 'D':
			deleted++
		case 'A':
			added++
		}
		if q.Only != nil && !q.Only.Keep(c) {
			return nil
		}
		if total >= q.Start.Change && !full {
			if full = chunkFull(kept, keptBytes, c); !full {
				kept, keptBytes = append(kept, c), keptBytes+PathBytes(c)
			}
		}
		total++
		return nil
	})
	if err != nil {
		return nil, GoneCommit(q.Repo, q.Start != (Pos{}), err)
	}
	if q.Start.Change > total || (q.Start.Change == total && q.Start != (Pos{Change: total})) {
		return nil, ErrBadPosition()
	}
	skipped := git.RenamesSkipped(deleted, added)
	if len(kept) == 0 {
		return &Part{Total: total, Page: &diff.Page{Total: &diff.Total{}}, Counted: &diff.Total{}, RenamesSkipped: skipped}, nil
	}
	part, err := ds.cachedPart(ctx, q, total)
	if err != nil {
		return nil, err
	}
	if part == nil {
		if part, err = ds.partFromGit(ctx, q, &early, kept, total); err != nil {
			return nil, err
		}
		part.SetSplit(q.Split)
	}
	part.RenamesSkipped = skipped
	return part, nil
}

func (q Request) withoutCount() Request {
	q.CountRest = false
	return q
}

// partFromGit cuts the part from a git diff of its kept changes: the
// early one when it is that diff (then taken: *early is set to nil).
func (ds *Diffs) partFromGit(ctx context.Context, q Request, early **partDiff, kept []git.Change, total int) (*Part, error) {
	part := &Part{Total: total}
	part.Skipped = tooLargeToDiff(ctx, q.Repo, q.Opts, kept)
	opts, ok, restricted := q.chunkOptions(q.Start.Change, kept, total, part.Skipped)
	if !ok {
		// Every change here is too large to diff: nothing to run.
		part.Page = &diff.Page{}
		return part, part.place(q.Start.Change, q.Start.Section, kept, total)
	}
	d := *early
	if restricted && d != nil {
		// Given back before the restricted diff waits for a slot: a
		// call must not hold one slot while it waits for another.
		d.abandon()
		*early, d = nil, nil
	}
	if d == nil {
		d = ds.startDiff(ctx, q, opts)
	} else {
		*early = nil
	}
	page, err := ds.readFromGit(ctx, q, d, total, kept, part.Skipped)
	if err != nil {
		return nil, err
	}
	part.Page = page
	return part, part.place(q.Start.Change, q.Start.Section, kept, total)
}

// ListOptions lists the changes q selects from: with a filter, the file
// list is read without opts.Paths.
func (q Request) ListOptions() git.DiffOptions {
	list := q.Opts
	if q.Only != nil {
		list.Paths = nil
	}
	return list
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
func (ds *Diffs) cachedPart(ctx context.Context, q Request, total int) (*Part, error) {
	run := ds.cache.find(q.cacheKey(), q.Start.Change, time.Now())
	if run == nil {
		return nil, nil
	}
	if stamp, ok := q.Repo.Git.ObjectsStamp(q.Opts.From, q.Opts.To); !ok || stamp != run.stamp {
		// The object store changed since the run was read: its commits
		// may be pruned (git then says so) or a pack rewritten; git is
		// asked again.
		return nil, nil
	}
	page := run.takeAhead(ctx, q)
	if page != nil {
		ds.cache.aheadHits.Add(1)
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
			return nil, ErrBadPosition()
		case err != nil:
			return nil, err
		}
	}
	ds.cache.hits.Add(1)
	part := &Part{Total: total, Page: page, Skipped: maps.Clone(run.skipped)}
	if err := part.place(q.Start.Change, q.Start.Section, run.kept[q.Start.Change-run.first:], total); err != nil {
		return nil, err
	}
	part.SetSplit(q.Split)
	if part.Next != nil && run.covers(part.Next.Change) {
		next := q
		next.Start, next.Split = *part.Next, part.NextSplit
		if q.FirstRoom > 0 {
			next.Room = q.FirstRoom
		}
		run.cutAhead(next)
	}
	return part, nil
}

// place matches the part's sections to the kept changes (the first is
// change first, and the run started at its section firstSection) and works
// out where the next part starts.
func (p *Part) place(first, firstSection int, kept []git.Change, total int) error {
	j, k := 0, firstSection // the change and section of the section at hand
	for i, f := range p.Page.Files {
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
		p.Changes = append(p.Changes, kept[j])
	}
	p.First, p.Last = first, first+j
	n := p.Page.Next
	switch {
	case n == nil && first+len(kept) < total:
		p.Next = &Pos{Change: first + len(kept)}
	case n == nil:
	case len(p.Page.Files) == 0:
		return errors.New("git diff: a part that holds nothing")
	case n.File == p.Page.Files[len(p.Page.Files)-1].Index:
		p.Next = &Pos{Change: first + j, Section: k, Line: n.Line, Byte: n.Byte, LineBytes: n.LineBytes}
	case kept[j].Status == 'T' && k == 0:
		p.Next = &Pos{Change: first + j, Section: 1}
	default:
		p.Next = &Pos{Change: first + j + 1}
	}
	// The files too large to diff are noted in the part that passes them.
	passed := len(kept)
	if p.Next != nil {
		passed = p.Next.Change - first
	}
	for path := range p.Skipped {
		if !slices.ContainsFunc(kept[:passed], func(c git.Change) bool { return c.Path == path }) {
			delete(p.Skipped, path)
		}
	}
	for _, c := range kept[:passed] {
		if _, skip := p.Skipped[c.Path]; !skip && !slices.Contains(p.Changes, c) {
			p.Bare = append(p.Bare, c)
		}
	}
	return nil
}

// sectionOf: section header h belongs to change c.
func sectionOf(h diff.Header, c git.Change) bool {
	return h.NewPath == c.Path || (h.OldPath != "" && h.OldPath == c.OldPath)
}

// GoneCommit is NOT_FOUND for git's failure on a commit the repository no
// longer has: a cursor's pinned commits that were pruned since (a
// long-lived object reader that had read them may still report them, so
// the check of a cursor's commits can pass and the diff fail); else err.
func GoneCommit(r *repo.Repository, withCursor bool, err error) error {
	var exit *gitexec.ExitError
	if !errors.As(err, &exit) {
		return err
	}
	id, ok := strings.CutPrefix(strings.TrimSpace(exit.Stderr), "fatal: bad object ")
	if !ok || !git.IsObjectID(id) {
		return err
	}
	if !withCursor {
		return errcode.New(errcode.NotFound, "commit %s is no longer in %s (it was pruned during the call); call again", git.Short(id), r.FullName())
	}
	return errcode.New(errcode.NotFound, "commit %s, which this cursor was made for, is no longer in %s; leave cursor out to start again from the first part", git.Short(id), r.FullName())
}

func ErrBadPosition() error {
	return errcode.New(errcode.InvalidArgument, "cursor points past the end of the diff: it was damaged or made for other arguments; leave it out to start from the first part")
}

// FilesOf splits a part's text into its files' texts, in the order of its
// non-hidden sections (each part is a valid patch, so each file's text
// starts with its "diff --git" line).
func FilesOf(part []byte) [][]byte {
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
