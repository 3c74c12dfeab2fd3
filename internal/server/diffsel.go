package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// maxDiffPaths bounds the paths filter of a diff.
const maxDiffPaths = 200

// defaultContextLines is git's: a forge's diff has as many.
const defaultContextLines = 3

// Diff modes.
const (
	modeMergeBase = "merge-base"
	modeDirect    = "direct"
)

// diffSelection is a resolved diff request: which repository, which two
// commits, which paths.
type diffSelection struct {
	repo       *repo.Repository
	base, head string  // resolved commit ids
	mergeBase  *string // merge-base mode only
	opts       git.DiffOptions
}

// diffRequest is what a diff tool was asked for.
type diffRequest struct {
	owner, name, base, head, mode string
	paths                         []string
	contextLines                  int
	ignoreWhitespace              bool
	// cur is the cursor of the call, if any: the base and head commits it
	// pinned are used instead of resolving base and head again, which may
	// have moved.
	cur *paging.Cursor
}

// selectDiff resolves base and head once and, in merge-base mode, their
// merge base, which is where the diff starts (what a pull request shows).
func (s *Server) selectDiff(ctx context.Context, q diffRequest) (*diffSelection, error) {
	r, err := s.served.Get(ctx, q.owner, q.name, false)
	if err != nil {
		return nil, err
	}
	base, head, mode := q.base, q.head, q.mode
	if base == "" {
		return nil, errcode.New(errcode.InvalidArgument, "base is required: a branch, tag or commit")
	}
	// Secret paths are allowed here: the diff lists them as denied.
	clean, err := repo.CleanPaths("paths", q.paths)
	if err != nil {
		return nil, err
	}
	sel := &diffSelection{repo: r, opts: git.DiffOptions{Paths: clean, Context: q.contextLines, IgnoreWhitespace: q.ignoreWhitespace}}
	if q.cur != nil {
		pins, err := paging.CheckPins(ctx, r, q.cur, 2)
		if err != nil {
			return nil, err
		}
		sel.base, sel.head = pins[0], pins[1]
	} else {
		if sel.base, err = r.ResolveCommit(ctx, base); err != nil {
			return nil, err
		}
		if sel.head, err = r.ResolveCommit(ctx, head); err != nil {
			return nil, err
		}
	}
	sel.opts.From, sel.opts.To = sel.base, sel.head
	if mode == modeMergeBase {
		mb, err := r.Git.MergeBase(ctx, sel.base, sel.head)
		if errors.Is(err, git.ErrNoMergeBase) {
			return nil, errcode.New(errcode.InvalidRef, "%s and %s share no history: there is no merge base; use mode=direct", base, head)
		}
		if err != nil {
			return nil, err
		}
		sel.mergeBase, sel.opts.From = &mb, mb
	}
	return sel, nil
}

// statusName maps git's raw status letters to the tool contract's names.
func statusName(c git.Change) string {
	switch c.Status {
	case 'A':
		return "added"
	case 'D':
		return "deleted"
	case 'R':
		return "renamed"
	case 'C':
		return "copied"
	case 'T':
		return "type_changed"
	default:
		return "modified"
	}
}

// deniedChange: a change is hidden when either of its paths is.
func (s *Server) deniedChange(c git.Change) bool {
	return s.cfg.Policy.Denied(c.Path) || s.cfg.Policy.Denied(c.OldPath)
}

// Why a diff tool's reply holds no file (the emptyReason of its
// structured output): the commits' trees do not differ, or paths were
// given and no changed file is at or under them.
const (
	emptyNoChange      = "noChange"
	emptyNoPathMatched = "noPathMatched"
)

// whyNoFile says why a selection (opts, with its paths) that holds no file
// is empty, and how many files the diff without the paths has: an agent
// that gave globs, or a path that is not in the diff, must not read "no
// file differs".
func whyNoFile(ctx context.Context, r *repo.Repository, opts git.DiffOptions) (string, int, error) {
	if len(opts.Paths) == 0 {
		return emptyNoChange, 0, nil
	}
	all := opts
	all.Paths = nil
	n, err := r.Git.EachChange(ctx, all, func(int, git.Change) error { return nil })
	if err != nil || n == 0 {
		return emptyNoChange, 0, err
	}
	return emptyNoPathMatched, n, nil
}

// noPathMatchedText is the text of a selection whose paths matched none
// of the diff's all changed files.
func noPathMatchedText(all int) string {
	return fmt.Sprintf("No changed file is at or under the paths given (the diff without paths has %s): paths are literal paths, not globs; list_files with pathGlobs finds files by glob.\n", text.Count(all, "changed file"))
}
