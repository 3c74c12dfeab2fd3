package server

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A whole diff of more than 20 parts says, in its first part, what costs
// less, counted: contextLines 0 takes as many parts as its drain does,
// and the directories, the vendored files and the translations hold their
// shares of the patch. The note does not change the count: every part
// still says "part k of n" of its drain (issue 38, "ways out").
func TestLongDiffNamesCheaperRoutes(t *testing.T) {
	r := testrepo.New(t)
	var po, vendored, src strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&po, "msgid \"message %d\"\nmsgstr \"Nachricht %d\"\n\n", i, i)
	}
	for i := range 600 {
		fmt.Fprintf(&vendored, "var bundled%d = %d;\n", i, i)
	}
	for i := range 300 {
		fmt.Fprintf(&src, "func f%d() int { return %d }\n", i, i)
	}
	r.Write("po/de.po", po.String())
	r.Write("vendor/lib/bundle.js", vendored.String())
	r.Write("src/main.go", "package main\n\n"+src.String())
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	// Every fifth message changes: without context, far less to read.
	r.Write("po/de.po", regexp.MustCompile(`Nachricht (\d*5)"`).ReplaceAllString(po.String(), `Meldung $1"`))
	r.Write("vendor/lib/bundle.js", strings.ReplaceAll(vendored.String(), "var", "let"))
	r.Write("src/main.go", "package main\n\n"+strings.ReplaceAll(src.String(), "return", "return 1 +"))
	r.Git("update-ref", "refs/pull/9/head", r.Commit("translate, bundle, change"))
	r.Git("checkout", "-q", "main")
	h := serveAs(t, r, "a client nobody knows", nil)

	results := drainResults(t, h, "get_pull_request_diff", prArgs(9))
	first := textOf(results[0])
	m := regexp.MustCompile(`\[note: ways to read less of this diff: contextLines 0 takes (\d+) parts; by directory \(paths reads one\): (.*)\]`).FindStringSubmatch(first)
	if len(results) <= manyParts || m == nil {
		t.Fatalf("%d parts; the first does not name the cheaper routes:\n%.2000s", len(results), first)
	}
	for i, res := range results {
		if !strings.Contains(textOf(res), fmt.Sprintf("part %d of %d:", i+1, len(results))) {
			t.Fatalf("part %d does not say it is of %d", i+1, len(results))
		}
		if i > 0 && strings.Contains(textOf(res), "ways to read less") {
			t.Errorf("part %d repeats the routes", i+1)
		}
	}
	t.Log(m[0])
	said, _ := strconv.Atoi(m[1])
	if got := len(drainResults(t, h, "get_pull_request_diff", prArgs(9, "contextLines", 0))); said != got || got >= len(results) {
		t.Errorf("contextLines 0: said %d parts, its drain took %d (the whole diff %d)", said, got, len(results))
	}
	for _, want := range []string{"po/ ", "vendor/ ", "src/ ", "generated or vendored files hold ", "translation files ", "list_pull_request_files marks them"} {
		if !strings.Contains(m[2], want) {
			t.Errorf("the routes do not say %q: %s", want, m[2])
		}
	}
	// A short diff says nothing of routes.
	if tx := h.ok("get_pull_request_diff", prArgs(9, "file_path", "src/main.go")); strings.Contains(tx, "ways to read less") {
		t.Errorf("one file's diff names routes:\n%.500s", tx)
	}
}
