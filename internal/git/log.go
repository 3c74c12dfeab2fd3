package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Person is who wrote or committed a commit, and when, as the commit
// records them: no mailmap applies.
type Person struct {
	Name, Email string
	// Date keeps the commit's own time zone; it is zero when git could not
	// read the commit's date (a malformed commit).
	Date time.Time
}

// Commit is one commit of a Log.
type Commit struct {
	SHA     string
	Parents []string
	// ParentCount is how many parents the commit has: more than Parents
	// holds when LogOptions.MaxParents kept only the first ones.
	ParentCount int
	Author      Person
	Committer   Person
	// Subject is git's %s: the message's first paragraph, its lines joined
	// by spaces. Body is git's %b, the rest of the message (WithBody only),
	// as git prints it (ending with a newline when not empty).
	Subject, Body string
	// FilesChanged is the number of files the commit changes against its
	// first parent (all of its files for a root commit), renames found as
	// the diffs find them (WithFileCount only). Paths do not narrow it.
	FilesChanged int
	// Truncated: a field was longer than this package keeps, and was cut
	// (only a hostile commit has a subject, name or body that long).
	Truncated bool
}

// LogOptions selects commits: those reachable from To and not from From
// (git log To ^From; all ancestors of To when From is ""), optionally only
// those touching Paths, newest first (git's default order) or oldest first
// (Reverse: a pull request's order), Limit of them after skipping Skip.
type LogOptions struct {
	From, To string   // full commit ids (CommitID); To is required
	Paths    []string // literal repository paths (files or directories); none = everything
	Reverse  bool
	Skip     int // commits to pass over, in the order asked for
	Limit    int // at most this many commits (at least 1)
	// WithBody also reads each message's body (for get_commit);
	// WithFileCount also counts each commit's changed files.
	WithBody, WithFileCount bool
	// MaxParents keeps only the first MaxParents parents of each commit
	// (0: all of them), so that a page of commits with thousands of parents
	// each stays small; ParentCount still counts them all.
	MaxParents int
	// Follow follows the one path of Paths through its renames, as
	// git log --follow does.
	Follow bool
}

// Limits of what Log keeps of one commit. Past them a field is cut and the
// commit marked Truncated; in all, a Log keeps at most maxOutput bytes.
const (
	maxLogField = 64 << 10 // a subject, name, email or date
	maxLogBody  = 1 << 20  // a body, or the list of parents
)

// The record formats. Each record starts with an empty token (%x00 first),
// which no field and no file name can be (git prints no NUL inside a field,
// and paths are never empty), so the file names that --name-only prints
// after a record cannot be mistaken for the next one, whatever they are.
const (
	logFormat     = "--format=%x00%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%s"
	logFormatBody = logFormat + "%x00%b"
)

// logFieldLimits are the caps of the fields of logFormat, in order, and
// of the body after them.
func logFieldLimits(withBody bool) []int {
	limits := []int{64, maxLogBody, maxLogField, maxLogField, 64, maxLogField, maxLogField, 64, maxLogField}
	if withBody {
		limits = append(limits, maxLogBody)
	}
	return limits
}

// logCommand is the one command line every Log runs with: what the
// repository configures cannot change what it prints, nor run a program.
//
//   - --no-mailmap: names and emails are the commit's own, as get_commit
//     and blame show them; mailmap.file and mailmap.blob are not read.
//   - --encoding=UTF-8: i18n.logOutputEncoding (say UTF-16) would
//     re-encode every record, NULs and all.
//   - --no-follow: log.follow would follow renames of a single path, which
//     git rev-list (CountCommits) does not; --follow only when asked
//     (Follow), counted by git log itself (countFollowed).
//   - --no-decorate, --no-show-signature, --no-color: log.decorate would
//     read every ref, log.showSignature run gpg.program.
//   - GIT_FLUSH=0 (fullyBuffered): the page is read whole, so git need not
//     flush it commit by commit.
//   - file counts: --name-only (a tree diff: no blob is read, unlike
//     --shortstat, which costs about ten times as much), --full-diff (all of
//     the commit's files, not only those under Paths), --root (log.showRoot
//     would hide a root commit's files), the renames of every diff here (-M
//     with RenameLimit) so that a count matches list_changed_files, and a
//     merge's files against its first parent (as GitHub counts them):
//     --diff-merges=first-parent when no Paths are given, in the same
//     process; with Paths, --diff-merges=off and merges are counted apart
//     (mergeFileCounts), since any diff of merges in git log (-m,
//     --diff-merges=first-parent) also changes which commits touching Paths
//     it lists. Without Paths there is nothing to simplify: the commits
//     are the same, and a second git process would cost as much as the log
//     itself (issue 14).
//
// With Follow, the files are counted apart (git refuses --full-diff with
// --follow), and Log passes over the first skip commits and turns the page
// around itself: git's --skip and --reverse drop the commits where the
// rename is seen, and with it the rest of the history (git 2.39: "--follow
// --reverse" lists only the commits after the rename).
func logCommand(o LogOptions, skip, n int) *command {
	c := gitCommand("log", "-z", "--no-color", "--no-decorate", "--no-show-signature",
		"--no-mailmap", "--encoding=UTF-8").fullyBuffered()
	if o.Follow {
		c.flags("--follow")
	} else {
		c.flags("--no-follow")
	}
	if o.WithBody {
		c.flags(logFormatBody)
	} else {
		c.flags(logFormat)
	}
	if o.WithFileCount && !o.Follow {
		c.flags(fileCountFlags...).flags("--full-diff")
		if mergesApart(o) {
			c.flags("--diff-merges=off")
		} else {
			c.flags("--diff-merges=first-parent")
		}
	}
	if o.Reverse && !o.Follow {
		c.flags("--reverse")
	}
	if oneCommit(o, skip, n) {
		// The commit itself, without a walk: a walk reads every parent
		// first, thousands of objects for a hostile octopus.
		c.flags("--no-walk")
	}
	if o.Follow {
		c.flags(intArg("--max-count=", skip+n)) // Log passes over the first skip
	} else {
		c.flags(intArg("--skip=", skip), intArg("--max-count=", n))
	}
	return c.revs(rangeRevs(o.From, o.To)...).paths(o.Paths...)
}

// oneCommit tells a Log that lists To alone (what get_commit asks), which
// is the first commit of To's history when no paths select commits.
func oneCommit(o LogOptions, skip, n int) bool {
	return o.From == "" && len(o.Paths) == 0 && skip == 0 && n == 1 && !o.Reverse
}

// mergesApart tells that a Log's merges have their files counted by a
// second git process (mergeFileCounts): only when Paths select commits.
// When following a rename, every commit's are.
func mergesApart(o LogOptions) bool { return o.WithFileCount && len(o.Paths) > 0 }

// fileCountFlags make git log print each commit's changed files.
var fileCountFlags = []arg{"--name-only", "--root", "--no-ext-diff", "--no-textconv", "-M", intArg("-l", RenameLimit)}

// mergesCommand prints the files of each merge against its first parent
// (as GitHub counts them): the merges alone (--no-walk), so no walk is
// changed.
func mergesCommand(merges []string) *command {
	return gitCommand("log", "-z", "--no-color", "--no-decorate", "--no-show-signature", "--encoding=UTF-8",
		"--no-walk=unsorted", "--format=%x00%H", "--diff-merges=first-parent").fullyBuffered().
		flags(fileCountFlags...).revs(merges...).paths()
}

// rangeRevs is "to ^from", or "to" alone.
func rangeRevs(from, to string) []string {
	if from == "" {
		return []string{to}
	}
	return []string{to, "^" + from}
}

// Log lists the commits o selects, streaming git log's output and stopping
// once Limit commits are read: only the page is ever held.
//
// git applies --skip and --max-count before --reverse, so an oldest-first
// page is a window of the newest-first list counted from its end: Log
// counts the range first (CountCommits, which remembers the count) and asks
// git for exactly that window, which --reverse then turns around. When
// Paths select commits, merges' files are counted by a second git process
// (mergeFileCounts).
func (r *Repo) Log(ctx context.Context, o LogOptions) ([]Commit, error) {
	if err := checkLog(o); err != nil {
		return nil, err
	}
	skip, n := o.Skip, o.Limit
	if o.Reverse {
		total, err := r.CountLog(ctx, o)
		if err != nil {
			return nil, err
		}
		end := total - o.Skip // one past the window, in newest-first order
		if end <= 0 {
			return nil, nil
		}
		skip = max(0, end-o.Limit)
		n = end - skip
	}
	var commits []Commit
	var merges []string
	err := r.stream(ctx, logCommand(o, skip, n), func(stdout io.Reader) error {
		rr := newRecordReader(ctx, stdout, logFieldLimits(o.WithBody), o.WithFileCount)
		kept, passed := 0, 0
		for len(commits) < n {
			c, ok, err := rr.commit()
			if err != nil || !ok {
				return readError(ctx, err)
			}
			if o.Follow && passed < skip {
				passed++
				continue
			}
			if o.MaxParents > 0 && len(c.Parents) > o.MaxParents {
				c.Parents = firstParents(c.Parents, o.MaxParents)
			}
			if kept += commitBytes(c); kept > maxOutput {
				return fmt.Errorf("git log: over %d bytes for %d commits: ask for fewer", maxOutput, len(commits)+1)
			}
			if (len(c.Parents) > 1 || o.Follow) && mergesApart(o) {
				merges = append(merges, c.SHA)
			}
			commits = append(commits, c)
		}
		return nil
	})
	if err != nil {
		return nil, missingRevision(err)
	}
	if o.Reverse && o.Follow {
		slices.Reverse(commits)
	}
	if len(merges) > 0 {
		counts, err := r.mergeFileCounts(ctx, merges)
		if err != nil {
			return nil, err
		}
		for i := range commits {
			if n, ok := counts[commits[i].SHA]; ok {
				commits[i].FilesChanged = n
			}
		}
	}
	return commits, nil
}

// mergeFileCounts counts the files of each merge against its first
// parent, in one git process (any commit's: all of a root commit's).
func (r *Repo) mergeFileCounts(ctx context.Context, merges []string) (map[string]int, error) {
	counts := map[string]int{}
	for len(merges) > 0 {
		batch := merges[:min(len(merges), mergesPerProcess)]
		merges = merges[len(batch):]
		err := r.stream(ctx, mergesCommand(batch), func(stdout io.Reader) error {
			rr := newRecordReader(ctx, stdout, []int{64}, true)
			for {
				f, _, files, ok, err := rr.next()
				if err != nil || !ok {
					return readError(ctx, err)
				}
				counts[f[0]] = files
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return counts, nil
}

// mergesPerProcess bounds the commit ids on one command line.
const mergesPerProcess = 1000

// readError is err, or the call's deadline if that is what cut git short.
func readError(ctx context.Context, err error) error {
	if err != nil {
		if ctxErr := context.Cause(ctx); ctxErr != nil {
			return ctxErr
		}
	}
	return err
}

// CountLog is the number of commits Log lists for o, without paging.
func (r *Repo) CountLog(ctx context.Context, o LogOptions) (int, error) {
	if o.Follow {
		if len(o.Paths) != 1 {
			return 0, fmt.Errorf("git log --follow: %d paths: it follows exactly one", len(o.Paths))
		}
		if err := checkRange(o.From, o.To, o.Paths); err != nil {
			return 0, err
		}
		return r.countFollowed(ctx, o.From, o.To, o.Paths[0])
	}
	return r.CountCommits(ctx, o.From, o.To, o.Paths)
}

// countFollowed counts the commits of git log --follow for path: git
// rev-list has no --follow, so git log lists their ids (41 bytes each,
// counted, not kept). Kept, like CountCommits' counts.
func (r *Repo) countFollowed(ctx context.Context, from, to, path string) (int, error) {
	key := "count follow\x00" + from + "\x00" + to + "\x00" + path
	if n, ok := r.memo.get(key); ok {
		return n.(int), nil
	}
	n := 0
	c := gitCommand("log", "--no-color", "--no-decorate", "--no-show-signature", "--no-mailmap", "--follow", "--format=%H").
		fullyBuffered().revs(rangeRevs(from, to)...).paths(path)
	err := r.stream(ctx, c, func(stdout io.Reader) error {
		buf := make([]byte, 64<<10)
		for {
			k, err := stdout.Read(buf)
			n += bytes.Count(buf[:k], []byte{'\n'})
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return readError(ctx, err)
			}
		}
	})
	if err != nil {
		return 0, missingRevision(err)
	}
	r.memo.put(key, n, len(key)+16)
	return n, nil
}

// CountCommits is the number of commits Log would list for the range and
// paths, without paging (git rev-list --count, which walks the same
// history). Counts between commit ids never change: they are kept.
func (r *Repo) CountCommits(ctx context.Context, from, to string, paths []string) (int, error) {
	if err := checkRange(from, to, paths); err != nil {
		return 0, err
	}
	key := "count\x00" + from + "\x00" + to + "\x00" + strings.Join(paths, "\x00")
	if n, ok := r.memo.get(key); ok {
		return n.(int), nil
	}
	out, err := r.output(ctx, gitCommand("rev-list", "--count").revs(rangeRevs(from, to)...).paths(paths...))
	if err != nil {
		return 0, missingRevision(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count: unexpected output %q", out)
	}
	r.memo.put(key, n, len(key)+16)
	return n, nil
}

// FirstParentDescendant is the oldest commit of base's first-parent line
// that has head as an ancestor: where head came into base (a merge, or
// head's own child when head is on that line), found by git rev-list
// --first-parent --ancestry-path base ^head, streamed with only its last
// line kept. It is "" when head is base itself (or no such commit is on
// the line). Kept per commit ids, which never change.
func (r *Repo) FirstParentDescendant(ctx context.Context, base, head string) (string, error) {
	if err := checkRange(head, base, nil); err != nil {
		return "", err
	}
	key := "fpdesc\x00" + base + "\x00" + head
	if id, ok := r.memo.get(key); ok {
		return id.(string), nil
	}
	var last string
	err := r.stream(ctx, gitCommand("rev-list", "--first-parent", "--ancestry-path").revs(base, "^"+head).paths(), func(stdout io.Reader) error {
		sc := bufio.NewScanner(stdout)
		for n := 0; sc.Scan(); n++ {
			if n%checkEvery == 0 {
				if err := context.Cause(ctx); err != nil {
					return err
				}
			}
			if id := sc.Text(); IsObjectID(id) {
				last = id
			}
		}
		return readError(ctx, sc.Err())
	})
	if err != nil {
		return "", missingRevision(err)
	}
	r.memo.put(key, last, len(key)+len(last)+16)
	return last, nil
}

func checkLog(o LogOptions) error {
	if o.Follow && len(o.Paths) != 1 {
		return fmt.Errorf("git log --follow: %d paths: it follows exactly one", len(o.Paths))
	}
	if o.Limit < 1 || o.Skip < 0 {
		return fmt.Errorf("git log: skip %d, limit %d: the limit must be at least 1 and the skip not negative", o.Skip, o.Limit)
	}
	return checkRange(o.From, o.To, o.Paths)
}

// checkRange refuses what is not a range of commit ids and repository
// paths: no revision syntax, nothing git could read as an option, no path
// that is not clean and relative.
func checkRange(from, to string, paths []string) error {
	if !IsObjectID(to) {
		return fmt.Errorf("git log: %q is not a full commit id", to)
	}
	if from != "" && !IsObjectID(from) {
		return fmt.Errorf("git log: %q is not a full commit id", from)
	}
	for _, p := range paths {
		if !isCleanPath(p) {
			return fmt.Errorf("git log: path %q is not a clean relative path", p)
		}
	}
	return nil
}

// IsObjectID reports whether s is a full object id (SHA-1 or SHA-256), in
// lower-case hex: never an option, a ref or revision syntax.
func IsObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// isCleanPath reports whether p is a repository path as git stores it:
// relative, no empty, "." or ".." segment, no trailing slash, no NUL.
func isCleanPath(p string) bool {
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// missingRevision turns git's "bad object" (a commit id the repository
// does not have) into ErrMissing.
func missingRevision(err error) error {
	var exit *ExitError
	if errors.As(err, &exit) && strings.HasPrefix(exit.Stderr, "fatal: bad object ") {
		return fmt.Errorf("%w: %s", ErrMissing, strings.TrimSpace(strings.TrimPrefix(exit.Stderr, "fatal: ")))
	}
	return err
}

// firstParents copies the first n of parents, so that the list git printed
// (up to maxLogBody bytes, which the ids are slices of) is not kept.
func firstParents(parents []string, n int) []string {
	kept := make([]string, n)
	for i := range kept {
		kept[i] = strings.Clone(parents[i])
	}
	return kept
}

// commitBytes is about what a Commit costs in memory.
func commitBytes(c Commit) int {
	n := 256 + len(c.SHA) + len(c.Subject) + len(c.Body) + len(c.Author.Name) + len(c.Author.Email) +
		len(c.Committer.Name) + len(c.Committer.Email)
	for _, p := range c.Parents {
		n += 16 + len(p)
	}
	return n
}

// recordReader reads records of NUL-terminated tokens: an empty marker,
// one field per limit (each cut to its limit), then, withFiles, the
// commit's file names (the first after a newline) up to the next marker or
// the end of the output.
type recordReader struct {
	ctx       context.Context
	br        *bufio.Reader
	limits    []int
	withFiles bool
	buf       []byte
	n         int
	atRecord  bool // the marker of the next record has been read
}

func newRecordReader(ctx context.Context, r io.Reader, limits []int, withFiles bool) *recordReader {
	return &recordReader{ctx: ctx, br: bufio.NewReaderSize(r, 64<<10), limits: limits, withFiles: withFiles}
}

// token reads the next NUL-terminated token, keeping at most limit bytes
// of it; cut tells whether more were skipped. At the end of the output it
// returns io.EOF, with an empty token if the output ended cleanly.
func (rr *recordReader) token(limit int) (tok string, cut bool, err error) {
	rr.buf, cut, err = readField(rr.br, 0, limit, rr.buf)
	if err == io.EOF && (len(rr.buf) > 0 || cut) {
		return "", false, fmt.Errorf("git log: %w", io.ErrUnexpectedEOF)
	}
	return string(rr.buf), cut, err
}

// next returns the next record's fields, whether any was cut and how many
// files follow it, or false at the end of the output.
func (rr *recordReader) next() (fields []string, cut bool, files int, ok bool, err error) {
	if rr.n++; rr.n%checkEvery == 0 {
		if err := context.Cause(rr.ctx); err != nil {
			return nil, false, 0, false, err
		}
	}
	if !rr.atRecord {
		marker, markerCut, err := rr.token(0)
		if err == io.EOF {
			return nil, false, 0, false, nil
		}
		if err != nil {
			return nil, false, 0, false, err
		}
		if marker != "" || markerCut {
			return nil, false, 0, false, errors.New("git log: a record does not start where expected")
		}
	}
	rr.atRecord = false
	fields = make([]string, len(rr.limits))
	for i, limit := range rr.limits {
		tok, tokCut, err := rr.token(limit)
		if err == io.EOF {
			err = fmt.Errorf("git log: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return nil, false, 0, false, err
		}
		fields[i], cut = tok, cut || tokCut
	}
	if !IsObjectID(fields[0]) {
		return nil, false, 0, false, fmt.Errorf("git log: bad commit id %q", fields[0])
	}
	for rr.withFiles {
		// File names are counted, not kept.
		_, nonEmpty, err := rr.token(0)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, 0, false, err
		}
		if !nonEmpty { // the marker of the next record
			rr.atRecord = true
			break
		}
		files++
	}
	return fields, cut, files, true, nil
}

// commit reads the next record of logCommand's output.
func (rr *recordReader) commit() (Commit, bool, error) {
	f, cut, files, ok, err := rr.next()
	if err != nil || !ok {
		return Commit{}, false, err
	}
	if cut && len(f[1]) == maxLogBody {
		f[1] = f[1][:strings.LastIndexByte(f[1], ' ')+1] // a parent id cut in two
	}
	parents := strings.Fields(f[1])
	c := Commit{
		SHA:          f[0],
		Parents:      parents,
		ParentCount:  len(parents),
		Author:       Person{Name: f[2], Email: f[3], Date: parseISODate(f[4])},
		Committer:    Person{Name: f[5], Email: f[6], Date: parseISODate(f[7])},
		Subject:      f[8],
		FilesChanged: files,
		Truncated:    cut,
	}
	if len(f) > 9 {
		c.Body = f[9]
	}
	return c, true, nil
}

// parseISODate reads git's strict ISO 8601 date (%aI, %cI); the zero time
// if it cannot.
func parseISODate(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// RenameStop tells where the history of path (the commits reachable from
// to and not from from that touch it) stops at a rename: the oldest of
// those commits, when against its first parent it renamed oldPath to
// path, with rename detection over the whole commit as every diff here
// does; "" when the history does not stop at a rename. Log with Follow
// goes on through it. Commits never change, so answers are kept.
func (r *Repo) RenameStop(ctx context.Context, from, to, path string) (commit, oldPath string, err error) {
	key := "rename stop\x00" + from + "\x00" + to + "\x00" + path
	if v, ok := r.memo.get(key); ok {
		stop := v.([2]string)
		return stop[0], stop[1], nil
	}
	total, err := r.CountCommits(ctx, from, to, []string{path})
	if err != nil || total == 0 {
		return "", "", err
	}
	oldest, err := r.Log(ctx, LogOptions{From: from, To: to, Paths: []string{path}, Skip: total - 1, Limit: 1})
	if err != nil || len(oldest) == 0 {
		return "", "", err
	}
	if c := oldest[0]; len(c.Parents) > 0 {
		_, err = r.EachChange(ctx, DiffOptions{From: c.Parents[0], To: c.SHA}, func(_ int, ch Change) error {
			if ch.Status == 'R' && ch.Path == path {
				commit, oldPath = c.SHA, ch.OldPath
				return ErrStop
			}
			return nil
		})
		if err != nil {
			return "", "", err
		}
	}
	r.memo.put(key, [2]string{commit, oldPath}, len(key)+len(commit)+len(oldPath)+32)
	return commit, oldPath, nil
}
