package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// list_commits with one path: where a rename stops its history, and
// follow=true to go on through it (issue 23, item 5), with git log
// --follow as the oracle. histRepo renames dir/b.txt to dir/c.txt.

// TestListCommitsFollowIsGitLogFollow: follow=true lists what git log
// --follow lists, newest and oldest first, in pages of every size and at
// the smallest reply limit, with each commit's files counted as git counts
// them; the header says the older names are followed.
func TestListCommitsFollowIsGitLogFollow(t *testing.T) {
	r, ids := histRepo(t)
	newest := histGitLog(r, "--follow", "HEAD", "--", "dir/c.txt")
	plain := histGitLog(r, "HEAD", "--", "dir/c.txt")
	if len(newest) <= len(plain) || newest[len(newest)-1] != ids["root"] {
		t.Fatalf("the fixture: git log --follow lists %d commits, without %d", len(newest), len(plain))
	}
	oldest := slices.Clone(newest)
	slices.Reverse(oldest)
	for sname, h := range map[string]*harness{"default limit": serve(t, r), "small replies": serve(t, r, withMaxBytes(MinMaxBytes))} {
		for _, order := range []string{"newest", "oldest"} {
			for _, limit := range []int{0, 1, 2} {
				t.Run(fmt.Sprintf("%s/%s/limit %d", sname, order, limit), func(t *testing.T) {
					a := args("paths", []string{"dir/c.txt"}, "follow", true, "order", order)
					if limit > 0 {
						a["limit"] = limit
					}
					got, first := histListAll(t, h, a)
					want := newest
					if order == "oldest" {
						want = oldest
					}
					if !slices.Equal(histSHAs(got), want) || first.TotalCommits != len(want) {
						t.Fatalf("listed %v (total %d), git log --follow %v", histSHAs(got), first.TotalCommits, want)
					}
					for _, c := range got {
						if n := histFileCount(r, c.SHA); c.FilesChanged != n {
							t.Errorf("%s: %d files changed, git diff says %d", c.Subject, c.FilesChanged, n)
						}
						if !strings.Contains(c.page, "touching dir/c.txt and its older names") || strings.Contains(c.page, "stops at") {
							t.Errorf("the header does not say renames are followed, or says the history stops:\n%s", c.page)
						}
					}
					if first.RenameStop != nil {
						t.Errorf("renameStop %+v with follow", first.RenameStop)
					}
				})
			}
		}
	}
}

// TestListCommitsSaysWhereARenameStopsHistory: with one path and no
// follow, every page says at which commit and from which name a rename
// stops the history (text and structured, as git log --follow finds the
// rename), and nothing when the path was never renamed or several paths
// are asked for. follow with other than one path is refused.
func TestListCommitsSaysWhereARenameStopsHistory(t *testing.T) {
	r, ids := histRepo(t)
	h := serve(t, r)
	sha, old := r.RenameStop("dir/c.txt")
	if sha != ids["rename"] || old != "dir/b.txt" {
		t.Fatalf("the fixture: git log --follow finds the rename at %s from %q", sha, old)
	}
	line := fmt.Sprintf("\nThe history of dir/c.txt stops at %s, where it was renamed from dir/b.txt; follow: true goes on.\n", git.Short(sha))
	for _, order := range []string{"newest", "oldest"} {
		got, first := histListAll(t, h, args("paths", []string{"dir/c.txt"}, "order", order, "limit", 1))
		if want := histGitLog(r, "HEAD", "--", "dir/c.txt"); len(got) != len(want) {
			t.Fatalf("listed %v, git log %v", histSHAs(got), want)
		}
		if first.RenameStop == nil || *first.RenameStop != (histRenameStop{SHA: sha, OldPath: "dir/b.txt"}) {
			t.Errorf("%s: renameStop %+v, want %s from dir/b.txt", order, first.RenameStop, sha)
		}
		for _, c := range got {
			if !strings.Contains(c.page, line) {
				t.Errorf("%s: a page does not say where the history stops:\n%s", order, c.page)
			}
		}
	}
	// The default text reply says it too.
	text := serve(t, r, withTextOnly()).ok("list_commits", args("paths", []string{"dir/c.txt"}))
	if !strings.Contains(text, line) {
		t.Errorf("text reply:\n%s", text)
	}
	// No rename, no word of one.
	for _, a := range []map[string]any{
		args("paths", []string{"a.txt"}),
		args("paths", []string{"dir/c.txt", "a.txt"}),
		args("paths", []string{"dir"}),
		args("base", ids["rename"], "head", "main", "paths", []string{"dir/c.txt"}),
	} {
		if s, _ := r.RenameStop("a.txt"); s != "" {
			t.Fatalf("the fixture: a.txt was renamed at %s", s)
		}
		var out listCommitsOut
		text := h.structured("list_commits", a, &out)
		if out.RenameStop != nil || strings.Contains(text, "stops at") {
			t.Errorf("%v: renameStop %+v, text:\n%s", a, out.RenameStop, text)
		}
	}
	for _, paths := range [][]string{nil, {"a.txt", "dir/c.txt"}} {
		msg := h.fails("list_commits", args("paths", paths, "follow", true), "INVALID_ARGUMENT")
		if !strings.Contains(msg, fmt.Sprintf("give exactly one path in paths (%d given)", len(paths))) {
			t.Errorf("follow with %d paths: %s", len(paths), msg)
		}
	}
}
