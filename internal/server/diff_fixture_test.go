package server

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// prRepo is a repository with pull requests:
//   - #7 (refs/pull/7/head, branch feature): modifies cmd/main.go, renames
//     old.go to new.go with an edit, changes the binary img.png, adds
//     "x b/y.txt" and evil.txt (whose lines look like diff headers), deletes
//     a.txt, edits docs/naïve.md; main has moved on since it branched.
//   - #8: a GitHub-style pull request with refs/pull/8/merge, whose first
//     parent (an older main) is its base.
//   - #9: touches the secret .env.
type prRepo struct {
	*testrepo.Repo
	mergeBase, feature string
}

func newPRRepo(t *testing.T) *prRepo {
	r := testrepo.New(t)
	r.Write("cmd/main.go", "package main\n\nfunc main() {\n\tprintln(\"one\")\n}\n")
	r.Write("old.go", "package old\n\n// Old does old things.\nfunc Old() int {\n\treturn 1\n}\n\nfunc Keep() {}\n")
	r.Write("img.png", "\x89PNG\x00\x01\x02 first")
	r.Write("a.txt", "to be deleted\n")
	r.Write("docs/naïve.md", "# naïve\n\nline\n")
	r.Write("*.go", "a file literally named *.go\n")
	r.Write(".env", "TOKEN=old\n")
	r.Write("hundred.txt", numberedLines(100))
	mb := r.Commit("base")

	r.Git("checkout", "-q", "-b", "feature")
	r.Write("cmd/main.go", "package main\n\nfunc main() {\n\tprintln(\"two\")\n}\n")
	r.Git("mv", "old.go", "new.go")
	r.Write("new.go", "package old\n\n// Old does old things.\nfunc Old() int {\n\treturn 2\n}\n\nfunc Keep() {}\n")
	r.Write("img.png", "\x89PNG\x00\x01\x02 second")
	r.Write("x b/y.txt", "a name with \" b/\" in it\n")
	r.Write("evil.txt", "diff --git a/evil b/evil\n--- a/evil\n+++ b/evil\n@@ -1 +1 @@\n")
	r.Git("rm", "-q", "a.txt")
	r.Write("docs/naïve.md", "# naïve\n\nline changed\n")
	feature := r.Commit("feature")
	r.Git("update-ref", "refs/pull/7/head", feature)

	r.Git("checkout", "-q", "main")
	r.Write("unrelated.txt", "main moved on\n")
	r.Commit("main moves on")

	// #8: head adds b8.txt; merge ref = merge of an older main (mb) and head.
	r.Git("checkout", "-q", "-b", "pr8", mb)
	r.Write("b8.txt", "pr eight\n")
	head8 := r.Commit("pr8")
	r.Git("update-ref", "refs/pull/8/head", head8)
	r.Git("checkout", "-q", "--detach", mb)
	r.Git("merge", "-q", "--no-ff", "-m", "merge pr8", head8)
	r.Git("update-ref", "refs/pull/8/merge", r.Head())

	// #9 touches .env.
	r.Git("checkout", "-q", "-b", "pr9", mb)
	r.Write(".env", "TOKEN=new\n")
	r.Write("ok.txt", "fine\n")
	r.Git("update-ref", "refs/pull/9/head", r.Commit("pr9"))
	r.Git("checkout", "-q", "main")
	return &prRepo{Repo: r, mergeBase: mb, feature: feature}
}

// gitDiff is the oracle: plain git's diff, as a user would run it.
func (r *prRepo) gitDiff(args ...string) string {
	return r.Git(append([]string{"diff", "-M"}, args...)...)
}

// prArgs are get_pull_request_diff's arguments.
func prArgs(index int, kv ...any) map[string]any {
	m := map[string]any{"owner": "acme", "repo": "widgets", "index": index}
	for k, v := range args(kv...) { // kv may override them (a bad index)
		m[k] = v
	}
	return m
}

// sections splits a diff into its "diff --git" sections, naively (the
// fixture has no content line starting with "diff --git" at column 0 except
// evil.txt's, which is "+diff --git" in a patch).
func sections(d string) []string {
	var out []string
	for _, part := range strings.SplitAfter(d, "\n") {
		if strings.HasPrefix(part, "diff --git ") || len(out) == 0 {
			out = append(out, part)
			continue
		}
		out[len(out)-1] += part
	}
	return out
}

// sectionPaths reads the old and new path of a section the simple way
// sections are split: from "--- a/X" / "+++ b/Y" or "rename from/to" lines,
// else the "diff --git a/X b/X" line of a name without " b/".
func sectionPaths(sec string) [2]string {
	var old, new string
header:
	for _, line := range strings.Split(sec, "\n") {
		line = strings.TrimSuffix(line, "\t")
		switch {
		case strings.HasPrefix(line, "rename from "):
			old = strings.TrimPrefix(line, "rename from ")
		case strings.HasPrefix(line, "rename to "):
			new = strings.TrimPrefix(line, "rename to ")
		case strings.HasPrefix(line, "--- a/") && old == "":
			old = strings.TrimPrefix(line, "--- a/")
		case strings.HasPrefix(line, "+++ b/") && new == "":
			new = strings.TrimPrefix(line, "+++ b/")
		case strings.HasPrefix(line, "@@"):
			break header
		}
	}
	if old == "" && new == "" {
		first := strings.SplitN(sec, "\n", 2)[0]
		if a, b, ok := strings.Cut(strings.TrimPrefix(first, "diff --git a/"), " b/"); ok {
			old, new = a, b
		}
	}
	if old == "" {
		old = new
	}
	if new == "" {
		new = old
	}
	return [2]string{old, new}
}
