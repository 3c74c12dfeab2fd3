package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Golden replies: what an agent reads from each tool, byte for byte.
//
// TestGoldenReplies makes representative calls of every tool on a
// deterministic repository (goldenRepo: fixed names, contents and dates, so
// fixed commit ids) and compares each reply with
// testdata/golden/<tool>/<case>.txt: the arguments, whether it is an error,
// the text exactly as sent, and the structured content exactly as sent
// (field order and escaping of the wire), indented. Any change to a header,
// a continuation line ("More: call … again with …") or an error's wording
// shows as a diff of those files.
//
// Regenerate after an intended change, then review the diff:
//
//	go test ./internal/server -run Golden -update-golden
//	UPDATE_GOLDEN=true go test ./internal/server -run Golden
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden from the replies of today's tools")

func goldenUpdating() bool {
	return *updateGolden || os.Getenv("UPDATE_GOLDEN") == "true" || os.Getenv("UPDATE_GOLDEN") == "1"
}

const goldenDir = "testdata/golden"

// goldenSmallMaxBytes is the reply limit of the servers that show partial
// replies and TOO_LARGE: the smallest the command line accepts.
const goldenSmallMaxBytes = MinMaxBytes

// goldenRepo builds the repository the golden replies read. Everything in it
// is fixed (testrepo fixes names and dates), so commit ids are too. On main:
//
//   - base commit: cmd/main.go, old.go, img.png (binary), a.txt, docs/naïve.md,
//     .env (a secret), hundred.txt (100 lines), big.txt (600 lines, larger
//     than the small reply limit), empty.txt, src/util.go.
//   - feature (refs/pull/7/head) branches from base: modifies cmd/main.go,
//     renames old.go to new.go with an edit, changes img.png, adds
//     src/util_test.go, deletes a.txt, edits docs/naïve.md.
//   - main then moves on (unrelated.txt), so merge-base and direct differ.
//   - pr9 (refs/pull/9/head) touches .env and adds ok.txt.
//   - pr10 (refs/pull/10/head) rewrites every line of big.txt.
//   - refs/pull/11/head is the base commit itself: an empty pull request.
//   - pr12 (refs/pull/12/head) adds 60 files with long names.
//   - pr13 (refs/pull/13/head) changes only the whitespace of
//     src/util.go, and cmd/main.go's whitespace and one line.
//   - pr14 (refs/pull/14/head) has 40 commits, each changing counter.txt.
func goldenRepo(t *testing.T) *testrepo.Repo {
	r := testrepo.New(t)
	r.Write("cmd/main.go", "package main\n\nfunc main() {\n\tprintln(\"one\")\n}\n")
	r.Write("old.go", "package old\n\n// Old does old things.\nfunc Old() int {\n\treturn 1\n}\n\nfunc Keep() {}\n")
	r.Write("img.png", "\x89PNG\x00\x01\x02 first")
	r.Write("a.txt", "to be deleted\n")
	r.Write("docs/naïve.md", "# naïve\n\nline\n")
	r.Write(".env", "TOKEN=old\n")
	r.Write("hundred.txt", numberedLines(100))
	r.Write("big.txt", goldenBig("big line"))
	r.Write("empty.txt", "")
	r.Write("src/util.go", "package src\n\n// Util helps.\nfunc Util() string { return \"util\" }\n\n// Other helps too.\nfunc Other() string { return \"other\" }\n")
	base := r.Commit("base")

	r.Git("checkout", "-q", "-b", "feature")
	r.Write("cmd/main.go", "package main\n\nfunc main() {\n\tprintln(\"two\")\n}\n")
	r.Git("mv", "old.go", "new.go")
	r.Write("new.go", "package old\n\n// Old does old things.\nfunc Old() int {\n\treturn 2\n}\n\nfunc Keep() {}\n")
	r.Write("img.png", "\x89PNG\x00\x01\x02 second")
	r.Write("src/util_test.go", "package src\n\nimport \"testing\"\n\nfunc TestUtil(t *testing.T) {\n\tif Util() != \"util\" {\n\t\tt.Fatal(\"no\")\n\t}\n}\n")
	r.Git("rm", "-q", "a.txt")
	r.Write("docs/naïve.md", "# naïve\n\nline changed\n")
	r.Git("update-ref", "refs/pull/7/head", r.Commit("feature"))

	r.Git("checkout", "-q", "main")
	r.Write("unrelated.txt", "main moved on\n")
	r.Commit("main moves on")

	r.Git("checkout", "-q", "-b", "pr9", base)
	r.Write(".env", "TOKEN=new\n")
	r.Write("ok.txt", "fine\n")
	r.Git("update-ref", "refs/pull/9/head", r.Commit("pr9"))

	r.Git("checkout", "-q", "-b", "pr10", base)
	r.Write("big.txt", goldenBig("BIG LINE"))
	r.Git("update-ref", "refs/pull/10/head", r.Commit("pr10"))

	r.Git("update-ref", "refs/pull/11/head", base)

	r.Git("checkout", "-q", "-b", "pr12", base)
	for i := 1; i <= 60; i++ {
		r.Write(fmt.Sprintf("many/a-file-with-a-rather-long-name-to-fill-a-page-%02d.txt", i), fmt.Sprintf("file %d\n", i))
	}
	r.Git("update-ref", "refs/pull/12/head", r.Commit("pr12"))

	r.Git("checkout", "-q", "-b", "pr13", base)
	r.Write("src/util.go", "package src\n\n// Util  helps.\nfunc Util() string {  return \"util\" }\n\n// Other helps too.\nfunc Other() string { return \"other\" }\n")
	r.Write("cmd/main.go", "package main\n\nfunc main() {\n    println(\"one\")\n\tprintln(\"more\")\n}\n")
	r.Git("update-ref", "refs/pull/13/head", r.Commit("pr13"))

	// #14: 40 commits, the first two with bodies: more than a small reply holds.
	r.Git("checkout", "-q", "-b", "pr14", base)
	for i := 1; i <= 40; i++ {
		r.Write("counter.txt", fmt.Sprintf("%d\n", i))
		msg := fmt.Sprintf("Count to %d", i)
		if i <= 2 {
			msg += "\n\nWhy: the counter must reach forty, one commit at a time."
		}
		r.Commit(msg)
	}
	r.Git("update-ref", "refs/pull/14/head", "HEAD")

	r.Git("checkout", "-q", "main")
	return r
}

// goldenBig is big.txt: 600 numbered lines, 8 kB.
func goldenBig(prefix string) string {
	var b strings.Builder
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&b, "%s %04d\n", prefix, i)
	}
	return b.String()
}

// goldenCase is one call and the file its reply is kept in.
type goldenCase struct {
	name string // file name in testdata/golden/<tool>/, without .txt
	tool string
	args map[string]any
	on   string // the server: "" (default limit), "small", "root" or "forge" (golden_forge_test.go)
}

func goldenCases() []goldenCase {
	cs := goldenForgeCases()
	add := func(tool, on, name string, a map[string]any) {
		cs = append(cs, goldenCase{name: name, tool: tool, args: a, on: on})
	}
	repoArgs := func(kv ...any) map[string]any {
		m := args(kv...)
		m["owner"], m["repo"] = "acme", "widgets"
		return m
	}

	// get_file_content
	gfc := func(on, name string, a map[string]any) { add("get_file_content", on, name, a) }
	gfc("", "whole-file", fileArgs("cmd/main.go", "ref", "main"))
	gfc("", "default-ref", fileArgs("src/util.go"))
	gfc("", "line-range", fileArgs("hundred.txt", "ref", "main", "start_line", 5, "end_line", 10))
	gfc("", "end-line-clamped", fileArgs("hundred.txt", "start_line", 98, "end_line", 999))
	gfc("", "at-a-commit-on-another-branch", fileArgs("new.go", "ref", "feature"))
	gfc("", "empty-file", fileArgs("empty.txt"))
	gfc("", "with-metadata", fileArgs("cmd/main.go", "ref", "main", "with_metadata", true))
	gfc("", "with-metadata-directory", fileArgs("src", "ref", "main", "with_metadata", true))
	gfc("", "error-not-found", fileArgs("nope.go", "ref", "main"))
	gfc("", "error-binary", fileArgs("img.png"))
	gfc("", "error-directory", fileArgs("docs"))
	gfc("", "error-secret", fileArgs(".env"))
	gfc("", "error-secret-with-metadata", fileArgs(".env", "with_metadata", true))
	gfc("", "error-traversal", fileArgs("../outside"))
	gfc("", "error-unknown-ref", fileArgs("README.md", "ref", "no-such-branch"))
	gfc("", "error-ref-option", fileArgs("README.md", "ref", "--output=x"))
	gfc("", "error-inverted", fileArgs("hundred.txt", "start_line", 20, "end_line", 10))
	gfc("", "error-past-the-end", fileArgs("hundred.txt", "start_line", 150))
	gfc("", "error-range-on-empty-file", fileArgs("empty.txt", "start_line", 1))
	gfc("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "filePath", "cmd/main.go"))
	gfc("", "error-owner-missing", args("repo", "widgets", "filePath", "cmd/main.go"))
	gfc("", "error-unknown-parameter", fileArgs("cmd/main.go", "lines", "1-5"))
	gfc("", "error-alias-given-twice", fileArgs("cmd/main.go", "path", "x"))
	gfc("", "aliases", args("owner", "acme", "repo", "widgets", "file_path", "cmd/main.go", "startLine", 2, "endLine", 3))
	gfc("", "no-names-one-repository", args("filePath", "cmd/main.go", "end_line", 2))
	gfc("", "error-string-line", fileArgs("cmd/main.go", "start_line", "five"))
	gfc("small", "too-large-file", fileArgs("big.txt"))
	gfc("small", "too-large-range", fileArgs("big.txt", "start_line", 100, "end_line", 600))
	gfc("small", "too-large-with-metadata", fileArgs("big.txt", "with_metadata", true))

	// read_file
	rf := func(on, name string, a map[string]any) { add("read_file", on, name, a) }
	rf("", "work-tree", args("path", "cmd/main.go"))
	rf("", "at-ref-with-range", repoArgs("path", "hundred.txt", "ref", "main", "startLine", 5, "endLine", 10))
	rf("", "at-another-branch", args("path", "new.go", "ref", "feature"))
	rf("", "binary", args("path", "img.png"))
	rf("", "empty", args("path", "empty.txt"))
	rf("small", "partial-continues", args("path", "big.txt"))
	rf("small", "partial-continued", args("path", "big.txt", "startLine", 100))
	rf("small", "partial-with-end-line", args("path", "big.txt", "ref", "main", "startLine", 500, "endLine", 600))
	rf("small", "last-page", args("path", "big.txt", "startLine", 590))
	rf("", "error-not-found", args("path", "nope.go"))
	rf("", "error-not-found-at-ref", args("path", "nope.go", "ref", "main"))
	rf("", "error-secret", args("path", ".env"))
	rf("", "error-secret-at-ref", args("path", ".env", "ref", "main"))
	rf("", "error-traversal", args("path", "../outside"))
	rf("", "error-absolute", args("path", "/etc/passwd"))
	rf("", "error-directory", args("path", "docs", "ref", "main"))
	rf("", "error-end-before-start", args("path", "hundred.txt", "startLine", 10, "endLine", 5))
	rf("", "error-past-the-end", args("path", "hundred.txt", "startLine", 101))
	rf("", "error-start-line-zero", args("path", "hundred.txt", "startLine", 0))
	rf("", "error-unknown-ref", args("path", "hundred.txt", "ref", "no-such-branch"))
	rf("", "error-path-missing", args())
	rf("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "path", "hundred.txt"))

	// get_diff
	gd := func(on, name string, a map[string]any) { add("get_diff", on, name, a) }
	gd("", "merge-base", args("base", "main", "head", "feature"))
	gd("", "direct", args("base", "main", "head", "feature", "mode", "direct"))
	gd("", "rename-both-paths", args("base", "main", "head", "feature", "paths", []string{"old.go", "new.go"}))
	gd("", "rename-one-path", args("base", "main", "head", "feature", "paths", []string{"new.go"}))
	gd("", "binary", args("base", "main", "head", "feature", "paths", []string{"img.png"}))
	gd("", "context-lines-zero", args("base", "main", "head", "feature", "paths", []string{"src/util_test.go"}, "contextLines", 0))
	gd("", "hidden-file", args("base", "main", "head", "pr9"))
	gd("", "hidden-file-only", args("base", "main", "head", "pr9", "paths", []string{".env"}))
	gd("", "empty", args("base", "main", "head", "main"))
	gd("", "partial-max-bytes", args("base", "main", "head", "feature", "maxBytes", 400))
	gd("small", "partial-files-not-listed", args("base", "main", "head", "feature"))
	gd("small", "partial-big-patch", args("base", "main", "head", "pr10"))
	gd("", "ignore-whitespace", args("base", "main", "head", "pr13", "ignoreWhitespace", true))
	gd("", "paths-match-no-changed-file", args("base", "main", "head", "feature", "paths", []string{"*.go", "src/util.go"}))
	gd("", "error-base-missing", args("head", "feature"))
	gd("", "error-unknown-ref", args("base", "no-such-branch"))
	gd("", "error-ref-option", args("base", "--output=x"))
	gd("", "error-mode", args("base", "main", "mode", "sideways"))
	gd("", "error-path-traversal", args("base", "main", "paths", []string{"../x"}))
	gd("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "base", "main"))

	// list_changed_files
	lc := func(on, name string, a map[string]any) { add("list_changed_files", on, name, a) }
	lc("", "merge-base", args("base", "main", "head", "feature"))
	lc("", "direct", args("base", "main", "head", "feature", "mode", "direct"))
	lc("", "paths", args("base", "main", "head", "feature", "paths", []string{"old.go", "new.go"}))
	lc("", "hidden-file", args("base", "main", "head", "pr9"))
	lc("", "empty", args("base", "main", "head", "main"))
	lc("", "page-first", args("base", "main", "head", "feature", "limit", 2))
	lc("", "page-middle", args("base", "main", "head", "feature", "offset", 2, "limit", 2))
	lc("", "page-last", args("base", "main", "head", "feature", "offset", 4, "limit", 2))
	lc("", "page-past-the-end", args("base", "main", "head", "feature", "offset", 50))
	lc("small", "partial-cut-by-size", args("base", "main", "head", "pr12"))
	lc("", "paths-match-no-changed-file", args("base", "main", "head", "feature", "paths", []string{"*.go"}))
	lc("", "error-base-missing", args())
	lc("", "error-unknown-ref", args("base", "main", "head", "no-such-branch"))
	lc("", "error-limit-zero", args("base", "main", "limit", 0))
	lc("", "error-limit-over-max", args("base", "main", "limit", 5001))
	lc("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "base", "main"))

	// get_pull_request_diff
	prd := func(on, name string, a map[string]any) { add("get_pull_request_diff", on, name, a) }
	prd("", "whole", prArgs(7))
	prd("", "file-modified", prArgs(7, "file_path", "cmd/main.go"))
	prd("", "file-renamed-new-side", prArgs(7, "file_path", "new.go"))
	prd("", "file-renamed-old-side", prArgs(7, "file_path", "old.go"))
	prd("", "file-binary", prArgs(7, "file_path", "img.png"))
	prd("", "file-deleted", prArgs(7, "file_path", "a.txt"))
	prd("", "file-next-to-hidden", prArgs(9, "file_path", "ok.txt"))
	prd("", "empty", prArgs(11))
	prd("", "paths-directory", prArgs(7, "paths", []string{"docs", "src"}))
	prd("", "paths-rename-one-side", prArgs(7, "paths", []string{"old.go"}))
	prd("", "paths-match-no-changed-file", prArgs(7, "paths", []string{"*.go"}))
	prd("", "context-lines-zero", prArgs(7, "file_path", "cmd/main.go", "contextLines", 0))
	prd("", "ignore-whitespace", prArgs(13, "ignoreWhitespace", true))
	prd("", "ignore-whitespace-file", prArgs(13, "file_path", "src/util.go", "ignoreWhitespace", true))
	prd("small", "partial-paths-context-lines", prArgs(10, "paths", []string{"big.txt"}, "contextLines", 1))
	prd("", "error-file-path-directory", prArgs(7, "file_path", "src"))
	prd("", "error-file-path-and-paths", prArgs(7, "file_path", "new.go", "paths", []string{"src"}))
	prd("", "error-hidden-whole", prArgs(9))
	prd("", "error-hidden-file", prArgs(9, "file_path", ".env"))
	prd("", "error-file-not-in-diff", prArgs(7, "file_path", "nope.txt"))
	prd("", "error-file-in-empty-diff", prArgs(11, "file_path", "nope.txt"))
	prd("", "error-no-such-pull-request", prArgs(99))
	prd("", "error-index-zero", prArgs(0))
	prd("", "error-file-path-root", prArgs(7, "file_path", "."))
	prd("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "index", 7))
	prd("small", "too-large-whole", prArgs(10))
	prd("small", "too-large-file", prArgs(10, "file_path", "big.txt"))

	// get_pull_request
	gpr := func(on, name string, a map[string]any) { add("get_pull_request", on, name, a) }
	gpr("", "local", prArgs(7))
	gpr("", "hidden-file", prArgs(9))
	gpr("", "empty", prArgs(11))
	gpr("small", "many-files", prArgs(12))
	gpr("small", "many-commits", prArgs(14))
	gpr("", "error-no-such-pull-request", prArgs(99))
	gpr("", "error-index-zero", prArgs(0))
	gpr("", "error-index-word", args("owner", "acme", "repo", "widgets", "index", "seven"))
	gpr("", "error-bad-cursor", prArgs(7, "cursor", "abc.def"))
	gpr("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "index", 7))

	// list_pull_request_files
	lpf := func(on, name string, a map[string]any) { add("list_pull_request_files", on, name, a) }
	lpf("", "all", prArgs(7))
	lpf("", "page-first", prArgs(7, "limit", 2))
	lpf("", "page-second", prArgs(7, "page", 2, "limit", 2))
	lpf("", "page-last", prArgs(7, "page", 3, "limit", 2))
	lpf("", "page-past-the-end", prArgs(7, "page", 9, "limit", 2))
	lpf("", "hidden-file", prArgs(9))
	lpf("", "empty", prArgs(11))
	lpf("", "error-no-such-pull-request", prArgs(99))
	lpf("", "offset", prArgs(7, "offset", 3, "limit", 2))
	lpf("", "error-page-and-offset-disagree", prArgs(7, "page", 2, "offset", 3, "limit", 2))
	lpf("", "error-limit-too-large", prArgs(7, "limit", 5001))
	lpf("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "index", 7))
	lpf("small", "partial-cut-by-size", prArgs(12))

	// search_code
	sc := func(on, name string, a map[string]any) { add("search_code", on, name, a) }
	sc("", "work-tree", args("query", "func"))
	sc("", "at-ref", repoArgs("query", "println", "ref", "feature"))
	sc("", "regex-case-sensitive-globs", args("query", "^func [A-Z]", "regex", true, "caseSensitive", true, "pathGlobs", []string{"src/**/*.go"}))
	sc("", "context-lines", args("query", "Util()", "contextLines", 1))
	sc("", "partial-max-results", args("query", "line", "maxResults", 3))
	sc("", "hidden-file-skipped", args("query", "TOKEN"))
	sc("", "no-match", args("query", "no such text anywhere"))
	sc("", "no-match-globs-select-no-file", args("query", "func", "pathGlobs", []string{"*.py", "/util.go"}))
	sc("", "no-match-in-the-files-globs-select", args("query", "no such text anywhere", "pathGlobs", []string{"*.go"}))
	sc("small", "partial-cut-by-size", args("query", "big line", "maxResults", 500))
	sc("", "error-empty-query", args("query", ""))
	sc("", "error-bad-regex", args("query", "a(", "regex", true))
	sc("", "error-regex-refused", args("query", `(a)\1`, "regex", true))
	sc("", "error-glob-too-wild", args("query", "func", "pathGlobs", []string{"*a*b*c"}))
	sc("", "error-unknown-ref", args("query", "func", "ref", "no-such-branch"))
	sc("", "error-max-results-too-large", args("query", "func", "maxResults", 1000))
	sc("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "query", "func"))

	// list_files
	lf := func(on, name string, a map[string]any) { add("list_files", on, name, a) }
	lf("", "root", args())
	lf("", "directory-at-ref", repoArgs("path", "src", "ref", "feature"))
	lf("", "recursive", args("recursive", true))
	lf("", "glob-any-depth", args("pathGlobs", []string{"*.go"}, "ref", "feature"))
	lf("", "glob-as-an-alias", args("glob", "*.go", "ref", "feature"))
	lf("", "glob-anchored", args("pathGlobs", []string{"src/*.go"}, "ref", "feature"))
	lf("", "glob-no-match", args("pathGlobs", []string{"*.rs"}))
	lf("", "page-first", args("recursive", true, "limit", 3))
	lf("", "page-past-the-end", args("offset", 50))
	lf("small", "partial-cut-by-size", args("recursive", true, "ref", "pr12"))
	lf("", "error-file", args("path", "hundred.txt"))
	lf("", "error-secret", args("path", ".env"))
	lf("", "error-not-found", args("path", "nope"))
	lf("", "error-traversal", args("path", "../outside"))
	lf("", "error-unknown-ref", args("ref", "no-such-branch"))
	lf("", "error-ref-option", args("ref", "--output=x"))
	lf("", "error-glob-unclosed", args("pathGlobs", []string{"src/[ab.go"}))
	lf("", "error-glob-too-long", args("pathGlobs", []string{strings.Repeat("a", 300)}))
	lf("", "error-limit-over-max", args("limit", 2001))
	lf("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets"))

	// blame
	bl := func(on, name string, a map[string]any) { add("blame", on, name, a) }
	bl("", "whole-file", args("path", "src/util.go"))
	bl("", "range-across-commits", repoArgs("path", "cmd/main.go", "ref", "feature", "start_line", 2, "end_line", 5))
	bl("", "renamed", args("path", "new.go", "ref", "feature"))
	bl("", "paged", args("path", "big.txt"))
	bl("", "paged-continued", args("path", "big.txt", "start_line", 501))
	bl("small", "partial-cut-by-size", args("path", "big.txt", "ref", "main"))
	bl("", "error-past-the-end", args("path", "hundred.txt", "start_line", 101))
	bl("", "error-inverted", args("path", "hundred.txt", "start_line", 20, "end_line", 10))
	bl("", "error-directory", args("path", "docs"))
	bl("", "error-secret", args("path", ".env"))
	bl("", "error-binary", args("path", "img.png"))
	bl("", "error-empty-file", args("path", "empty.txt"))
	bl("", "error-not-found", args("path", "nope.go"))
	bl("", "error-unknown-ref", args("path", "hundred.txt", "ref", "no-such-branch"))
	bl("", "error-ref-option", args("path", "hundred.txt", "ref", "-p"))
	bl("", "error-traversal", args("path", "../outside"))
	bl("", "error-path-missing", args())
	bl("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "path", "hundred.txt"))

	// list_commits
	lcm := func(on, name string, a map[string]any) { add("list_commits", on, name, a) }
	lcm("", "head", args())
	lcm("", "ref", repoArgs("ref", "feature"))
	lcm("", "range-merge-base", args("base", "main", "head", "feature"))
	lcm("", "range-direct", args("base", "feature", "head", "main", "mode", "direct"))
	lcm("", "pull-request-oldest-first", args("index", 7, "order", "oldest"))
	lcm("", "pull-request-head-in-base", args("index", 11))
	lcm("", "paths", args("ref", "feature", "paths", []string{"old.go", "new.go"}))
	lcm("", "path-renamed", args("ref", "feature", "paths", []string{"new.go"}))
	lcm("", "path-renamed-follow", args("ref", "feature", "paths", []string{"new.go"}, "follow", true))
	lcm("", "error-follow-two-paths", args("ref", "feature", "paths", []string{"old.go", "new.go"}, "follow", true))
	lcm("", "page-first", args("ref", "pr12", "limit", 1))
	lcm("", "page-past-the-end", args("offset", 10))
	lcm("", "empty", args("base", "main", "head", "main"))
	lcm("", "error-ref-and-range", args("ref", "main", "base", "feature"))
	lcm("", "error-range-as-ref", args("ref", "main..feature"))
	lcm("", "error-ref-option", args("ref", "--output=x"))
	lcm("", "error-unknown-ref", args("ref", "no-such-branch"))
	lcm("", "error-no-such-pull-request", args("index", 99))
	lcm("", "error-path-traversal", args("paths", []string{"../x"}))
	lcm("", "error-head-without-base", args("head", "feature"))
	lcm("", "error-limit-over-max", args("limit", 501))

	// get_commit
	gcm := func(on, name string, a map[string]any) { add("get_commit", on, name, a) }
	gcm("", "commit", args("ref", "feature"))
	gcm("", "root", args("ref", "main~1"))
	gcm("", "hidden-file", args("ref", "pr9"))
	gcm("", "many-files", repoArgs("ref", "pr12"))
	gcm("", "context-lines-zero", args("ref", "feature", "contextLines", 0))
	gcm("", "no-patch", args("ref", "feature", "patch", false))
	gcm("", "ignore-whitespace", args("ref", "pr13", "ignoreWhitespace", true))
	gcm("small", "partial-big-patch", args("ref", "pr10"))
	gcm("", "error-ref-missing", args())
	gcm("", "error-range-as-ref", args("ref", "main..feature"))
	gcm("", "error-ref-option", args("ref", "--output=x"))
	gcm("", "error-unknown-commit", args("ref", strings.Repeat("ab", 20)))
	gcm("", "error-wrong-repository", args("owner", "acme", "repo", "gadgets", "ref", "main"))

	// list_repositories
	lr := func(on, name string, a map[string]any) { add("list_repositories", on, name, a) }
	lr("", "one-repository", args())
	lr("root", "root", args())
	lr("root", "page-first", args("limit", 2))
	lr("root", "page-middle", args("offset", 1, "limit", 2))
	lr("root", "page-last", args("offset", 2, "limit", 2))
	lr("root", "page-past-the-end", args("offset", 10))
	lr("", "error-limit-too-large", args("limit", 1000))
	lr("", "error-unknown-parameter", args("owner", "acme"))

	// list_symbols
	ls := func(on, name string, a map[string]any) { add("list_symbols", on, name, a) }
	ls("", "go-file", args("path", "cmd/main.go", "ref", "feature"))
	ls("", "unsupported", args("path", "a.txt"))
	ls("", "error-secret", args("path", ".env"))

	// find_symbol
	fs := func(on, name string, a map[string]any) { add("find_symbol", on, name, a) }
	fs("", "definitions", args("name", "Old", "ref", "feature"))
	fs("", "signature", args("name", "Util", "include", "signature"))
	fs("", "body", args("name", "Old", "ref", "feature", "include", "body"))
	fs("", "references", args("name", "Util", "mode", "references", "ref", "feature"))
	fs("", "none", args("name", "Nowhere"))
	fs("", "error-not-an-identifier", args("name", "a b"))

	// get_pull_request_symbols
	prs := func(on, name string, a map[string]any) { add("get_pull_request_symbols", on, name, a) }
	prs("", "pull-request", prArgs(7))
	prs("", "paths", args("index", 7, "paths", []string{"src"}))
	prs("", "error-no-such-pull-request", prArgs(99))
	return cs
}

func TestGoldenReplies(t *testing.T) {
	r := goldenRepo(t)
	servers := map[string]*goldenClient{
		"":      goldenServe(t, r, DefaultMaxBytes),
		"small": goldenServe(t, r, goldenSmallMaxBytes),
		"root":  goldenServeRoot(t),
		"forge": goldenServeForge(t),
	}
	norm := goldenNormalizer(t, r.Dir)

	want := map[string]bool{} // the golden file of every case
	ran := 0                  // cases run (-run may select some)
	for _, c := range goldenCases() {
		file := filepath.Join(goldenDir, c.tool, c.name+".txt")
		if want[file] {
			t.Fatalf("two cases write %s", file)
		}
		want[file] = true
		t.Run(c.tool+"/"+c.name, func(t *testing.T) {
			ran++
			if strings.Contains(c.tool, "symbol") && syntax.ParserName() != "tree-sitter" {
				// The replies name the parser and the languages it reads.
				t.Skip(c.tool + "'s goldens are the tree-sitter build's; this build parses with " + syntax.ParserName())
			}
			g := servers[c.on]
			got := norm(g.golden(t, c))
			if goldenUpdating() {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v\n(regenerate with: go test ./internal/server -run Golden -update-golden)", err)
			}
			if string(data) != got {
				t.Errorf("%s(%s): the reply differs from %s (- golden, + now); if the change is intended, regenerate with -update-golden and review the diff\n%s",
					c.tool, compactJSON(c.args), file, lineDiff(string(data), got))
			}
		})
	}

	// A golden file no case writes is a case that was removed or renamed.
	if ran < len(want) {
		return // not every case ran: the others' files are not stale
	}
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*", "*.txt"))
	for _, f := range files {
		if want[f] {
			continue
		}
		if goldenUpdating() {
			if err := os.Remove(f); err != nil {
				t.Error(err)
			}
			continue
		}
		t.Errorf("%s: no case writes this golden file any more; regenerate with -update-golden to remove it", f)
	}
}

// goldenClient calls the same server as served by default and with
// --structured, and keeps what each sent.
type goldenClient struct {
	plain, structured *loggedSession
	maxBytes          int
}

// loggedSession is a client session whose wire is logged.
type loggedSession struct {
	cs  *mcp.ClientSession
	log *lineLog
}

func goldenServe(t *testing.T, r *testrepo.Repo, maxBytes int) *goldenClient {
	t.Helper()
	served, err := repo.ServeOne(context.Background(), testEnv(t), r.Dir, "acme/widgets")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	return goldenConnect(t, served, maxBytes)
}

// goldenServeRoot serves a root of three small repositories, for
// list_repositories' pages.
func goldenServeRoot(t *testing.T) *goldenClient {
	t.Helper()
	root := t.TempDir()
	for _, name := range []string{"acme/gadgets", "acme/widgets", "zeta/tools"} {
		r := testrepo.Init(t, filepath.Join(root, filepath.FromSlash(name)))
		r.Write("README.md", "# "+name+"\n")
		r.Commit("readme")
		if name == "zeta/tools" {
			r.CloneBare(filepath.Join(root, "zeta", "tools-mirror.git"))
		}
	}
	served, err := repo.ServeRoot(testEnv(t), root, repo.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	return goldenConnect(t, served, DefaultMaxBytes)
}

// goldenConnect serves served twice, as by default (text only) and with
// --structured, and connects a client to each.
func goldenConnect(t *testing.T, served *repo.Served, maxBytes int, opts ...option) *goldenClient {
	t.Helper()
	return &goldenClient{
		plain:      goldenSession(t, served, maxBytes, false, opts...),
		structured: goldenSession(t, served, maxBytes, true, opts...),
		maxBytes:   maxBytes,
	}
}

// goldenCursorKey signs the golden replies' cursors: a fixed key, so that
// they are the same on every run.
var goldenCursorKey = []byte("golden replies' cursor key, 32+ bytes")

func goldenSession(t *testing.T, served *repo.Served, maxBytes int, structured bool, opts ...option) *loggedSession {
	t.Helper()
	ctx := context.Background()
	cfg := Config{MaxBytes: maxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test", Structured: structured,
		CursorKey: goldenCursorKey}
	for _, o := range opts {
		o(&cfg)
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := New(served, cfg).MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	// The client's side of the wire is logged: a message is logged before
	// the client sees it, so a call's reply is in the log when it returns.
	log := &lineLog{}
	client := mcp.NewClient(&mcp.Implementation{Name: "golden"}, nil)
	cs, err := client.Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: log}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &loggedSession{cs: cs, log: log}
}

// lineLog keeps the lines a LoggingTransport writes.
type lineLog struct {
	mu      sync.Mutex
	partial bytes.Buffer
	lines   []string
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial.Write(p)
	for {
		line, err := l.partial.ReadString('\n')
		if err != nil {
			l.partial.Reset()
			l.partial.WriteString(line)
			return len(p), nil
		}
		l.lines = append(l.lines, strings.TrimSuffix(line, "\n"))
	}
}

func (l *lineLog) since(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines[n:]...)
}

func (l *lineLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// wireResult is a tool result as it went over the wire.
type wireResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage            `json:"structuredContent"`
	IsError           bool                       `json:"isError"`
	Meta              map[string]json.RawMessage `json:"_meta"`
}

// golden makes the call on both servers and renders the golden file: the
// default server's text and next call, and the --structured server's
// structured content (and its text, where it differs).
func (g *goldenClient) golden(t *testing.T, c goldenCase) string {
	t.Helper()
	plain := g.call(t, g.plain, c)
	structured := g.call(t, g.structured, c)
	if len(plain.StructuredContent) > 0 {
		t.Errorf("%s: structuredContent without --structured", c.tool)
	}
	return renderGolden(c, plain, structured)
}

func (g *goldenClient) call(t *testing.T, ls *loggedSession, c goldenCase) wireResult {
	t.Helper()
	data, err := json.Marshal(c.args)
	if err != nil {
		t.Fatal(err)
	}
	from := ls.log.len()
	res, err := ls.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(data)})
	if err != nil {
		t.Fatalf("%s(%s): protocol error: %v", c.tool, data, err)
	}
	raw := ls.rawResult(t, from)
	if len(raw) > g.maxBytes {
		t.Fatalf("%s(%s): reply is %d bytes, over the %d-byte limit", c.tool, data, len(raw), g.maxBytes)
	}
	var wire wireResult
	if err := json.Unmarshal(raw, &wire); err != nil {
		t.Fatalf("%s(%s): reading the reply %s: %v", c.tool, data, raw, err)
	}
	if len(wire.Content) != 1 || wire.Content[0].Type != "text" {
		t.Fatalf("%s(%s): reply content is not one text: %s", c.tool, data, raw)
	}
	if wire.Content[0].Text != textOf(res) || wire.IsError != res.IsError {
		t.Fatalf("%s(%s): the logged reply is not the one the client got", c.tool, data)
	}
	return wire
}

// rawResult is the "result" of the last response logged since line from.
func (ls *loggedSession) rawResult(t *testing.T, from int) json.RawMessage {
	t.Helper()
	var result json.RawMessage
	for _, line := range ls.log.since(from) {
		msg, ok := strings.CutPrefix(line, "read: ")
		if !ok {
			continue
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(msg), &resp) == nil && len(resp.Result) > 0 {
			result = resp.Result
		}
	}
	if result == nil {
		t.Fatal("no response in the transport's log")
	}
	return result
}

// renderGolden is the golden file of a reply. Sections start with a line
// "-- name --"; the text section holds the text exactly, and says so when
// the text does not end with a newline (one is added to end the section).
func renderGolden(c goldenCase, plain, structured wireResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n", c.tool, c.name)
	switch c.on {
	case "small":
		fmt.Fprintf(&b, "# server: acme/widgets, reply limit %d bytes\n", goldenSmallMaxBytes)
	case "root":
		b.WriteString("# server: a root of acme/gadgets, acme/widgets, zeta/tools, zeta/tools-mirror.git (bare)\n")
	default:
		fmt.Fprintf(&b, "# server: acme/widgets, reply limit %d bytes (the default)\n", DefaultMaxBytes)
	}
	args, _ := json.MarshalIndent(c.args, "", "  ")
	fmt.Fprintf(&b, "-- arguments --\n%s\n", args)
	fmt.Fprintf(&b, "-- isError --\n%t\n", plain.IsError)
	writeText := func(name, text string) {
		if strings.HasSuffix(text, "\n") || text == "" {
			fmt.Fprintf(&b, "-- %s --\n%s", name, text)
		} else {
			fmt.Fprintf(&b, "-- %s (no newline at its end) --\n%s\n", name, text)
		}
	}
	writeText("text", plain.Content[0].Text)
	if next, ok := plain.Meta[paging.MetaKeyNext]; ok {
		fmt.Fprintf(&b, "-- _meta %s --\n%s\n", paging.MetaKeyNext, indentJSON(next))
	}
	if st := structured.Content[0].Text; st != plain.Content[0].Text {
		writeText("text with --structured", st)
	}
	if len(structured.StructuredContent) == 0 {
		b.WriteString("-- structuredContent with --structured: none --\n")
	} else {
		fmt.Fprintf(&b, "-- structuredContent with --structured --\n%s\n", indentJSON(structured.StructuredContent))
	}
	return b.String()
}

func indentJSON(raw json.RawMessage) string {
	var ind bytes.Buffer
	if err := json.Indent(&ind, raw, "", "  "); err != nil {
		return string(raw)
	}
	return ind.String()
}

// goldenNormalizer replaces the test's temporary directories, should a reply
// name them, with fixed words: the repository's work tree, the test's
// temporary directories, the system's.
func goldenNormalizer(t *testing.T, repoDir string) func(string) string {
	t.Helper()
	var rep []string
	for _, d := range []struct{ dir, name string }{
		{repoDir, "$REPO"},
		{filepath.Dir(filepath.Dir(repoDir)), "$TESTTMP"},
		{os.TempDir(), "$TMPDIR"},
	} {
		rep = append(rep, d.dir, d.name)
		if real, err := filepath.EvalSymlinks(d.dir); err == nil && real != d.dir {
			rep = append(rep, real, d.name)
		}
	}
	return strings.NewReplacer(rep...).Replace
}

func compactJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// lineDiff is a line diff of a and b ("-" a only, "+" b only, " " both),
// with three lines of context around changes.
func lineDiff(a, b string) string {
	x, y := splitLines(a), splitLines(b)
	if len(x)*len(y) > 4_000_000 {
		return fmt.Sprintf("(too long to diff: %d and %d lines)\n- %s\n+ %s", len(x), len(y), firstDiff(x, y), firstDiff(y, x))
	}
	// lcs[i][j]: length of the longest common subsequence of x[i:], y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte
		line string
	}
	var ops []op
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i]})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', x[i]})
			i++
		default:
			ops = append(ops, op{'+', y[j]})
			j++
		}
	}
	const context = 3
	keep := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind != ' ' {
			for m := max(0, k-context); m <= min(len(ops)-1, k+context); m++ {
				keep[m] = true
			}
		}
	}
	var out strings.Builder
	skipped := false
	for k, o := range ops {
		if !keep[k] {
			skipped = true
			continue
		}
		if skipped {
			out.WriteString("  …\n")
			skipped = false
		}
		fmt.Fprintf(&out, "%c %s\n", o.kind, strings.ReplaceAll(o.line, "\r", `\r`))
	}
	return out.String()
}

func splitLines(s string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

func firstDiff(x, y []string) string {
	for i := range x {
		if i >= len(y) || x[i] != y[i] {
			return fmt.Sprintf("line %d: %s", i+1, x[i])
		}
	}
	return "(end)"
}
