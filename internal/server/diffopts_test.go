package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// The options of the diff tools (issue 23): get_pull_request_diff's paths
// and contextLines, ignoreWhitespace on the three diff tools, get_commit
// without its patch, and the replies that say why a selection is empty or
// a file_path is not a file of the diff. git is the oracle throughout.

// wsRepo has a pull request (#3) whose changes are a directory of large
// files (lib/, each larger than a small reply), a file whose changes are
// all whitespace (lib/spaces.txt), a file with changes of both kinds
// (mixed.txt), a rename (old.txt to lib/moved.txt) and a file outside lib/.
func wsRepo(t *testing.T) (r *testrepo.Repo, mergeBase, head string) {
	r = testrepo.New(t)
	for i := 1; i <= 3; i++ {
		r.Write(fmt.Sprintf("lib/big%d.txt", i), numberedLines(400))
	}
	r.Write("lib/spaces.txt", "a b\nc\n")
	r.Write("mixed.txt", "one\ntwo\nthree\n")
	r.Write("old.txt", numberedLines(40))
	r.Write("other.txt", "other\n")
	mergeBase = r.Commit("base")
	r.Git("checkout", "-q", "-b", "topic")
	for i := 1; i <= 3; i++ {
		r.Write(fmt.Sprintf("lib/big%d.txt", i), strings.NewReplacer("0\n", "0 changed\n", "5\n", "5 changed\n").Replace(numberedLines(400)))
	}
	r.Write("lib/spaces.txt", "a  b \n\tc\n")
	r.Write("mixed.txt", "one \ntwo\nthree\nfour\n")
	r.Git("mv", "old.txt", "lib/moved.txt")
	r.Write("lib/moved.txt", strings.Replace(numberedLines(40), "line 7\n", "line 7 edited\n", 1))
	r.Write("other.txt", "other changed\n")
	head = r.Commit("topic")
	r.Git("update-ref", "refs/pull/3/head", head)
	r.Git("checkout", "-q", "main")
	r.Write("main.txt", "main moves on\n")
	r.Commit("main moves on")
	return r, mergeBase, head
}

// get_pull_request_diff's paths select exactly what get_diff's select
// (the same code): a directory, a file, one side of a rename bringing the
// other; what git diff -- <paths> prints.
func TestPullRequestDiffPathsAreGetDiffs(t *testing.T) {
	r, mb, head := wsRepo(t)
	h := serve(t, r)
	// The oracle's pathspec: a rename one side of which paths name is
	// selected whole, so git is given both sides.
	for paths, spec := range map[string][]string{
		"lib":                     {"lib", "old.txt"},
		"mixed.txt":               {"mixed.txt"},
		"old.txt":                 {"old.txt", "lib/moved.txt"},
		"lib/moved.txt other.txt": {"lib/moved.txt", "old.txt", "other.txt"},
	} {
		paths := strings.Fields(paths)
		got := h.ok("get_pull_request_diff", prArgs(3, "paths", paths))
		want := r.Git(append([]string{"diff", "-M", mb, head, "--"}, spec...)...)
		if patchOf(got) != want {
			t.Errorf("paths %v: got\n%s\nwant git's\n%s", paths, got, want)
		}
		diff := h.ok("get_diff", args("base", mb, "head", head, "paths", paths))
		if patchOf(diff) != patchOf(got) {
			t.Errorf("paths %v: get_diff selects\n%s\nget_pull_request_diff\n%s", paths, diff, got)
		}
	}
	// A part says which renames paths named one side of.
	if got := h.ok("get_pull_request_diff", prArgs(3, "paths", []string{"old.txt"})); !strings.Contains(got, "[paths named one side of old.txt → lib/moved.txt") {
		t.Errorf("no note of the rename paired:\n%s", got)
	}
	msg := h.fails("get_pull_request_diff", prArgs(3, "paths", []string{"lib"}, "file_path", "mixed.txt"), "INVALID_ARGUMENT")
	if !strings.Contains(msg, "file_path and paths") {
		t.Errorf("the refusal does not name both: %s", msg)
	}
	h.fails("get_pull_request_diff", prArgs(3, "paths", []string{"../x"}), "PATH_DENIED")
}

// A directory of a pull request larger than a reply, drained part by part
// with paths and contextLines (0 as well, which the next calls must
// carry), is git diff -U<n> -- <dir>, byte for byte.
func TestPullRequestDiffPathsDrainWithContextLines(t *testing.T) {
	r, mb, head := wsRepo(t)
	h := serve(t, r, withMaxBytes(8192), withTextOnly())
	for _, n := range []int{0, 1, 5} {
		parts := drain(t, h, "get_pull_request_diff", prArgs(3, "paths", []string{"lib"}, "contextLines", n))
		if len(parts) < 3 {
			t.Fatalf("-U%d: %d parts; the fixture must take several", n, len(parts))
		}
		checkJoined(t, parts, r.Git("diff", "-M", fmt.Sprintf("-U%d", n), mb, head, "--", "lib", "old.txt"))
	}
	// Without paths, contextLines alone is git's -U too.
	if got, want := h.ok("get_pull_request_diff", prArgs(3, "file_path", "mixed.txt", "contextLines", 0)), r.Git("diff", "-M", "-U0", mb, head, "--", "mixed.txt"); got != want {
		t.Errorf("file_path with contextLines 0: got\n%s\nwant\n%s", got, want)
	}
	// The first part's header counts the selection, not the pull request.
	first := h.call("get_pull_request_diff", prArgs(3, "paths", []string{"lib"}))
	if line := strings.SplitN(textOf(first), "\n", 2)[0]; !strings.Contains(line, "5 files at or under paths") {
		t.Errorf("header: %s", line)
	}
}

// ignoreWhitespace is git diff -w on get_diff, get_commit and
// get_pull_request_diff: the patch, the line counts (git diff -w
// --numstat), and a note and structured entry for the file whose changes
// are all whitespace; the cache and the cursors keep the two apart.
func TestIgnoreWhitespaceIsGitDashW(t *testing.T) {
	r, mb, head := wsRepo(t)
	h := serve(t, r)
	paths := []string{"lib/spaces.txt", "mixed.txt"}
	wantW := r.Git("diff", "-M", "-w", mb, head, "--", "lib/spaces.txt", "mixed.txt")
	if strings.Contains(wantW, "spaces.txt") || !strings.Contains(wantW, "mixed.txt") {
		t.Fatalf("fixture: git diff -w shows\n%s", wantW)
	}
	var out getDiffOut
	text := h.structured("get_diff", args("base", mb, "head", head, "paths", paths, "ignoreWhitespace", true), &out)
	if patchOf(text) != wantW {
		t.Errorf("get_diff -w: got\n%s\nwant\n%s", text, wantW)
	}
	if !strings.Contains(text, "[no patch, the changes are all in whitespace (ignoreWhitespace): lib/spaces.txt]") {
		t.Errorf("get_diff -w does not name the whitespace-only file:\n%s", text)
	}
	if out.TotalFiles != 2 || len(out.Files) != 2 || out.Files[1].Path != "lib/spaces.txt" || out.Files[1].PatchOmitted == nil || *out.Files[1].PatchOmitted != "whitespace" ||
		out.Files[0].Patch == nil || *out.Files[0].Patch != wantW || *out.Files[0].Additions != 1 || *out.Files[0].Deletions != 0 {
		data, _ := json.Marshal(out.Files)
		t.Errorf("get_diff -w structured: %d files of %d: %s", len(out.Files), out.TotalFiles, data)
	}
	// Without it, the same call is the plain diff: the patch cache and
	// the list's memo tell the two apart.
	if got, want := patchOf(h.ok("get_diff", args("base", mb, "head", head, "paths", paths))), r.Git("diff", "-M", mb, head, "--", "lib/spaces.txt", "mixed.txt"); got != want {
		t.Errorf("get_diff after a -w call: got\n%s\nwant\n%s", got, want)
	}

	// get_pull_request_diff: the whole pull request, and a file whose
	// changes are all whitespace, headed and noted rather than empty.
	if got, want := h.ok("get_pull_request_diff", prArgs(3, "ignoreWhitespace", true)), r.Git("diff", "-M", "-w", mb, head); patchOf(got) != want {
		t.Errorf("get_pull_request_diff -w: got\n%s\nwant\n%s", got, want)
	}
	only := h.ok("get_pull_request_diff", prArgs(3, "file_path", "lib/spaces.txt", "ignoreWhitespace", true))
	if strings.Contains(only, "diff --git") || !strings.Contains(only, "all in whitespace (ignoreWhitespace): lib/spaces.txt") {
		t.Errorf("a whitespace-only file with -w:\n%s", only)
	}

	// get_commit: the patch and the file list's counts are git's -w.
	var c getCommitOut
	text = h.structured("get_commit", args("ref", head, "ignoreWhitespace", true), &c)
	if i := strings.Index(text, "diff --git "); i < 0 || patchOf(text[i:]) != r.Git("diff", "-M", "-w", mb, head) {
		t.Errorf("get_commit -w: the patch is not git diff -w:\n%s", text)
	}
	numstat := map[string]string{}
	for _, rec := range strings.Split(strings.TrimSpace(r.Git("diff", "-M", "-w", "--numstat", mb, head)), "\n") {
		f := strings.SplitN(rec, "\t", 3)
		numstat[f[2]] = f[0] + " " + f[1]
	}
	for _, f := range c.ChangedFiles {
		key := f.Path
		if f.OldPath != nil {
			key = *f.OldPath + " => " + f.Path
		}
		want, ok := numstat[key]
		if !ok {
			want = "0 0" // no record: whitespace only
		}
		if got := fmt.Sprintf("%d %d", *f.Additions, *f.Deletions); got != want {
			t.Errorf("get_commit -w: %s has %s lines, git diff -w --numstat says %s", key, got, want)
		}
	}
}

// A cursor made with ignoreWhitespace is refused without it (and the other
// way): its parts are of another patch.
func TestIgnoreWhitespaceCursorIsItsOwn(t *testing.T) {
	r, mb, head := wsRepo(t)
	h := serve(t, r, withMaxBytes(8192), withTextOnly())
	for _, tool := range []string{"get_diff", "get_pull_request_diff"} {
		a := args("base", mb, "head", head, "ignoreWhitespace", true)
		if tool == "get_pull_request_diff" {
			a = prArgs(3, "ignoreWhitespace", true)
		}
		next := nextOf(t, h.call(tool, a))
		if next == nil || next.Arguments["ignoreWhitespace"] != true {
			t.Fatalf("%s: the next call does not keep ignoreWhitespace: %v", tool, next)
		}
		delete(next.Arguments, "ignoreWhitespace")
		h.fails(tool, next.Arguments, "INVALID_ARGUMENT")
	}
}

// get_commit with patch=false is the message and the file list, no patch:
// in one part, and over parts for a message larger than one, which end
// with the message.
func TestGetCommitWithoutPatch(t *testing.T) {
	r, mb, head := wsRepo(t)
	h := serve(t, r)
	var out getCommitOut
	res := h.call("get_commit", args("ref", head, "patch", false))
	text := textOf(res)
	histDecode(t, res, &out)
	if strings.Contains(text, "diff --git") || strings.Contains(text, "@@") || !strings.Contains(text, "    topic\n") || !strings.Contains(text, "mixed.txt") || nextOf(t, res) != nil {
		t.Fatalf("patch=false:\n%s", text)
	}
	if len(out.Files) != 0 || out.Truncated || out.TotalFiles != 7 || len(out.ChangedFiles) != 7 || out.Message == nil {
		t.Fatalf("patch=false structured: %d files, truncated %v, %d of %d changed files", len(out.Files), out.Truncated, len(out.ChangedFiles), out.TotalFiles)
	}
	if !strings.Contains(h.ok("get_commit", args("ref", head, "patch", true)), "diff --git") || !strings.Contains(h.ok("get_commit", args("ref", head)), r.Git("diff", "-M", mb, head, "--", "other.txt")) {
		t.Fatal("patch=true, or left out, has no patch")
	}

	// A message of 20 kB at a 4 kB limit: its parts, then no patch.
	msg := "big\n\n" + strings.Repeat("a line of a message that is large\n", 600)
	r.Write("g.txt", "g\n")
	r.Git("add", "g.txt")
	r.GitInput(msg, "commit", "-q", "-F", "-")
	small := serve(t, r, withMaxBytes(MinMaxBytes))
	cp := drainCommit(t, small, args("ref", "HEAD", "patch", false))
	if cp.message != strings.TrimRight(msg, "\n") || len(cp.messageTexts) == 0 || len(cp.patches) != 0 {
		t.Fatalf("message %d bytes of %d over %d parts, %d patch parts", len(cp.message), len(msg)-1, len(cp.messageTexts), len(cp.patches))
	}
	if last := cp.messageTexts[len(cp.messageTexts)-1]; !strings.HasSuffix(last, noPatchLine) {
		t.Errorf("the last part does not say the patch is left out:\n%s", last)
	}
}

// A directory given as file_path stays NOT_FOUND (seed 000) and says it
// is a directory of the diff, how many files are under it, and the exact
// call with paths, which gives them; another path gets the closest names,
// not the whole list.
func TestPullRequestDiffFilePathNotAFile(t *testing.T) {
	r := testrepo.New(t)
	r.Write("README", "x\n")
	base := r.Commit("base")
	r.Git("checkout", "-q", "-b", "wide")
	for i := range 300 {
		r.Write(fmt.Sprintf("pkg/dir%03d/file%03d.go", i, i), "package p\n")
	}
	r.Write("src/server/main.go", "package main\n")
	r.Write("src/server/handler.go", "package main\n")
	r.Git("update-ref", "refs/pull/4/head", r.Commit("wide"))
	r.Git("checkout", "-q", "main")
	h := serve(t, r)

	msg := h.fails("get_pull_request_diff", prArgs(4, "file_path", "src/server"), "NOT_FOUND")
	call := `get_pull_request_diff {"contextLines":3,"index":4,"owner":"acme","paths":["src/server"],"repo":"widgets"}`
	if !strings.Contains(msg, `"src/server" is a directory of the diff`) || !strings.Contains(msg, "2 changed files under it") || !strings.Contains(msg, call) {
		t.Fatalf("a directory as file_path: %s", msg)
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(call, "get_pull_request_diff ")), &a); err != nil {
		t.Fatal(err)
	}
	if got, want := h.ok("get_pull_request_diff", a), r.Git("diff", "-M", base, "refs/pull/4/head", "--", "src/server"); got != want {
		t.Fatalf("the call the error gives: got\n%s\nwant\n%s", got, want)
	}

	msg = h.fails("get_pull_request_diff", prArgs(4, "file_path", "src/server/mian.go"), "NOT_FOUND")
	if !strings.Contains(msg, "closest by name: src/server/main.go") || strings.Count(msg, ", ") > 4 || strings.Contains(msg, "pkg/dir") || len(msg) > 500 {
		t.Fatalf("a misspelt file_path: %s", msg)
	}
	msg = h.fails("get_pull_request_diff", prArgs(4, "file_path", "file007.go"), "NOT_FOUND")
	if !strings.Contains(msg, "closest by name: pkg/dir007/file007.go, ") || strings.Count(msg, "pkg/dir") != 5 {
		t.Fatalf("a file_path without its directory: %s", msg)
	}
	msg = h.fails("get_pull_request_diff", prArgs(4, "file_path", "zzzzzzzzzzzzzzzz"), "NOT_FOUND")
	if !strings.Contains(msg, "none of its 302 files has a name close to it") {
		t.Fatalf("a file_path like no file: %s", msg)
	}
}

// Literal paths that match no changed file say so, name the tool that
// takes globs, and tell that apart from an empty diff, in the text and
// the structured output, on get_diff, list_changed_files and
// get_pull_request_diff.
func TestPathsThatMatchNoChangedFile(t *testing.T) {
	r, mb, head := wsRepo(t)
	h := serve(t, r)
	const said = "No changed file is at or under the paths given (the diff without paths has 7 changed files): paths are literal paths, not globs; list_files with pathGlobs finds files by glob."
	var d, d2 getDiffOut
	text := h.structured("get_diff", args("base", mb, "head", head, "paths", []string{"*.txt"}), &d)
	if !strings.Contains(text, said) || strings.Contains(text, "No file differs") || d.EmptyReason != emptyNoPathMatched || d.TotalFiles != 0 || d.Files == nil {
		t.Errorf("get_diff paths=[*.txt]: %s (emptyReason %q)", text, d.EmptyReason)
	}
	text = h.structured("get_diff", args("base", head, "head", head, "paths", []string{"*.txt"}), &d2)
	if !strings.Contains(text, "No file differs.") || d2.EmptyReason != emptyNoChange {
		t.Errorf("an empty diff with paths: %s (emptyReason %q)", text, d2.EmptyReason)
	}
	var l, l2 listChangedFilesOut
	text = h.structured("list_changed_files", args("base", mb, "head", head, "paths", []string{"lib/*"}), &l)
	if !strings.Contains(text, said) || l.EmptyReason != emptyNoPathMatched {
		t.Errorf("list_changed_files paths=[lib/*]: %s (emptyReason %q)", text, l.EmptyReason)
	}
	text = h.structured("list_changed_files", args("base", mb, "head", head, "paths", []string{"lib"}), &l2)
	if strings.Contains(text, said) || l2.EmptyReason != "" || l2.TotalFiles != 5 {
		t.Errorf("list_changed_files paths=[lib]: %s (emptyReason %q)", text, l2.EmptyReason)
	}
	if got := h.ok("get_pull_request_diff", prArgs(3, "paths", []string{"src"})); got != "acme/widgets#3: "+said+"\n" {
		t.Errorf("get_pull_request_diff paths=[src]: %q", got)
	}
	if bytes.Contains([]byte(h.ok("get_diff", args("base", mb, "head", head, "paths", []string{"lib"}))), []byte(said)) {
		t.Error("a selection that matched says it did not")
	}
}

// In forge mode, get_pull_request_diff with paths, contextLines,
// ignoreWhitespace, lineNumbers, collapseRepeated or functionContext is git's diff of the pull request's commits in the
// mirror (the forge's .diff has no such options); without them, the
// forge's own diff.
func TestForgePullRequestDiffOptionsAreGits(t *testing.T) {
	f := forgetest.New(t)
	base := strings.TrimSpace(f.Repo.Git("rev-parse", "main"))
	head := strings.TrimSpace(f.Repo.Git("rev-parse", "refs/pull/1/head"))
	const forgeDiff = "diff --git a/forge.txt b/forge.txt\n--- a/forge.txt\n+++ b/forge.txt\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/dir/x.txt b/dir/x.txt\n--- a/dir/x.txt\n+++ b/dir/x.txt\n@@ -1 +1 @@\n-a\n+b\n"
	f.API = func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/repos/acme/widgets/pulls/1.diff":
			io.WriteString(w, forgeDiff)
		case "/api/v1/repos/acme/widgets/pulls/1":
			io.WriteString(w, `{"number":1,"head":{"sha":"`+head+`"},"base":{"sha":"`+base+`"}}`)
		default:
			http.NotFound(w, r)
		}
	}
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	if got := h.ok("get_pull_request_diff", prArgs(1)); got != forgeDiff {
		t.Fatalf("without options: got %q, want the forge's diff", got)
	}
	// The forge's diff gets the same NOT_FOUND as git's.
	if msg := h.fails("get_pull_request_diff", prArgs(1, "file_path", "dir"), "NOT_FOUND"); !strings.Contains(msg, `"dir" is a directory of the diff of acme/widgets#1, with 1 changed file under it`) || !strings.Contains(msg, `"paths":["dir"]`) {
		t.Errorf("a directory as file_path: %s", msg)
	}
	if msg := h.fails("get_pull_request_diff", prArgs(1, "file_path", "forge.tx"), "NOT_FOUND"); !strings.Contains(msg, "of its 2 files, the closest by name: forge.txt;") {
		t.Errorf("a misspelt file_path: %s", msg)
	}
	for _, a := range []map[string]any{
		prArgs(1, "paths", []string{"topic.txt"}),
		prArgs(1, "contextLines", 0),
		prArgs(1, "ignoreWhitespace", true),
	} {
		if got, want := patchOf(h.ok("get_pull_request_diff", a)), f.Repo.Git("diff", "-M", base, head); got != want {
			t.Errorf("%v: got %q, want git's %q", a, got, want)
		}
	}
	// lineNumbers and collapseRepeated: git's diff too, numbered or folded.
	want := f.Repo.Git("diff", "-M", base, head)
	if got, err := diff.UnnumberLines([]byte(patchOf(h.ok("get_pull_request_diff", prArgs(1, "lineNumbers", true))))); err != nil || string(got) != want {
		t.Errorf("lineNumbers: got %q (%v), want git's %q numbered", got, err, want)
	}
	checkRebuilds(t, []string{h.ok("get_pull_request_diff", prArgs(1, "collapseRepeated", true))}, want)
	// functionContext: git's diff widened (a new file: all of it), said.
	if got := h.ok("get_pull_request_diff", prArgs(1, "functionContext", true)); patchOf(got) != want || !strings.Contains(got, "[note: functionContext: ") {
		t.Errorf("functionContext: got %q, want git's %q widened, with its note", got, want)
	}
}
