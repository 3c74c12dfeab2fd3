package git

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
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
// commit marked Truncated; in all, a Log keeps at most gitexec.MaxOutput bytes.
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
//   - GIT_FLUSH=0 (FullyBuffered): the page is read whole, so git need not
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
func logCommand(o LogOptions, skip, n int) *gitexec.Cmd {
	c := gitexec.Command("log", "-z", "--no-color", "--no-decorate", "--no-show-signature",
		"--no-mailmap", "--encoding=UTF-8").FullyBuffered()
	if o.Follow {
		c.Flags("--follow")
	} else {
		c.Flags("--no-follow")
	}
	if o.WithBody {
		c.Flags(logFormatBody)
	} else {
		c.Flags(logFormat)
	}
	if o.WithFileCount && !o.Follow {
		c.Flags(fileCountFlags...).Flags("--full-diff")
		if mergesApart(o) {
			c.Flags("--diff-merges=off")
		} else {
			c.Flags("--diff-merges=first-parent")
		}
	}
	if o.Reverse && !o.Follow {
		c.Flags("--reverse")
	}
	if oneCommit(o, skip, n) {
		// The commit itself, without a walk: a walk reads every parent
		// first, thousands of objects for a hostile octopus.
		c.Flags("--no-walk")
	}
	if o.Follow {
		c.Flags(gitexec.IntArg("--max-count=", skip+n)) // Log passes over the first skip
	} else {
		c.Flags(gitexec.IntArg("--skip=", skip), gitexec.IntArg("--max-count=", n))
	}
	return c.Revs(rangeRevs(o.From, o.To)...).Paths(o.Paths...)
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
var fileCountFlags = []gitexec.Arg{"--name-only", "--root", "--no-ext-diff", "--no-textconv", "-M", gitexec.IntArg("-l", RenameLimit)}

// mergesCommand prints the files of each merge against its first parent
// (as GitHub counts them): the merges alone (--no-walk), so no walk is
// changed.
func mergesCommand(merges []string) *gitexec.Cmd {
	return gitexec.Command("log", "-z", "--no-color", "--no-decorate", "--no-show-signature", "--encoding=UTF-8",
		"--no-walk=unsorted", "--format=%x00%H", "--diff-merges=first-parent").FullyBuffered().
		Flags(fileCountFlags...).Revs(merges...).Paths()
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
	err := r.run.Stream(ctx, logCommand(o, skip, n), func(stdout io.Reader) error {
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
			if kept += commitBytes(c); kept > gitexec.MaxOutput {
				return fmt.Errorf("git log: over %d bytes for %d commits: ask for fewer", gitexec.MaxOutput, len(commits)+1)
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
		err := r.run.Stream(ctx, mergesCommand(batch), func(stdout io.Reader) error {
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

func checkLog(o LogOptions) error {
	if o.Follow && len(o.Paths) != 1 {
		return fmt.Errorf("git log --follow: %d paths: it follows exactly one", len(o.Paths))
	}
	if o.Limit < 1 || o.Skip < 0 {
		return fmt.Errorf("git log: skip %d, limit %d: the limit must be at least 1 and the skip not negative", o.Skip, o.Limit)
	}
	return checkRange(o.From, o.To, o.Paths)
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
