package server

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A GitLab clone keeps merge requests as refs/merge-requests/<n>/head: the
// pull request tools read them, based on the default branch.
func TestGitLabMergeRequestRefIsAPullRequest(t *testing.T) {
	r := newPRRepo(t)
	r.Git("update-ref", "refs/merge-requests/42/head", "feature")
	h := serve(t, r.Repo)
	rev := func(args ...string) string { return strings.TrimSpace(r.Git(args...)) }

	var out getPullRequestOut
	h.structured("get_pull_request", prArgs(42), &out)
	head, base := rev("rev-parse", "feature"), rev("rev-parse", "main")
	if out.Head != head || out.Base != base || out.MergeBase != rev("merge-base", base, head) || out.HeadRef != "refs/merge-requests/42/head" || out.BaseRef != "main" {
		t.Fatalf("merge request 42: %+v\nwant head %s, base %s (main)", out, head, base)
	}
	diff := h.ok("get_pull_request_diff", prArgs(42))
	if want := r.Git("diff", "-M", out.MergeBase, head, "--", "cmd/main.go"); !strings.Contains(diff, strings.SplitN(want, "\n", 3)[2]) {
		t.Fatalf("merge request 42's diff lacks git's diff of cmd/main.go:\n%s", diff)
	}
	// refs/pull/<n>/head comes first where both exist.
	r.Git("update-ref", "refs/merge-requests/7/head", "main")
	h.structured("get_pull_request", prArgs(7), &out)
	if out.HeadRef != "refs/pull/7/head" || out.Head != head {
		t.Fatalf("#7 with both refs: %+v", out)
	}
}

// A plain clone has no pull request refs: the error gives the exact
// command that fetches the pull request from the clone's remote, and,
// run, it makes the pull request readable.
func TestMissingPullRequestGivesTheFetchCommand(t *testing.T) {
	upstream := newPRRepo(t)
	clone := filepath.Join(t.TempDir(), "clone")
	upstream.Git("clone", "-q", upstream.Dir, clone)
	c := upstream.At(clone)
	h := serve(t, c)
	msg := h.fails("get_pull_request", prArgs(7), "NOT_FOUND")
	const want = "git fetch origin pull/7/head:refs/pull/7/head"
	if !strings.Contains(msg, want) || !strings.Contains(msg, "refs/merge-requests/7/head") {
		t.Fatalf("no fetch command in: %s", msg)
	}
	// The command as given, in the clone (origin is a path here).
	cmd := exec.Command("sh", "-c", want)
	cmd.Dir, cmd.Env = clone, testrepo.Env(t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", want, err, out)
	}
	var out getPullRequestOut
	h.structured("get_pull_request", prArgs(7), &out)
	if got := strings.TrimSpace(upstream.Git("rev-parse", "refs/pull/7/head")); out.Head != got {
		t.Fatalf("after the fetch: head %s, want %s", out.Head, got)
	}

	// A GitLab remote gets the merge-requests form.
	c.Git("remote", "set-url", "origin", "git@gitlab.example.org:acme/widgets.git")
	msg = h.fails("get_pull_request", prArgs(8), "NOT_FOUND")
	if !strings.Contains(msg, "git fetch origin merge-requests/8/head:refs/merge-requests/8/head") {
		t.Fatalf("GitLab remote: %s", msg)
	}
}

// list_repositories and the instructions say where a repository's pull
// requests are, or that a plain clone has none.
func TestServedRepositorySaysWherePullRequestsAre(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)
	if got := h.ok("list_repositories", nil); !strings.Contains(got, "pull requests: refs/pull/<n>/head)") {
		t.Fatalf("list_repositories:\n%s", got)
	}
	if inst := h.cs.InitializeResult().Instructions; !strings.HasSuffix(inst, "Served: acme/widgets; its pull requests are refs/pull/<n>/head.") {
		t.Fatalf("instructions end:\n%s", inst[max(0, len(inst)-300):])
	}
	plain := testrepo.New(t)
	plain.Write("a", "a\n")
	plain.Commit("a")
	h = serve(t, plain)
	if got := h.ok("list_repositories", nil); !strings.Contains(got, "pull requests: none)") {
		t.Fatalf("list_repositories of a plain clone:\n%s", got)
	}
	if inst := h.cs.InitializeResult().Instructions; !strings.Contains(inst, "no pull request refs") || !strings.Contains(inst, "git fetch") {
		t.Fatalf("instructions of a plain clone:\n%s", inst)
	}
}
