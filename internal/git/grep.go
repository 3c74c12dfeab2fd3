package git

import (
	"context"
	"io"
	"strconv"
	"strings"
)

// GrepOptions is one search.
type GrepOptions struct {
	Pattern       string   // passed only through -e
	Regex         bool     // POSIX extended regex; else a fixed string
	CaseSensitive bool     //
	Rev           string   // a full commit id; "" searches the work tree
	Globs         []string // include only paths matching these globs ("*" stays within a directory, "**" crosses)
	Exclude       []string // never search paths matching these globs (case-insensitive)
	Context       int      // lines of context around each match
}

// Grep runs git grep and hands its output to consume: for each line
// "PATH\0LINE\0COLUMN\0TEXT\n" for a match, "PATH\0LINE\0TEXT\n" for a
// context line ("--" between groups), PATH prefixed with "REV:" at a
// revision. Binary files are skipped. At a revision git reads objects only;
// without one it reads the work tree's tracked files as they are (the one
// command that may: it runs no filters). When consume returns early, git is
// stopped. Exit status 1 (nothing found) is not an error.
func (r *Repo) Grep(ctx context.Context, o GrepOptions, consume func(io.Reader) error) error {
	args := []string{"grep", "--null", "-n", "--column", "-I", "--no-color", "--no-textconv", "--full-name"}
	if o.Regex {
		args = append(args, "-E")
	} else {
		args = append(args, "-F")
	}
	if !o.CaseSensitive {
		args = append(args, "-i")
	}
	if o.Context > 0 {
		args = append(args, "-C", strconv.Itoa(o.Context))
	}
	args = append(args, "-e", o.Pattern)
	if o.Rev != "" {
		// git grep (2.39) takes no --end-of-options; Rev is a full
		// commit id, never a caller's text.
		args = append(args, o.Rev)
	}
	args = append(args, "--")
	for _, g := range o.Globs {
		args = append(args, ":(glob)"+g)
	}
	for _, g := range o.Exclude {
		args = append(args, ":(exclude,glob,icase)"+g)
	}
	run := r.Stream
	if o.Rev == "" {
		run = r.StreamWorkTree
	}
	err := run(ctx, args, consume)
	if exit, ok := err.(*ExitError); ok && exit.Code == 1 && onlyDenials(exit.Stderr) {
		return nil
	}
	return err
}

// onlyDenials reports whether git's stderr holds nothing but files it was
// not allowed to open: in the work tree, the sandbox refuses what a symlink
// leads to outside the repository, which the server would not show anyway.
// git skips those files and searches the rest.
func onlyDenials(stderr string) bool {
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if line != "" && !(strings.HasPrefix(line, "error: ") && strings.HasSuffix(line, ": Permission denied")) {
			return false
		}
	}
	return true
}
