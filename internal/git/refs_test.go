package git

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func TestCommitID(t *testing.T) {
	r, c1, c2 := twoCommits(t)
	r.Git("tag", "light", c1)
	r.Git("tag", "-a", "-m", "annotated", "annotated", c1)
	r.Git("tag", "-a", "-m", "tag of a tag", "nested", "annotated")
	tree := strings.TrimSpace(r.Git("rev-parse", c2+"^{tree}"))
	blob := strings.TrimSpace(r.Git("rev-parse", c2+":a.txt"))
	r.Git("tag", "-a", "-m", "a tree", "treetag", tree)
	r.Git("tag", "blobtag", blob)
	r.Git("branch", "dev", c1)
	g := open(t, r)
	ctx := context.Background()
	if kind := strings.TrimSpace(r.Git("cat-file", "-t", "nested")); kind != "tag" {
		t.Fatalf("nested is a %s", kind)
	}

	for _, rev := range []string{
		"HEAD", "main", "refs/heads/main", "dev", "light", "annotated", "nested", "refs/tags/nested",
		c1, c2[:12], "HEAD~1", "main^", "annotated~0",
	} {
		want := strings.TrimSpace(r.Git("rev-parse", "--verify", "--end-of-options", rev+"^{commit}"))
		if got, err := g.CommitID(ctx, rev); err != nil || got != want {
			t.Errorf("CommitID(%q) = %s, %v; want %s", rev, got, err, want)
		}
	}
	for _, rev := range []string{
		tree, blob, "treetag", "blobtag", c2 + ":a.txt", "nope", "HEAD~5", "", "HEAD@{99}", "main@{upstream}",
	} {
		if got, err := g.CommitID(ctx, rev); !errors.Is(err, ErrMissing) {
			t.Errorf("CommitID(%q) = %s, %v; want ErrMissing", rev, got, err)
		}
	}
}

func TestLastCommitFor(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	r.Write("dir/b.txt", "b\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "one", "--date=2020-01-01T00:00:00+02:00")
	c1 := r.Head()
	r.Write("a.txt", "a2\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "two", "--date=2021-06-01T12:00:00-05:00")
	c2 := r.Head()
	r.Write("dir/b.txt", "b2\n")
	c3 := r.Commit("three")
	g := open(t, r)
	ctx := context.Background()

	for _, tc := range []struct{ commit, path, want string }{
		{c3, "a.txt", c2}, {c3, "dir/b.txt", c3}, {c3, "dir", c3}, {c3, "", c3},
		{c2, "dir/b.txt", c1}, {c2, "", c2}, {c1, "a.txt", c1},
	} {
		got, err := g.LastCommitFor(ctx, tc.commit, tc.path)
		args := []string{"log", "-1", "--format=%H %cI %aI", tc.commit, "--"}
		if tc.path != "" {
			args = append(args, tc.path)
		}
		f := strings.Fields(r.Git(args...))
		if err != nil || got.OID != tc.want || got.OID != f[0] || got.CommitterDate != f[1] || got.AuthorDate != f[2] {
			t.Errorf("LastCommitFor(%s, %q) = %+v, %v; git says %v", tc.commit[:7], tc.path, got, err, f)
		}
	}
	if got, _ := g.LastCommitFor(ctx, c2, "a.txt"); got.AuthorDate != "2021-06-01T12:00:00-05:00" {
		t.Errorf("author date %q", got.AuthorDate)
	}
	for _, commit := range []string{"-1", "--all", "--output=x", "nope"} {
		if got, err := g.LastCommitFor(ctx, commit, "a.txt"); err == nil {
			t.Errorf("LastCommitFor(%q) = %+v", commit, got)
		}
	}
	// A path no commit touched.
	if got, err := g.LastCommitFor(ctx, c3, "nope"); err == nil {
		t.Errorf("LastCommitFor(nope) = %+v", got)
	}
}

func TestDefaultBranchAndHasRef(t *testing.T) {
	r, c1, _ := twoCommits(t)
	r.Git("tag", "v1", c1)
	bare := r.CloneBare(t.TempDir() + "/bare.git")
	g, gb := open(t, r), open(t, bare)
	ctx := context.Background()

	if got := g.DefaultBranch(ctx); got != "main" {
		t.Errorf("DefaultBranch = %q", got)
	}
	if got := gb.DefaultBranch(ctx); got != "main" {
		t.Errorf("bare DefaultBranch = %q", got)
	}
	r.Git("branch", "dev", c1)
	r.Git("symbolic-ref", "HEAD", "refs/heads/dev")
	if got := g.DefaultBranch(ctx); got != "dev" {
		t.Errorf("DefaultBranch after symbolic-ref = %q", got)
	}
	r.Git("update-ref", "--no-deref", "HEAD", c1)
	if got := g.DefaultBranch(ctx); got != "" {
		t.Errorf("DefaultBranch with a detached HEAD = %q", got)
	}

	for ref, want := range map[string]bool{
		"refs/heads/main": true, "refs/heads/dev": true, "refs/tags/v1": true,
		"main": false, "refs/heads/nope": false, "--help": false, "-q": false, "": false,
	} {
		if got := g.HasRef(ctx, ref); got != want {
			t.Errorf("HasRef(%q) = %v", ref, got)
		}
	}
	if !gb.HasRef(ctx, "refs/tags/v1") || gb.HasRef(ctx, "refs/heads/dev") {
		t.Error("HasRef in the bare clone")
	}
}

func TestConfigValue(t *testing.T) {
	r := testrepo.New(t)
	r.Git("config", "remote.origin.url", "git@example.com:acme/widgets.git")
	r.Git("config", "--add", "multi.key", "first")
	r.Git("config", "--add", "multi.key", "last")
	r.Git("config", "section.spaced", "  inner value  ")
	g := open(t, r)
	ctx := context.Background()
	for key, want := range map[string]string{
		"remote.origin.url": "git@example.com:acme/widgets.git",
		"REMOTE.origin.URL": "git@example.com:acme/widgets.git",
		"multi.key":         "last",
		"section.spaced":    "inner value",
		"remote.nope.url":   "",
		"core.bare":         "false",
		"core.fsmonitor":    "false", // the runner's own -c wins
		"nosection":         "",
		"-l":                "",
		"--list":            "",
		"--get-regexp":      "",
	} {
		if got := g.ConfigValue(ctx, key); got != want {
			t.Errorf("ConfigValue(%q) = %q, want %q", key, got, want)
		}
	}
	// git 2.39's config takes --end-of-options: an option-looking key is a
	// key (here an invalid one), not an option.
	out, err := r.TryGit("config", "--get", "--end-of-options", "-l")
	if err == nil || !strings.Contains(out, "key does not contain a section: -l") {
		t.Fatalf("git config --get --end-of-options -l = %q, %v", out, err)
	}
}
