package server

import (
	"cmp"
	"context"
	"slices"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// Review threads: the forge keeps inline comments by review, each at a
// path and a line of the new or the old file, and has no field for a
// reply or for a comment whose line changed since. A thread is what the
// forge's own page shows as one: the comments at one path, side and line,
// across reviews, in order; it is resolved when its first comment is.

// reviewThread is one thread of inline comments.
type reviewThread struct {
	Path string `json:"path"`
	Side string `json:"side" jsonschema:"new: a line of the file at the head; old: a line of the file at the merge base"`
	Line int    `json:"line" jsonschema:"the line's number in that side's file"`
	// Outdated: the line changed since the thread's first comment.
	Outdated   *bool  `json:"outdated" jsonschema:"true when the line changed since the first comment (new side: git blame of the line at the head names another commit than the one it was commented on; old side: the file is no longer in the diff); null when not checked (past the first 200 threads)"`
	Resolved   bool   `json:"resolved"`
	ResolvedBy string `json:"resolvedBy,omitempty"`
	InDiff     bool   `json:"inDiff" jsonschema:"the file is in the pull request's current diff"`
	// ShowIn is the call that shows the file's patch, where the line is.
	ShowIn *paging.Call `json:"showIn,omitempty" jsonschema:"the get_pull_request_diff call that shows the thread's line in this file's patch (with the cursor of its part when the patch does not fit one reply); absent when the file is no longer in the diff"`
	// Part is the part of the file's patch ShowIn gives.
	Part     int             `json:"part,omitempty" jsonschema:"which part of the file's patch showIn is (1: the first); absent when the whole patch fits one reply, or the line was not found in its first parts"`
	DiffHunk string          `json:"diffHunk" jsonschema:"the patch the forge kept around the line when it was commented on"`
	Comments []threadComment `json:"comments" jsonschema:"in order: the first, then the replies"`
	// commentedOn is the commit the first comment named for its line: git
	// blame's then (checkThreads).
	commentedOn string
}

type threadComment struct {
	ID        int64  `json:"id"`
	ReviewID  int64  `json:"reviewId"`
	Author    string `json:"author"`
	CreatedAt string `json:"createdAt"`
	URL       string `json:"url"`
	longBody
}

// maxCheckedThreads bounds the threads whose lines are blamed for
// outdated: a git blame each.
const maxCheckedThreads = 200

// threadsOf groups the comments of reviews into threads, in the order of
// their first comments, long bodies cut as in's listing shows them.
func threadsOf(comments []forge.ReviewComment, in listPullRequestReviewsIn, room int) []reviewThread {
	type key struct {
		path string
		old  bool
		line int
	}
	at := map[key]int{}
	var threads []reviewThread
	slices.SortStableFunc(comments, func(a, b forge.ReviewComment) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), cmp.Compare(a.ID, b.ID))
	})
	for _, c := range comments {
		k := key{c.Path, c.OldLine > 0, c.NewLine}
		side := "new"
		if k.old {
			k.line, side = c.OldLine, "old"
		}
		i, ok := at[k]
		if !ok {
			i = len(threads)
			at[k] = i
			threads = append(threads, reviewThread{Path: c.Path, Side: side, Line: k.line, DiffHunk: c.DiffHunk, commentedOn: c.CommitID,
				Resolved: c.Resolver != "", ResolvedBy: c.Resolver, Comments: []threadComment{}})
		}
		threads[i].Comments = append(threads[i].Comments, threadComment{ID: c.ID, ReviewID: c.ReviewID, Author: c.User,
			CreatedAt: c.Created, URL: c.URL, longBody: listed(c.Body, in, c.ID, room)})
	}
	return threads
}

// checkThreads says of each thread whether its file is in the pull
// request's diff now, the call that shows it, and whether its line
// changed since it was commented on, reading the mirror: the first
// comment's commit is the one git blame named for the line then.
func (s *Server) checkThreads(ctx context.Context, r *repo.Repository, pr *repo.PullRequest, in listPullRequestReviewsIn, threads []reviewThread) error {
	changed := map[string]bool{}
	if _, err := r.Git.EachChange(ctx, git.DiffOptions{From: pr.MergeBase, To: pr.Head}, func(_ int, c git.Change) error {
		changed[c.Path] = true
		if c.OldPath != "" {
			changed[c.OldPath] = true
		}
		return nil
	}); err != nil {
		return err
	}
	for i := range threads {
		t := &threads[i]
		t.InDiff = changed[t.Path]
		if t.InDiff {
			t.ShowIn = paging.Continue("get_pull_request_diff", getPullRequestDiffIn{Owner: in.Owner, Repo: in.Repo, Index: in.Index, FilePath: t.Path, ContextLines: defaultContextLines})
		}
		if i >= maxCheckedThreads {
			continue
		}
		outdated := !t.InDiff
		if t.Side == "new" && t.InDiff && !s.cfg.Policy.Denied(t.Path) {
			lines, _, err := r.Git.Blame(ctx, pr.Head, t.Path, t.Line, t.Line)
			if err != nil && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			// A line past the file's end (or a file git cannot blame)
			// changed too.
			outdated = err != nil || len(lines) == 0 || lines[0].SHA != t.commentedOn
		}
		t.Outdated = ptr(outdated)
	}
	return nil
}
