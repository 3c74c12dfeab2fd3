package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

// RenameLimit is passed to every diff explicitly, git's own default: past
// it (more deleted times added files than its square, once exact renames
// are paired) git pairs only exact renames. A higher limit let an author
// price every diff of a commit: 5,000 files replaced by 5,000 unlike ones
// cost 25 million comparisons, ~6 s of CPU each time (review 3, finding
// 05). RenamesSkipped tells when git skipped the search.
const RenameLimit = 1000

// RenamesSkipped says whether git skipped the search for inexact renames
// in a diff that left deleted files deleted and added files added: their
// product is past RenameLimit squared (git's rule), so a file moved and
// changed shows as one deleted and one added.
func RenamesSkipped(deleted, added int) bool {
	return deleted > 0 && added > 0 && int64(deleted)*int64(added) > RenameLimit*RenameLimit
}

// DiffOptions selects a diff between two commits.
type DiffOptions struct {
	From, To string   // full commit ids
	Paths    []string // literal repository paths (files or directories); none = everything
	Context  int      // lines of context (-U)
	// IgnoreWhitespace is git's -w (--ignore-all-space), as GitHub's ?w=1:
	// lines that differ only in whitespace are not changes. Every command
	// of the diff gets it (the line counts of --numstat then agree with the
	// patch); a file whose changes are all whitespace stays in the file list
	// (--raw, and rename detection, compare blobs, not lines) but has no
	// section in the patch.
	IgnoreWhitespace bool
	// FunctionContext is git's -W (--function-context), each hunk widened
	// to the lines between two of its file's driver's funcname lines, the
	// drivers chosen by extension (gitexec.DiffDriverTable).
	FunctionContext bool
}

// diffArgs is the one command line every diff runs with: nothing a
// repository configures can run a program or change the patch format, and
// the patch is what `git diff -M FROM TO` prints with default settings.
//
// format selects the output: "-p" (with -U, which implies a patch, so it is
// given only then) or "--raw", "--numstat".
func diffArgs(o DiffOptions, format ...gitexec.Arg) *gitexec.Cmd {
	c := gitexec.Command("diff", "--no-color", "--no-ext-diff", "--no-textconv",
		"--submodule=short", "--ignore-submodules=none", "--src-prefix=a/", "--dst-prefix=b/", "--indent-heuristic", "-M", gitexec.IntArg("-l", RenameLimit))
	if slices.Contains(format, "-p") {
		c.Flags(gitexec.IntArg("-U", o.Context))
	}
	if o.IgnoreWhitespace {
		c.Flags("-w")
	}
	if o.FunctionContext {
		c.Flags("-W").DiffDrivers(nil)
	}
	return c.Flags(format...).Revs(o.From, o.To).Paths(o.Paths...)
}

// Change is one file of a diff, as git's raw format gives it.
type Change struct {
	Status        byte   // A, C, D, M, R, T (U, X: unmerged, unknown)
	OldPath, Path string // OldPath differs from Path only for R and C
	// From --numstat (ChangedFiles only): line counts, or Binary.
	Added, Deleted int
	Binary         bool
}

// Paths returns the change's distinct paths (both sides of a rename).
func (c Change) Paths() []string {
	if c.OldPath != c.Path {
		return []string{c.OldPath, c.Path}
	}
	return []string{c.Path}
}

// ErrNoMergeBase is returned when two commits share no history.
var ErrNoMergeBase = errors.New("no merge base")

// MergeBase returns the best common ancestor of two commits (full ids).
// Commits never change, so answers are kept: a pull request's merge base
// costs one git process per pair, not per call.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	key := a + " " + b
	if mb, ok := r.memo.get(key); ok {
		return mb.(string), nil
	}
	out, err := r.run.Output(ctx, gitexec.Command("merge-base").Revs(a, b))
	var exit *gitexec.ExitError
	if errors.As(err, &exit) && exit.Code == 1 {
		return "", ErrNoMergeBase
	}
	if err != nil {
		return "", err
	}
	mb := strings.TrimSpace(string(out))
	r.memo.put(key, mb, len(key)+len(mb)+memoEntryBytes)
	return mb, nil
}

// EachChange hands each file of a diff to each, in git's order (raw
// format, with rename detection), without producing any patch: cheap, even
// when a patch would be huge. It returns how many files the diff has; each
// may stop early by returning ErrStop (the count is then of those seen).
// Nothing holds the whole list: a range of 200,000 files costs the memory
// of one. A small list is kept, since lists between two commits never
// change.
func (r *Repo) EachChange(ctx context.Context, o DiffOptions, each func(i int, c Change) error) (int, error) {
	key := changesKey(o)
	if list, ok := r.memo.get(key); ok {
		for i, c := range list.([]Change) {
			if err := each(i, c); err != nil {
				return i + 1, stopped(err)
			}
		}
		return len(list.([]Change)), nil
	}
	var keep []Change // the whole list, while small enough to remember
	keepBytes, remember := 0, true
	n := 0
	err := r.run.Stream(ctx, diffArgs(o, "-z", "--raw"), func(stdout io.Reader) error {
		rd := newRawReader(ctx, stdout)
		for {
			c, ok, err := rd.next()
			if err != nil || !ok {
				if err == nil && rd.pending != "" {
					err = fmt.Errorf("git diff: unexpected %q in the file list", rd.pending)
				}
				return err
			}
			if remember {
				keepBytes += changeBytes(c)
				if remember = keepBytes <= memoLimit/4; remember {
					keep = append(keep, c)
				} else {
					keep = nil
				}
			}
			n++
			if err := each(n-1, c); err != nil {
				return err
			}
		}
	})
	if errors.Is(err, ErrStop) {
		return n, nil
	}
	if err != nil {
		return n, err
	}
	if remember {
		r.memo.put(key, keep, keepBytes+len(key))
	}
	return n, nil
}

// changesKey names a file list in the memo: what its command line differs
// by (-w does not change git's raw list today, but the key follows the
// command, not that knowledge).
func changesKey(o DiffOptions) string {
	return "changes " + o.From + " " + o.To + " " + strconv.FormatBool(o.IgnoreWhitespace) + " " + strings.Join(o.Paths, "\x00")
}

// KnownChanges is how many changes EachChange would list, when it listed
// them before and remembers them (false otherwise).
func (r *Repo) KnownChanges(o DiffOptions) (int, bool) {
	list, ok := r.memo.get(changesKey(o))
	if !ok {
		return 0, false
	}
	return len(list.([]Change)), true
}

// ErrStop, returned by a callback, ends a listing early without an error.
var ErrStop = errors.New("stop listing")

func stopped(err error) error {
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// changeBytes is about what a Change costs in memory.
func changeBytes(c Change) int {
	n := 64 + len(c.Path)
	if c.OldPath != c.Path {
		n += len(c.OldPath)
	}
	return n
}

// ChangedFilesPage lists the files of a diff from index from on, at most n,
// with their line counts, in git's order, and says how many files the diff
// has. The list comes with rename detection over the whole range but
// without patches (EachChange); line counts are computed for the page's
// files only, so a page costs what its files cost, not the range. Only the
// page is kept: the memory follows what is returned.
func (r *Repo) ChangedFilesPage(ctx context.Context, o DiffOptions, from, n int) ([]Change, int, error) {
	return r.ChangedFilesPageFit(ctx, o, from, n, nil)
}

// ChangedFilesPageFit is ChangedFilesPage whose page also ends before the
// first change fit refuses (fit is asked of the page's changes in order;
// the first is always taken): a page cut to what a reply can hold costs
// the line counts of those files only.
func (r *Repo) ChangedFilesPageFit(ctx context.Context, o DiffOptions, from, n int, fit func(Change) bool) ([]Change, int, error) {
	var page []Change
	full := false
	total, err := r.EachChange(ctx, o, func(i int, c Change) error {
		if i >= from && i < from+n && !full {
			fits := fit == nil || fit(c) // asked of the first too, which it counts
			if full = len(page) > 0 && !fits; !full {
				page = append(page, c)
			}
		}
		return nil
	})
	if err != nil || len(page) == 0 {
		return page, total, err
	}
	return page, total, r.countLines(ctx, o, page)
}

// maxPathArgBytes bounds the paths one git command line carries, well under
// the system's limit on arguments.
const maxPathArgBytes = 256 << 10

// countLines fills in the line counts of changes (a page of o's diff) from
// `git diff --numstat` restricted to their paths, both sides of each rename,
// in batches that keep the command line short.
func (r *Repo) countLines(ctx context.Context, o DiffOptions, changes []Change) error {
	for len(changes) > 0 {
		sub := o
		sub.Paths = nil
		size, n := 0, 0
		for _, c := range changes {
			p := c.Paths()
			for _, x := range p {
				size += len(x) + 1
			}
			if n > 0 && size > maxPathArgBytes {
				break
			}
			sub.Paths = append(sub.Paths, p...)
			n++
		}
		if err := r.countBatch(ctx, sub, changes[:n]); err != nil {
			return err
		}
		changes = changes[n:]
	}
	return nil
}

// countBatch runs one restricted --raw --numstat and copies each record's
// counts to the change with the same paths.
func (r *Repo) countBatch(ctx context.Context, o DiffOptions, changes []Change) error {
	type key struct{ old, path string }
	at := make(map[key]int, len(changes))
	for i, c := range changes {
		at[key{c.OldPath, c.Path}] = i
	}
	return r.run.Stream(ctx, diffArgs(o, "-z", "--raw", "--numstat"), func(stdout io.Reader) error {
		rd := newRawReader(ctx, stdout)
		var listed []Change
		for {
			c, ok, err := rd.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			listed = append(listed, c)
		}
		if err := readNumstat(ctx, rd, listed); err != nil {
			return err
		}
		for _, c := range listed {
			if i, ok := at[key{c.OldPath, c.Path}]; ok {
				changes[i].Added, changes[i].Deleted, changes[i].Binary = c.Added, c.Deleted, c.Binary
			}
		}
		return nil
	})
}

// Patch streams the unified diff to read. When read returns early, git is
// stopped: the cost follows what is read.
func (r *Repo) Patch(ctx context.Context, o DiffOptions, read func(patch io.Reader) error) error {
	return r.run.Stream(ctx, diffArgs(o, "-p"), read)
}

// FunctionContextPatch is Patch with o.FunctionContext, the paths of
// drivers given those diff drivers ("": git's default rule) over the
// table's (gitexec.Cmd.DiffDrivers).
func (r *Repo) FunctionContextPatch(ctx context.Context, o DiffOptions, drivers map[string]string, read func(patch io.Reader) error) error {
	o.FunctionContext = true
	c := diffArgs(o, "-p").DiffDrivers(drivers)
	return r.run.Stream(ctx, c, read)
}

// StartedPatch is a git diff started before its reader is ready: git does
// its first work (rename detection, the first files) while the caller
// still decides, and waits with a full pipe after that.
type StartedPatch struct {
	reader chan func(io.Reader) error
	done   chan error
}

// StartPatch starts the git diff that Patch would run; its ctx ends it.
// Exactly one of Read or Abandon must follow.
func (r *Repo) StartPatch(ctx context.Context, o DiffOptions) *StartedPatch {
	return r.startPatch(ctx, diffArgs(o, "-p"), func() {})
}

// StartPatchEarly is StartPatch for a diff started before the caller
// knows it needs it (a first part's, while the file list that decides is
// read): it starts only when a process slot is free now, and one stays
// free of such diffs in the repository's share and in the Env's, so that
// calls that each hold one, and wait for a slot to list their changes,
// cannot wait on each other until their deadlines. false: not started.
func (r *Repo) StartPatchEarly(ctx context.Context, o DiffOptions) (*StartedPatch, bool) {
	release, ok := r.run.EarlySlot(ctx)
	if !ok {
		return nil, false
	}
	return r.startPatch(ctx, diffArgs(o, "-p").InCallersSlot(), release), true
}

// startPatch runs c in the background until its reader is handed over,
// then release.
func (r *Repo) startPatch(ctx context.Context, c *gitexec.Cmd, release func()) *StartedPatch {
	p := &StartedPatch{reader: make(chan func(io.Reader) error, 1), done: make(chan error, 1)}
	go func() {
		defer release()
		p.done <- r.run.Stream(ctx, c, func(patch io.Reader) error {
			select {
			case read := <-p.reader:
				if read == nil {
					return errAbandoned
				}
				return read(patch)
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		})
	}()
	return p
}

var errAbandoned = errors.New("git diff abandoned")

// Read hands the diff to read, as Patch does, and waits for git's end.
func (p *StartedPatch) Read(read func(patch io.Reader) error) error {
	p.reader <- read
	return <-p.done
}

// Abandon stops the diff without reading it.
func (p *StartedPatch) Abandon() {
	p.reader <- nil
}

// rawReader reads NUL-terminated raw records (":old new oid oid status\0
// path\0[path\0]") up to the first token that is not one (the first
// --numstat record, kept in pending) or the end of the output. It checks
// the call's deadline as it goes.
type rawReader struct {
	ctx     context.Context
	br      *bufio.Reader
	n       int
	pending string // the token after the raw records
}

func newRawReader(ctx context.Context, r io.Reader) *rawReader {
	return &rawReader{ctx: ctx, br: bufio.NewReaderSize(r, 64<<10)}
}

// checkEvery is how many records a loop over a listing handles between two
// looks at its deadline.
const checkEvery = 1024

// next returns the next change, or false at the end of the raw records.
func (rd *rawReader) next() (Change, bool, error) {
	if rd.n++; rd.n%checkEvery == 0 {
		if err := context.Cause(rd.ctx); err != nil {
			return Change{}, false, err
		}
	}
	tok, err := readToken(rd.br)
	if err == io.EOF && tok == "" {
		return Change{}, false, nil
	}
	if err != nil {
		return Change{}, false, err
	}
	if !strings.HasPrefix(tok, ":") {
		rd.pending = tok
		return Change{}, false, nil
	}
	c, twoPaths, err := parseRaw(tok)
	if err != nil {
		return Change{}, false, err
	}
	if c.Path, err = readToken(rd.br); err != nil {
		return Change{}, false, fmt.Errorf("git diff: raw record without a path: %w", err)
	}
	c.OldPath = c.Path
	if twoPaths {
		if c.Path, err = readToken(rd.br); err != nil {
			return Change{}, false, fmt.Errorf("git diff: raw record without its second path: %w", err)
		}
	}
	return c, true, nil
}

// parseRaw parses ":100644 100644 abc def R086": the status letter is
// what the tools use.
func parseRaw(tok string) (Change, bool, error) {
	f := strings.Fields(tok[1:])
	if len(f) != 5 || f[4] == "" {
		return Change{}, false, fmt.Errorf("git diff: bad raw record %q", tok)
	}
	c := Change{Status: f[4][0]}
	return c, c.Status == 'R' || c.Status == 'C', nil
}

// readNumstat reads the numstat records that follow the raw ones, one
// "added\tdeleted\tpath\0" per change (for a rename
// "added\tdeleted\t\0old\0new\0"; "-\t-" marks a binary file), in the
// order of listed, the raw records, and fills in their counts. With -w a
// change whose lines differ only in whitespace has no record (git counts
// it as no change): its counts stay 0, as its patch has no line.
func readNumstat(ctx context.Context, rd *rawReader, listed []Change) error {
	tok, j := rd.pending, 0
	for i := 0; tok != ""; i++ {
		if i%checkEvery == checkEvery-1 {
			if err := context.Cause(ctx); err != nil {
				return err
			}
		}
		f := strings.SplitN(tok, "\t", 3)
		if len(f) != 3 {
			return fmt.Errorf("git diff: bad numstat record %q", tok)
		}
		old, path := f[2], f[2]
		if f[2] == "" { // a rename: the two names follow
			var err error
			if old, err = readToken(rd.br); err != nil {
				return err
			}
			if path, err = readToken(rd.br); err != nil {
				return err
			}
		}
		for j < len(listed) && (listed[j].OldPath != old || listed[j].Path != path) {
			j++
		}
		if j == len(listed) {
			return fmt.Errorf("git diff: numstat record %q is not in the file list", tok)
		}
		c := &listed[j]
		j++
		if f[0] == "-" {
			c.Binary = true
		} else {
			c.Added, _ = strconv.Atoi(f[0])
			c.Deleted, _ = strconv.Atoi(f[1])
		}
		var err error
		if tok, err = readToken(rd.br); err != nil && (err != io.EOF || tok != "") {
			return fmt.Errorf("git diff: numstat ended inside a record: %w", err)
		}
	}
	return nil
}

// readToken reads up to the next NUL, without it.
func readToken(br *bufio.Reader) (string, error) {
	tok, err := br.ReadString(0)
	if err != nil {
		return tok, err
	}
	return tok[:len(tok)-1], nil
}
