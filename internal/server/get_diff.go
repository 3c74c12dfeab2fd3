package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type getDiffIn struct {
	Owner        string   `json:"owner,omitempty" jsonschema:"repository owner; optional when one repository is served"`
	Repo         string   `json:"repo,omitempty" jsonschema:"repository name; optional when one repository is served"`
	Base         string   `json:"base" jsonschema:"base ref, e.g. main or a SHA"`
	Head         string   `json:"head,omitempty" jsonschema:"head ref; defaults to HEAD"`
	Mode         string   `json:"mode,omitempty" jsonschema:"merge-base diffs from where head branched off base (what a pull request shows, like base...head); direct diffs the two commits as they are (base..head)"`
	Paths        []string `json:"paths,omitempty" jsonschema:"only these files or directories (literal paths, not globs); give both paths of a rename to see it as one"`
	MaxBytes     int      `json:"maxBytes,omitempty" jsonschema:"total patch budget in bytes; can't exceed the server's limit (larger values are clamped)"`
	ContextLines int      `json:"contextLines,omitempty" jsonschema:"lines of context around each change"`
}

// diffFile is one file of a diff with its patch.
type diffFile struct {
	changedFile
	Patch        *string `json:"patch" jsonschema:"the file's diff --git section exactly as git diff prints it, or null"`
	PatchOmitted *string `json:"patchOmitted" jsonschema:"why patch is null: binary, denied or size_limit"`
	PatchBytes   *int64  `json:"patchBytes,omitempty" jsonschema:"size of an omitted patch, when known"`
}

type getDiffOut struct {
	Base       string     `json:"base" jsonschema:"resolved base commit"`
	Head       string     `json:"head" jsonschema:"resolved head commit"`
	MergeBase  *string    `json:"mergeBase" jsonschema:"where the diff starts in merge-base mode; null in direct mode"`
	Files      []diffFile `json:"files" jsonschema:"files in git's order; when the list is cut, the first ones"`
	Truncated  bool       `json:"truncated" jsonschema:"true if any patch was omitted for size or the file list was cut"`
	TotalFiles int        `json:"totalFiles" jsonschema:"files in the whole diff"`
}

// getDiffTool is get_diff's definition (registry.go).
var getDiffTool = defineTool(toolSpec{
	Name:  "get_diff",
	Title: "Get diff",
	Description: "Get the unified diff between two commits, split per file. Defaults to pull-request semantics (changes on head since it branched from base). " +
		"Output is capped: files that don't fit have patchOmitted: \"size_limit\"; fetch them separately with paths.",
	Tune: func(in *jsonschema.Schema) {
		setDefault(in, "head", "HEAD")
		setDefault(in, "mode", modeMergeBase)
		prop(in, "mode").Enum = []any{modeMergeBase, modeDirect}
		setInt(in, "maxBytes", 0, 0, 1<<31-1)
		setInt(in, "contextLines", 3, 0, 10000)
		prop(in, "paths").MaxItems = ptr(maxDiffPaths)
	},
}, (*Server).getDiff)

// Patch-reading limits. A section larger than abortSection is not read to
// its end: git is stopped and restarted on the files after it, so the cost
// of an answer does not grow with the size of the patches it leaves out.
const (
	abortSection = 4 << 20
	minSection   = 48 // no diff --git section is smaller
)

func (s *Server) getDiff(ctx context.Context, in getDiffIn) (reply[getDiffOut], error) {
	sel, err := s.selectDiff(ctx, in.Owner, in.Repo, in.Base, in.Head, in.Mode, in.Paths, in.ContextLines)
	if err != nil {
		return reply[getDiffOut]{}, err
	}
	budget := int64(s.cfg.MaxBytes)
	if in.MaxBytes > 0 {
		budget = min(budget, int64(in.MaxBytes))
	}
	out := getDiffOut{Base: sel.base, Head: sel.head, MergeBase: sel.mergeBase}
	f := &diffFiller{s: s, sel: sel, out: &out, patchLeft: budget}
	if err := f.run(ctx); err != nil {
		return reply[getDiffOut]{}, err
	}
	return f.render(), nil
}

// diffFiller fills a get_diff answer from one streamed git diff (restarted
// past a huge file): entries in git's order, patches while they fit.
type diffFiller struct {
	s       *Server
	sel     *diffSelection
	out     *getDiffOut
	changes []git.Change
	listed  int   // changes that have an entry in the reply
	next    int   // the change the next section should belong to
	seen    []int // sections seen per change (a type change has two)

	patchLeft int64 // patch bytes the caller's budget still allows
	roomLeft  int   // reply bytes still free
	// huge marks added or deleted files whose blob alone is larger than the
	// budget: their patch cannot fit, so git is not asked to produce it.
	huge []bool
}

// errStopDiff ends reading: what is wanted is in hand.
var errStopDiff = errors.New("stop")

// errRestart asks for git to be run again on the changes from index on.
type errRestart struct{ from int }

func (errRestart) Error() string { return "restart" }

func (f *diffFiller) run(ctx context.Context) error {
	// The file list first, from its own git process: git prints a patch
	// only after computing it, so a list that came with the patch would
	// arrive after the cost of a huge file had been paid.
	if err := f.list(ctx); err != nil {
		return err
	}
	opts := f.sel.opts
	// Past the listed files, the patch is of no use: name them (both sides
	// of a rename), so git computes nothing else.
	if f.markHuge(ctx) || f.listed < f.out.TotalFiles {
		opts = f.without(0)
		if len(opts.Paths) == 0 {
			f.finish()
			return nil
		}
	}
	for {
		err := f.sel.repo.Git.Patch(ctx, opts, f.read)
		var restart errRestart
		switch {
		case err == nil || errors.Is(err, errStopDiff):
			f.finish()
			return nil
		case errors.As(err, &restart):
			if opts = f.without(restart.from); len(opts.Paths) == 0 {
				f.finish()
				return nil
			}
		default:
			return err
		}
	}
}

// without is the diff of the listed changes from index on, huge ones left
// out, as explicit paths (both sides of a rename).
func (f *diffFiller) without(from int) git.DiffOptions {
	opts := f.sel.opts
	opts.Paths = nil
	for i, c := range f.changes[from:f.listed] {
		if !f.huge[from+i] {
			opts.Paths = append(opts.Paths, c.Paths()...)
		}
	}
	return opts
}

// markHuge finds the listed added or deleted files whose blob is larger
// than the whole patch budget (their patch is at least that large) and
// omits them up front, so git never reads them: for a 200 MB file that is
// most of the diff's cost. It reports whether any was found.
func (f *diffFiller) markHuge(ctx context.Context) bool {
	f.huge = make([]bool, len(f.changes))
	found := false
	for i, c := range f.changes[:f.listed] {
		commit := f.sel.opts.To
		switch {
		case c.Status == 'D':
			commit = f.sel.opts.From
		case c.Status != 'A':
			continue
		}
		if strings.Contains(c.Path, "\n") {
			continue // cat-file names cannot hold a newline; let git decide
		}
		obj, err := f.sel.repo.Git.Info(ctx, commit+":"+c.Path)
		if err == nil && obj.Size > f.patchLeft {
			f.huge[i], found = true, true
			f.omit(i)
		}
	}
	return found
}

// read consumes one git diff run's patch: the whole list's, or (restarted)
// a subset's.
func (f *diffFiller) read(patch io.Reader) error {
	sp := diff.NewSplitter(patch)
	for f.next < f.listed {
		keep := min(f.patchLeft, int64(f.roomLeft/2))
		if keep < minSection {
			return errStopDiff // the budget is spent: stop git
		}
		sec, err := sp.NextWithin(keep, max(keep, abortSection))
		if err == io.EOF {
			return nil
		}
		var he *diff.HeaderError
		aborted := errors.Is(err, diff.ErrAborted)
		if err != nil && !aborted && !errors.As(err, &he) {
			return err
		}
		i := f.match(sec.Header)
		if i < 0 {
			return fmt.Errorf("git diff: a section for %q is not in the file list", sec.Header.NewPath)
		}
		if i >= f.listed {
			return errStopDiff
		}
		if aborted {
			f.omit(i)
			f.next = i + 1
			if f.next < f.listed {
				return errRestart{from: f.next}
			}
			return errStopDiff
		}
		f.take(i, sec)
	}
	return errStopDiff
}

// list reads the diff's file list and keeps the entries the reply holds:
// as many as fit in half of it (the other half is for patches; when the
// whole list fits there, that is all of it). The rest is only counted, so
// the memory and the policy checks follow the reply, not the range.
func (f *diffFiller) list(ctx context.Context) error {
	f.out.Files = []diffFile{}
	empty := f.s.replySize(reply[getDiffOut]{text: f.header(), out: *f.out})
	room := f.s.cfg.MaxBytes - empty - hintReserve
	used, full := 0, false
	total, err := f.sel.repo.Git.EachChange(ctx, f.sel.opts, func(_ int, c git.Change) error {
		if full {
			return nil
		}
		e := diffFile{changedFile: changedFile{Path: c.Path, Status: statusName(c), IsTest: isTestPath(c.Path)}}
		if c.OldPath != c.Path {
			e.OldPath = ptr(c.OldPath)
		}
		if f.s.deniedChange(c) {
			e.PatchOmitted = ptr("denied")
		}
		if cost := entryCost(e); used+cost <= room/2 {
			used += cost
			f.changes = append(f.changes, c)
			f.out.Files = append(f.out.Files, e)
		} else {
			full = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	f.out.TotalFiles = total
	f.listed = len(f.changes)
	f.seen = make([]int, f.listed)
	f.roomLeft = room - used
	return nil
}

// entryCost is what an entry adds to the reply: its JSON (with every field
// at its longest null-or-number form) and a line in the text's list.
func entryCost(e diffFile) int {
	e.Additions, e.Deletions, e.PatchBytes = ptr(1<<31), ptr(1<<31), ptr(int64(1)<<40)
	e.IsBinary, e.PatchOmitted = ptr(false), ptr("size_limit")
	data, _ := json.Marshal(e)
	return len(data) + 1 + text.JSONLen(e.Path) + lineSlack
}

// match finds the change a section belongs to: the expected one, or the
// same one again (git prints a type change as two sections), or a later one.
func (f *diffFiller) match(h diff.Header) int {
	is := func(i int) bool {
		c := f.changes[i]
		return h.NewPath == c.Path || (h.OldPath == c.OldPath && h.OldPath != "")
	}
	if f.next > 0 && f.changes[f.next-1].Status == 'T' && f.seen[f.next-1] == 1 && is(f.next-1) {
		return f.next - 1
	}
	for i := f.next; i < len(f.changes); i++ {
		if is(i) {
			return i
		}
	}
	return -1
}

// take records a section that was read through: its patch if kept and it
// fits the reply, else size_limit with its size.
func (f *diffFiller) take(i int, sec *diff.Section) {
	e := &f.out.Files[i]
	f.seen[i]++
	f.next = i + 1
	if e.PatchOmitted != nil && *e.PatchOmitted == "denied" {
		return // counts of hidden files are not told either
	}
	add, del := sec.Added, sec.Deleted
	if e.Additions != nil { // the second section of a type change
		add, del = add+*e.Additions, del+*e.Deletions
	}
	e.Additions, e.Deletions = &add, &del
	binary := sec.Header.IsBinary || (e.IsBinary != nil && *e.IsBinary)
	e.IsBinary = &binary
	if binary {
		f.dropPatch(e)
		e.PatchOmitted, e.PatchBytes = ptr("binary"), nil
		return
	}
	if e.PatchOmitted != nil { // the first section of a type change did not fit
		*e.PatchBytes += sec.Size
		return
	}
	cost := 2 * (text.JSONLen(sec.Raw) + 2)
	if sec.Raw == nil || int64(len(sec.Raw)) > f.patchLeft || cost > f.roomLeft {
		size := sec.Size + f.dropPatch(e)
		e.PatchOmitted, e.PatchBytes = ptr("size_limit"), &size
		return
	}
	p := string(sec.Raw)
	if e.Patch != nil {
		p = *e.Patch + p
	}
	e.Patch = &p
	f.patchLeft -= int64(len(sec.Raw))
	f.roomLeft -= cost
}

// dropPatch removes a patch already taken (the first half of a type change
// whose second half does not fit) and returns its size.
func (f *diffFiller) dropPatch(e *diffFile) int64 {
	if e.Patch == nil {
		return 0
	}
	n := int64(len(*e.Patch))
	f.patchLeft += n
	f.roomLeft += 2 * (text.JSONLen(*e.Patch) + 2)
	e.Patch = nil
	return n
}

// omit marks a change whose patch was not read (or not to its end): its
// size and counts are unknown.
func (f *diffFiller) omit(i int) {
	e := &f.out.Files[i]
	f.dropPatch(e)
	if e.PatchOmitted == nil || *e.PatchOmitted != "denied" {
		e.PatchOmitted, e.PatchBytes = ptr("size_limit"), nil
	}
	e.Additions, e.Deletions, e.IsBinary = nil, nil, nil
}

// finish marks the listed changes whose sections were never read.
func (f *diffFiller) finish() {
	for i := range f.out.Files {
		if f.seen[i] == 0 && f.out.Files[i].Patch == nil && (f.out.Files[i].PatchOmitted == nil || *f.out.Files[i].PatchOmitted != "binary") && !f.huge[i] {
			f.omit(i)
		}
	}
	for _, e := range f.out.Files {
		if e.PatchOmitted != nil && *e.PatchOmitted == "size_limit" {
			f.out.Truncated = true
		}
	}
	if f.listed < f.out.TotalFiles {
		f.out.Truncated = true
	}
}

func (f *diffFiller) header() string {
	o := f.out
	var b strings.Builder
	fmt.Fprintf(&b, "%s: diff %s..%s", f.sel.repo.FullName(), short(o.Base), short(o.Head))
	if o.MergeBase != nil {
		fmt.Fprintf(&b, " from their merge base %s", short(*o.MergeBase))
	}
	shown := 0
	for _, e := range o.Files {
		if e.Patch != nil {
			shown++
		}
	}
	fmt.Fprintf(&b, ": %d files changed, %d patches below", o.TotalFiles, shown)
	if n := len(o.Files) - shown; n > 0 {
		fmt.Fprintf(&b, ", %d not shown (listed at the end)", n)
	}
	return b.String() + "\n"
}

// render builds the reply: header, the patches as git printed them, then
// what was left out and how to get it. If the estimate was off, patches are
// dropped from the end until the reply fits.
func (f *diffFiller) render() reply[getDiffOut] {
	for {
		r := reply[getDiffOut]{text: f.text(), out: *f.out}
		if f.s.replySize(r) <= f.s.cfg.MaxBytes {
			return r
		}
		last := -1
		for i, e := range f.out.Files {
			if e.Patch != nil {
				last = i
			}
		}
		if last < 0 {
			return r // cannot happen: entries were sized to fit
		}
		size := f.dropPatch(&f.out.Files[last])
		f.out.Files[last].PatchOmitted, f.out.Files[last].PatchBytes = ptr("size_limit"), &size
		f.out.Truncated = true
	}
}

func (f *diffFiller) text() string {
	var b strings.Builder
	b.WriteString(f.header())
	var omitted []string
	for _, e := range f.out.Files {
		if e.Patch != nil {
			b.WriteString(*e.Patch)
		} else {
			omitted = append(omitted, e.Path)
		}
	}
	if len(omitted) == 0 && f.listed == f.out.TotalFiles {
		return b.String()
	}
	b.WriteString("\n[not shown]\n")
	for _, e := range f.out.Files {
		if e.Patch == nil {
			fmt.Fprintf(&b, "%s (%s): %s\n", e.Path, e.Status, omissionReason(e))
		}
	}
	// Both sides of a rename: a paths filter with one side alone shows an
	// addition or a deletion instead.
	var fetch []string
	for _, e := range f.out.Files {
		if e.PatchOmitted != nil && *e.PatchOmitted == "size_limit" && len(fetch) < 6 {
			if e.OldPath != nil {
				fetch = append(fetch, *e.OldPath)
			}
			fetch = append(fetch, e.Path)
		}
	}
	if len(fetch) > 0 {
		data, _ := json.Marshal(fetch)
		fmt.Fprintf(&b, "To see an omitted patch, call get_diff again with paths=%s (one or a few at a time; a smaller contextLines makes a patch smaller).\n", data)
	}
	if rest := f.out.TotalFiles - f.listed; rest > 0 {
		fmt.Fprintf(&b, "%d more files are not listed here: list_changed_files with the same base, head and mode lists every file (offset/limit); get_diff with paths shows their patches.\n", rest)
	}
	return b.String()
}

func omissionReason(e diffFile) string {
	switch {
	case e.PatchOmitted == nil:
		return "no patch"
	case *e.PatchOmitted == "binary":
		return "binary file"
	case *e.PatchOmitted == "denied":
		return "hidden by the server's secrets policy"
	case e.PatchBytes != nil:
		return fmt.Sprintf("patch of %d bytes does not fit the budget", *e.PatchBytes)
	default:
		return "patch not produced: the budget was spent"
	}
}
