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
)

// RenameLimit is passed to every diff explicitly: past the limit git
// silently stops detecting renames, and the default (1000) is low for large
// ranges.
const RenameLimit = 5000

// DiffOptions selects a diff between two commits.
type DiffOptions struct {
	From, To string   // full commit ids
	Paths    []string // literal repository paths (files or directories); none = everything
	Context  int      // lines of context (-U)
}

// diffArgs is the one command line every diff runs with: nothing a
// repository configures can run a program or change the patch format, and
// the patch is what `git diff -M FROM TO` prints with default settings.
//
// format selects the output: "-p" (with -U, which implies a patch, so it is
// given only then) or "--raw", "--numstat".
func diffArgs(o DiffOptions, format ...string) []string {
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv",
		"--submodule=short", "--ignore-submodules=none", "--src-prefix=a/", "--dst-prefix=b/", "-M", "-l" + strconv.Itoa(RenameLimit)}
	if slices.Contains(format, "-p") {
		args = append(args, "-U"+strconv.Itoa(o.Context))
	}
	args = append(args, format...)
	args = append(args, "--end-of-options", o.From, o.To, "--")
	return append(args, o.Paths...)
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
	out, err := r.Output(ctx, "merge-base", "--end-of-options", a, b)
	var exit *ExitError
	if errors.As(err, &exit) && exit.Code == 1 {
		return "", ErrNoMergeBase
	}
	if err != nil {
		return "", err
	}
	mb := strings.TrimSpace(string(out))
	r.memo.put(key, mb, 1)
	return mb, nil
}

// Changes lists the files of a diff (git's raw format, with rename
// detection) without producing any patch: cheap, even when a patch would be
// huge (git computes nothing per file for it). Lists between two commits
// never change, so they are kept, within a bound.
func (r *Repo) Changes(ctx context.Context, o DiffOptions) ([]Change, error) {
	key := "changes " + o.From + " " + o.To + " " + strings.Join(o.Paths, "\x00")
	if c, ok := r.memo.get(key); ok {
		return c.([]Change), nil
	}
	var changes []Change
	err := r.Stream(ctx, diffArgs(o, "-z", "--raw"), func(stdout io.Reader) error {
		var err error
		var rest string
		changes, rest, err = readRaw(bufio.NewReaderSize(stdout, 64<<10))
		if err == nil && rest != "" {
			err = fmt.Errorf("git diff: unexpected %q in the file list", rest)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	r.memo.put(key, changes, len(changes)+1)
	return changes, nil
}

// ChangedFiles lists the files of a diff with their line counts, in git's
// order: `git diff -z --raw --numstat`.
func (r *Repo) ChangedFiles(ctx context.Context, o DiffOptions) ([]Change, error) {
	var changes []Change
	err := r.Stream(ctx, diffArgs(o, "-z", "--raw", "--numstat"), func(stdout io.Reader) error {
		br := bufio.NewReaderSize(stdout, 64<<10)
		var err error
		var first string
		if changes, first, err = readRaw(br); err != nil {
			return err
		}
		return readNumstat(br, first, changes)
	})
	return changes, err
}

// Patch streams the unified diff to read. When read returns early, git is
// stopped: the cost follows what is read.
func (r *Repo) Patch(ctx context.Context, o DiffOptions, read func(patch io.Reader) error) error {
	return r.Stream(ctx, diffArgs(o, "-p"), read)
}

// readRaw reads NUL-terminated raw records (":old new oid oid status\0path\0
// [path\0]") up to the first token that is not one (the first --numstat
// record) or the end of the output. It returns that token.
func readRaw(br *bufio.Reader) ([]Change, string, error) {
	var changes []Change
	for {
		tok, err := readToken(br)
		if err == io.EOF && tok == "" {
			return changes, "", nil
		}
		if err != nil {
			return nil, "", err
		}
		if !strings.HasPrefix(tok, ":") {
			return changes, tok, nil
		}
		c, twoPaths, err := parseRaw(tok)
		if err != nil {
			return nil, "", err
		}
		if c.Path, err = readToken(br); err != nil {
			return nil, "", fmt.Errorf("git diff: raw record without a path: %w", err)
		}
		c.OldPath = c.Path
		if twoPaths {
			if c.Path, err = readToken(br); err != nil {
				return nil, "", fmt.Errorf("git diff: raw record without its second path: %w", err)
			}
		}
		changes = append(changes, c)
	}
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

// readNumstat reads one "added\tdeleted\tpath\0" record per change (for a
// rename "added\tdeleted\t\0old\0new\0"); "-\t-" marks a binary file. first
// is the first record, already read.
func readNumstat(br *bufio.Reader, first string, changes []Change) error {
	tok := first
	for i := range changes {
		if i > 0 {
			var err error
			if tok, err = readToken(br); err != nil {
				return fmt.Errorf("git diff: numstat ended early: %w", err)
			}
		}
		f := strings.SplitN(tok, "\t", 3)
		if len(f) != 3 {
			return fmt.Errorf("git diff: bad numstat record %q", tok)
		}
		if f[2] == "" { // a rename: the two names follow
			if _, err := readToken(br); err != nil {
				return err
			}
			if _, err := readToken(br); err != nil {
				return err
			}
		}
		c := &changes[i]
		if f[0] == "-" {
			c.Binary = true
			continue
		}
		c.Added, _ = strconv.Atoi(f[0])
		c.Deleted, _ = strconv.Atoi(f[1])
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
