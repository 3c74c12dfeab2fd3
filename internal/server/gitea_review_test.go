package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
)

// TestGiteaReviewContext reads the review context of a pull request a
// real Gitea holds (seedReviewPR: two reviewers' verdicts, inline threads
// with an outdated line, a resolved thread and a reply, five discussion
// comments with an 80 KB one and a bidi control, two checks with one
// failing) through the forge-only tools, and holds every field to what
// the forge's own API (and, for outdated, its page) says.
func TestGiteaReviewContext(t *testing.T) {
	g := needGitea(t)
	s := seedReviewPR(t, g)
	h, _, _ := serveForgeWith(t, g.url, g.token, nil, 30*time.Second, time.Minute, forge.Limits{}, nil)
	pr := func(kv ...any) map[string]any {
		return args(append([]any{"owner", s.Owner, "repo", s.Repo, "index", s.Index}, kv...)...)
	}
	noToken := func(t *testing.T, text string) {
		t.Helper()
		if strings.Contains(text, g.token) {
			t.Fatal("the forge's token is in a reply")
		}
	}

	t.Run("reviews and threads", func(t *testing.T) {
		var out listPullRequestReviewsOut
		noToken(t, h.structured("list_pull_request_reviews", pr(), &out))
		if out.Head != s.Head || out.Summary.Approved != 1 || out.Summary.ChangesRequested != 1 || out.Summary.Threads != 3 || out.Summary.Unresolved != 2 || out.Next != nil {
			t.Fatalf("summary %+v, head %s (the seed's %s)", out.Summary, out.Head, s.Head)
		}
		if len(out.Reviews) != len(s.Reviews) {
			t.Fatalf("%d reviews, the forge has %d", len(out.Reviews), len(s.Reviews))
		}
		for i, rv := range out.Reviews {
			want := s.Reviews[i]
			if rv.ID != want.ID || rv.Reviewer != want.User || rv.State != reviewState(want.State) || rv.Body != want.Body || rv.Stale != want.Stale || rv.Comments != want.CommentsCount || rv.CommitID != want.CommitID {
				t.Errorf("review %d: %+v, the forge's %+v", i, rv, want)
			}
		}
		byID := map[int64]seedReviewComment{}
		for _, c := range s.Comments {
			byID[c.ID] = c
		}
		for _, th := range out.Threads {
			first := byID[th.Comments[0].ID]
			if th.Path != first.Path || th.Side != first.Side || th.Line != first.Line || th.Resolved != (first.Resolver != "") || th.Outdated == nil || *th.Outdated != first.Outdated || !th.InDiff || th.ShowIn == nil {
				t.Errorf("thread %+v; the forge's first comment %+v", th, first)
			}
			for _, c := range th.Comments {
				if want := byID[c.ID]; c.Author != want.User || c.Body != want.Body || c.ReviewID != want.ReviewID {
					t.Errorf("comment %+v; the forge's %+v", c, want)
				}
			}
			if th.Comments[0].ID == s.ReplyToID && (len(th.Comments) != 2 || th.Comments[1].ID != s.ReplyID) {
				t.Errorf("the reply is not in its thread, after its first comment: %+v", th.Comments)
			}
			// The call it names shows the file's patch.
			if patch := h.ok(th.ShowIn.Tool, th.ShowIn.Arguments); !strings.Contains(patch, "diff --git a/"+th.Path) {
				t.Errorf("%s %v does not show %s:\n%s", th.ShowIn.Tool, th.ShowIn.Arguments, th.Path, patch)
			}
		}
		outdated := slices.IndexFunc(out.Threads, func(th reviewThread) bool { return th.Comments[0].ID == s.OutdatedID })
		if outdated < 0 || !*out.Threads[outdated].Outdated {
			t.Fatalf("the thread whose line a later push changed is not outdated: %+v", out.Threads)
		}
	})
	t.Run("filters", func(t *testing.T) {
		var byPath, open, alice listPullRequestReviewsOut
		h.structured("list_pull_request_reviews", pr("path", "docs/guide.md"), &byPath)
		h.structured("list_pull_request_reviews", pr("unresolved", true), &open)
		h.structured("list_pull_request_reviews", pr("reviewer", s.Alice.Login), &alice)
		if len(byPath.Threads) != 1 || byPath.Threads[0].Path != "docs/guide.md" || !byPath.Threads[0].Resolved {
			t.Errorf("path: %+v", byPath.Threads)
		}
		if len(open.Threads) != 2 || slices.ContainsFunc(open.Threads, func(th reviewThread) bool { return th.Resolved }) {
			t.Errorf("unresolved: %+v", open.Threads)
		}
		if len(alice.Reviews) != 2 || len(alice.Threads) != 1 || alice.Threads[0].Comments[1].Author != s.Alice.Login {
			t.Errorf("reviewer: %d reviews, threads %+v", len(alice.Reviews), alice.Threads)
		}
	})
	t.Run("paged at the smallest limit", func(t *testing.T) {
		small, _, _ := serveForgeWith(t, g.url, g.token, nil, 30*time.Second, time.Minute, forge.Limits{}, nil, withMaxBytes(MinMaxBytes))
		var whole listPullRequestReviewsOut
		h.structured("list_pull_request_reviews", pr(), &whole)
		var reviews []prReview
		var threads []reviewThread
		a, parts := pr(), 0
		for ; a != nil; parts++ {
			var out listPullRequestReviewsOut
			small.structured("list_pull_request_reviews", a, &out)
			reviews, threads = append(reviews, out.Reviews...), append(threads, out.Threads...)
			a = nil
			if out.Next != nil {
				a = out.Next.Arguments
			}
		}
		// A thread's part depends on the reply limit (a file's patch
		// takes more parts at a smaller one): each names the part that
		// shows its line at its server's limit.
		for i := range threads {
			th := &threads[i]
			if th.ShowIn != nil {
				if part := small.ok(th.ShowIn.Tool, th.ShowIn.Arguments); !strings.Contains(part, "diff --git a/"+th.Path) {
					t.Errorf("thread on %s line %d: its part does not show the file:\n%s", th.Path, th.Line, part)
				}
			}
			th.ShowIn, th.Part = nil, 0
		}
		for i := range whole.Threads {
			whole.Threads[i].ShowIn, whole.Threads[i].Part = nil, 0
		}
		if parts < 2 || compactJSON(reviews) != compactJSON(whole.Reviews) || compactJSON(threads) != compactJSON(whole.Threads) {
			t.Fatalf("%d parts drained differ from the whole listing", parts)
		}
	})
	t.Run("discussion", func(t *testing.T) {
		var got []prRemark
		a, parts, text := pr(), 0, ""
		for ; a != nil; parts++ {
			var out listPullRequestCommentsOut
			text += h.structured("list_pull_request_comments", a, &out)
			for _, c := range out.Comments {
				if n := len(got); n > 0 && got[n-1].ID == c.ID {
					got[n-1].Body += c.Body
					continue
				}
				got = append(got, c)
			}
			a = nil
			if out.Next != nil {
				a = out.Next.Arguments
			}
		}
		noToken(t, text)
		if len(got) != len(s.Discussion) || parts < 2 {
			t.Fatalf("%d comments in %d parts, the forge has %d", len(got), parts, len(s.Discussion))
		}
		for i, c := range got {
			want := s.Discussion[i]
			if c.ID != want.ID || c.Author != want.User || c.Body != want.Body || c.CreatedAt != want.CreatedAt {
				t.Errorf("comment %d: %d by %s, %d bytes; the forge's %d by %s, %d bytes", i, c.ID, c.Author, len(c.Body), want.ID, want.User, len(want.Body))
			}
		}
		if !strings.Contains(text, fmt.Sprintf("[hidden characters in comment %d", s.Discussion[s.BidiIndex].ID)) {
			t.Errorf("the bidi control is not noted:\n%s", text)
		}
		var since listPullRequestCommentsOut
		h.structured("list_pull_request_comments", pr("since", s.Since), &since)
		if since.Total != len(s.Discussion)-2 {
			t.Errorf("since %s: %d comments, want %d", s.Since, since.Total, len(s.Discussion)-2)
		}
		h.fails("list_pull_request_comments", pr("since", "yesterday"), "INVALID_ARGUMENT")
	})
	t.Run("checks", func(t *testing.T) {
		var out getCommitStatusOut
		noToken(t, h.structured("get_commit_status", pr(), &out))
		if out.SHA != s.Head || out.State != s.CombinedState || out.Total != len(s.Statuses) || out.Failing != 1 || len(out.Statuses) != len(s.Statuses) || out.Statuses[0].State != "failure" {
			t.Fatalf("%+v; the forge's %+v", out, s.Statuses)
		}
		for _, want := range s.Statuses {
			i := slices.IndexFunc(out.Statuses, func(st commitStatus) bool { return st.Context == want.Context })
			if i < 0 || out.Statuses[i].State != want.State || out.Statuses[i].Description != want.Description || out.Statuses[i].TargetURL != want.TargetURL {
				t.Errorf("%s: %+v", want.Context, out.Statuses)
			}
		}
		var byRef getCommitStatusOut
		h.structured("get_commit_status", args("owner", s.Owner, "repo", s.Repo, "ref", s.Head), &byRef)
		if byRef.SHA != s.Head || byRef.Failing != 1 {
			t.Errorf("by ref: %+v", byRef)
		}
	})
	t.Run("get_pull_request says how the review stands", func(t *testing.T) {
		var out getPullRequestOut
		text := h.structured("get_pull_request", pr(), &out)
		if out.Reviews == nil || out.Reviews.Approved != 1 || out.Reviews.ChangesRequested != 1 || out.Reviews.Unresolved != 2 ||
			out.Checks == nil || out.Checks.State != "failure" || out.Checks.Failing != 1 || out.Checks.Total != 2 ||
			!strings.Contains(text, "Reviews: 1 changes requested (by bob), 2 unresolved of 3 threads; 1 approved; 3 reviews. Unresolved threads: list_pull_request_reviews {") ||
			!strings.Contains(text, "Checks: failure, 1 failing of 2: get_commit_status") {
			t.Fatalf("reviews %+v, checks %+v:\n%s", out.Reviews, out.Checks, text)
		}
	})
}
