package server

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A pull request whose head is already merged into its base has an empty
// diff: the diff says so and names list_commits index=N, which lists the
// commits its merge commit brought in (the head's, not reachable from the
// merge's first parent) and says from where. A head fast-forwarded onto
// the base's first-parent line cannot be told from the base's commits:
// list_commits says so.
func TestListCommitsOfAMergedPullRequest(t *testing.T) {
	r := testrepo.New(t)
	rev := func(args ...string) string { return strings.TrimSpace(r.Git(args...)) }
	r.Write("a.txt", "base\n")
	r.Commit("base")
	// #1: two commits, merged with a merge commit, after which main moves on.
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("f.txt", "one\n")
	r.Commit("feature one")
	r.Write("f.txt", "two\n")
	head1 := r.Commit("feature two")
	r.Git("checkout", "-q", "main")
	r.Write("m.txt", "main\n")
	r.Commit("main moves")
	r.Git("merge", "-q", "--no-ff", "-m", "Merge feature", "feature")
	merge := r.Head()
	r.Write("m.txt", "main again\n")
	r.Commit("main moves again")
	r.Git("update-ref", "refs/pull/1/head", head1)
	// #2: one commit, fast-forwarded onto main.
	r.Git("checkout", "-q", "-b", "ff")
	r.Write("g.txt", "ff\n")
	head2 := r.Commit("fast-forwarded")
	r.Git("checkout", "-q", "main")
	r.Git("merge", "-q", "--ff-only", "ff")
	r.Write("m.txt", "after the fast-forward\n")
	r.Commit("main after ff")
	r.Git("update-ref", "refs/pull/2/head", head2)
	h := serve(t, r)

	// The empty diff points to list_commits.
	if text := h.ok("get_pull_request_diff", prArgs(1)); !strings.Contains(text, "is empty: its head "+git.Short(head1)+" is already part of its base") || !strings.Contains(text, "list_commits with index=1 lists the commits its merge brought in") {
		t.Fatalf("the empty diff of #1 does not name list_commits index=1:\n%s", text)
	}
	var pull getPullRequestOut
	if text := h.structured("get_pull_request", prArgs(1), &pull); *pull.CommitCount != 0 || !strings.Contains(text, "list_commits with index=1") {
		t.Fatalf("get_pull_request of #1:\n%s", text)
	}

	// The merged pull request's own commits, from the merge's first parent.
	var out listCommitsOut
	text := h.structured("list_commits", args("index", 1, "order", "oldest"), &out)
	want := strings.Fields(rev("rev-list", "--reverse", head1, "^"+merge+"^1"))
	var got []string
	for _, c := range out.Commits {
		got = append(got, c.SHA)
	}
	if !slices.Equal(got, want) || len(want) != 2 || out.TotalCommits != 2 {
		t.Fatalf("list_commits index=1: %v (%d in all); git rev-list %s ^%s^1 gives %v\n%s", got, out.TotalCommits, git.Short(head1), git.Short(merge), want, text)
	}
	if out.MergedBy == nil || *out.MergedBy != merge || out.Since == nil || *out.Since != rev("rev-parse", merge+"^1") {
		t.Fatalf("mergedBy %v, since %v; want %s and its first parent", out.MergedBy, out.Since, merge)
	}
	if !strings.Contains(text, "already merged into its base "+git.Short(rev("rev-parse", "main"))+" by merge commit "+git.Short(merge)) || !strings.Contains(text, "that merge's first parent") {
		t.Fatalf("the header does not say where the commits come from:\n%s", text)
	}
	// Paged, the next page lists from the same place.
	res := h.call("list_commits", args("index", 1, "order", "oldest", "limit", 1))
	n := nextOf(t, res)
	if n == nil {
		t.Fatal("no next page")
	}
	var second listCommitsOut
	h.structured("list_commits", n.Arguments, &second)
	if len(second.Commits) != 1 || second.Commits[0].SHA != want[1] || second.MergedBy == nil {
		t.Fatalf("the second page: %+v", second)
	}

	// The fast-forwarded one: no commits, and why.
	out = listCommitsOut{}
	text = h.structured("list_commits", args("index", 2), &out)
	if out.TotalCommits != 0 || out.MergedBy != nil || !strings.Contains(text, "Its head "+git.Short(head2)+" is already on its base") || !strings.Contains(text, "cannot be told from the base's") || !strings.Contains(text, "list_commits ref="+head2) {
		t.Fatalf("list_commits index=2 (fast-forwarded):\n%s", text)
	}
	// A pull request not merged is listed as before.
	r.Git("update-ref", "refs/pull/3/head", head1+"^")
	r.Git("checkout", "-q", "-b", "open", "main~3")
	r.Write("o.txt", "open\n")
	r.Git("update-ref", "refs/pull/3/head", r.Commit("open"))
	r.Git("checkout", "-q", "main")
	out = listCommitsOut{}
	text = h.structured("list_commits", args("index", 3), &out)
	if out.TotalCommits != 1 || out.MergedBy != nil || strings.Contains(text, "merged") {
		t.Fatalf("list_commits index=3 (open):\n%s", text)
	}
}
