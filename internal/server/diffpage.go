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

// diffPart is one part of a diff.
type diffPart struct {
	page *diff.Page
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
}

// changeFilter selects changes of a diff; key names the selection in the
// patch cache, so two filters must have the same key only if they select
// the same changes.
type changeFilter struct {
	key  string
	keep func(git.Change) bool
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
		Room:  q.room, Cost: text.JSONLen[[]byte], Hide: q.hide, CountRest: q.countRest,
	}
}

// readPart lists the diff's changes (rename detection over the whole
// selection, no patches), keeps those from start.change on, at most
// maxPartChanges of them, and cuts the part from the patch cache or else
// from a git diff restricted to their paths.
func (s *Server) readPart(ctx context.Context, q partRequest) (*diffPart, error) {
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
	list := q.opts
	if q.only != nil {
		list.Paths = nil
	}
	var kept []git.Change
	total, keptBytes, full := 0, 0, false
	_, err := q.repo.Git.EachChange(ctx, list, func(_ int, c git.Change) error {
		if q.only != nil && !q.only.keep(c) {
			return nil
		}
		if total >= q.start.change && !full {
			size := len(c.Path) + len(c.OldPath)
			if full = len(kept) == maxPartChanges || (len(kept) > 0 && keptBytes+size > maxPartPathBytes); !full {
				kept, keptBytes = append(kept, c), keptBytes+size
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
		return &diffPart{total: total, page: &diff.Page{Total: &diff.Total{}}}, nil
	}
	if part, err := s.cachedPart(ctx, q, total); part != nil || err != nil {
		return part, err
	}
	part := &diffPart{total: total}
	part.skipped = tooLargeToDiff(ctx, q.repo, q.opts, kept)
	// The whole selection, from its start, needs no restriction: git
	// prints exactly it. Otherwise name the changes, both sides of renames.
	d := early
	if q.start.change > 0 || q.only != nil || q.start.change+len(kept) < total || len(part.skipped) > 0 {
		opts := q.opts
		opts.Paths = nil
		for _, c := range kept {
			if _, skip := part.skipped[c.Path]; !skip {
				opts.Paths = append(opts.Paths, c.Paths()...)
			}
		}
		if len(opts.Paths) == 0 {
			// Every change here is too large to diff: nothing to run.
			part.page = &diff.Page{}
			return part, part.place(q.start.change, q.start.section, kept, total)
		}
		d = s.startDiff(ctx, q, opts)
	} else if d == nil {
		d = s.startDiff(ctx, q, q.opts)
	}
	if d == early {
		early = nil // taken
	}
	page, err := s.readFromGit(ctx, q, d, total, kept, part.skipped)
	if err != nil {
		return nil, err
	}
	part.page = page
	return part, part.place(q.start.change, q.start.section, kept, total)
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
	if run == nil || (q.countRest && (run.first != 0 || q.start.change != 0)) {
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
	if part.next != nil && run.covers(part.next.change) && !q.countRest {
		next := q
		next.start = *part.next
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
		fmt.Fprintf(&b, "[hidden by the server's secrets policy: %s]\n", fileList(text.Names(hidden), nil, len(hidden), room))
	}
	if len(replaced) > 0 {
		fmt.Fprintf(&b, "[not UTF-8: bytes shown as U+FFFD in %s]\n", fileList(text.Names(replaced), nil, len(replaced), room))
	}
	if len(tests) > 0 {
		fmt.Fprintf(&b, "[test files: %s]\n", fileList(text.Names(tests), nil, len(tests), room))
	}
	if len(generated) > 0 {
		fmt.Fprintf(&b, "[generated or vendored: %s]\n", fileList(text.Names(generated), nil, len(generated), room))
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
func fitPart[Out any](s *Server, room, maxBytes int, read func(room int) (*diffPart, error), notes func(*diffPart) string, build func(*diffPart, string) reply[Out]) (reply[Out], error) {
	part, partNotes, patch, err := partWithNotes(room, maxBytes, read, notes)
	if err != nil {
		return reply[Out]{}, err
	}
	var best *reply[Out]
	bestRoom := -1
	small, large := -1, -1 // the most room that left something out, the least whose reply was over (-1: none yet)
	for refit := 0; ; refit++ {
		r := build(part, partNotes)
		spare := s.cfg.MaxBytes - s.replySize(r)
		lost := lostToRoom(part.page)
		if spare >= 0 && !lost {
			return r, nil
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
				return r, nil // the backstop refuses it (callTool)
			}
			return *best, nil
		}
		patch = next
		if part, err = read(patch); err != nil {
			return reply[Out]{}, err
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

// partRange says which files a part holds: "files 3–5 of 9 (3 continues
// from the previous part; 5 goes on in the next)".
func partRange(p *diffPart) string {
	if len(p.page.Files) == 0 {
		return "no file in this part"
	}
	from, to := p.first+1, p.last+1
	s := fmt.Sprintf("files %d–%d of %d", from, to, p.total)
	if from == to {
		s = fmt.Sprintf("file %d of %d", from, p.total)
	}
	var notes []string
	if p.page.Files[0].Continued {
		notes = append(notes, fmt.Sprintf("%d continues from the previous part", from))
	}
	if p.next != nil && p.next.change == p.last {
		notes = append(notes, fmt.Sprintf("%d goes on in the next part", to))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

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
