package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/globs"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// list_files and blame, with git as the oracle: what list_files lists,
// drained through its next calls, is `git ls-tree -l` less what the
// secrets policy hides; what blame tells of each line is what
// `git blame --porcelain` tells.

// treeRepo builds the repository list_files reads: nested sources, C files
// at several depths, secrets at several depths, a symlink, a submodule, an
// executable, names with spaces, unicode and a newline, and a directory of
// 600 files. It returns the commit.
func treeRepo(t *testing.T) (*testrepo.Repo, string) {
	t.Helper()
	r := testrepo.New(t)
	r.Write("README.md", "# widgets\n")
	r.Write("src/main.go", "package main\n\nfunc main() {}\n")
	r.Write("src/util.go", "package main\n")
	r.Write("src/sub/deep.go", "package sub\n")
	r.Write("src/sub/x.c", "int x;\n")
	r.Write("reftable.c", "int r;\n")
	r.Write("lib/reftable/reftable-block.c", "int b;\n")
	r.Write("lib/reftable/block.h", "int h;\n")
	r.Write("xdiff/xutils.c", "int u;\n")
	r.Write("docs/with space.md", "spaces\n")
	r.Write("docs/naïve ünïcode.txt", "unicode\n")
	r.Write("docs/odd\nname.txt", "newline\n")
	r.Write(".env", "TOKEN=hunter2\n")
	r.Write("config/.env.local", "TOKEN=hunter2\n")
	r.Write("keys/id_rsa", "PRIVATE\n")
	r.Write("keys/id_rsa.pub", "public\n")
	r.Write(".aws/credentials", "[default]\n")
	r.Write("scripts/run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(r.Dir, "scripts/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Symlink("src/main.go", "link-to-main")
	for i := range 600 {
		r.Write(fmt.Sprintf("many/f%03d.txt", i), strings.Repeat("x", i))
	}
	r.Git("add", "-A")
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ab", 20)+",sublib")
	r.Git("commit", "-q", "-m", "tree")
	return r, r.Head()
}

// gitTree is `git ls-tree -l` of dir at commit (recursive or not) as
// list_files' entries, less what the default policy hides.
func gitTree(t *testing.T, r *testrepo.Repo, commit, dir string, recursive bool) []fileEntry {
	t.Helper()
	a := []string{"ls-tree", "-z", "-l", "--full-tree"}
	if recursive {
		a = append(a, "-r")
	}
	tree := commit
	if dir != "" {
		tree = commit + ":" + dir
	}
	out := r.Git(append(a, tree)...)
	policy := mustPolicy(nil)
	var entries []fileEntry
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		head, name, _ := strings.Cut(rec, "\t")
		f := strings.Fields(head)
		p := name
		if dir != "" {
			p = dir + "/" + name
		}
		if policy.Denied(p) {
			continue
		}
		mode, _ := strconv.ParseUint(f[0], 8, 32)
		e := fileEntry{Path: p, Type: git.Entry{Mode: uint32(mode)}.Kind()}
		switch e.Type {
		case git.KindFile:
			n, _ := strconv.ParseInt(f[3], 10, 64)
			e.Size = &n
		case git.KindSubmodule:
			e.Commit = ptr(f[2])
		case git.KindDir:
			e.Entries = ptr(len(gitTree(t, r, commit, p, false)))
		}
		entries = append(entries, e)
	}
	return entries
}

// callInto calls a tool that must succeed and decodes its structured
// content into v.
func callInto(t *testing.T, h *harness, tool string, a map[string]any, v any) *mcp.CallToolResult {
	t.Helper()
	res := h.call(tool, a)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", tool, a, textOf(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return res
}

// lastLineSaysNext: a partial reply's last text line says its next call.
func lastLineSaysNext(t *testing.T, res *mcp.CallToolResult, next *paging.Call) {
	t.Helper()
	text := textOf(res)
	if next == nil {
		if strings.Contains(text, "Next part:") {
			t.Fatalf("the text says there is a next part but _meta has none:\n%s", text)
		}
		return
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "[partial reply] Next part: call "+next.Tool+" with {") {
		t.Fatalf("the last line does not say the next call: %q", last)
	}
}

// drainListFiles follows list_files' next calls to the end and returns
// every entry and the number of calls.
func drainListFiles(t *testing.T, h *harness, a map[string]any) ([]fileEntry, []listFilesOut) {
	t.Helper()
	var all []fileEntry
	var pages []listFilesOut
	for call := 0; ; call++ {
		if call > 1000 {
			t.Fatal("more than 1,000 pages")
		}
		var out listFilesOut
		res := callInto(t, h, "list_files", a, &out)
		next := nextOf(t, res)
		lastLineSaysNext(t, res, next)
		all = append(all, out.Entries...)
		pages = append(pages, out)
		if next == nil {
			if out.NextOffset != nil {
				t.Fatalf("page %d: nextOffset %d but no next call", call, *out.NextOffset)
			}
			return all, pages
		}
		if next.Tool != "list_files" {
			t.Fatalf("next call of %s", next.Tool)
		}
		a = next.Arguments
	}
}

func entriesText(es []fileEntry) string {
	var b strings.Builder
	for _, e := range es {
		data, _ := json.Marshal(e)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

func sameEntries(t *testing.T, what string, got, want []fileEntry) {
	t.Helper()
	if g, w := entriesText(got), entriesText(want); g != w {
		t.Fatalf("%s: list_files differs from git ls-tree (less secrets):\n%s", what, lineDiff(w, g))
	}
}

func TestListFilesRecursiveEqualsGit(t *testing.T) {
	r, commit := treeRepo(t)
	h := serve(t, r)
	want := gitTree(t, r, commit, "", true)
	for _, limit := range []int{25, 200, 2000} {
		got, pages := drainListFiles(t, h, args("recursive", true, "limit", limit))
		sameEntries(t, fmt.Sprintf("limit %d", limit), got, want)
		if wantPages := (len(want) + limit - 1) / limit; len(pages) < wantPages {
			t.Fatalf("limit %d: %d pages, want at least %d", limit, len(pages), wantPages)
		}
		if last := pages[len(pages)-1]; last.Total == nil || *last.Total != len(want) {
			t.Fatalf("limit %d: the last page's total is %v, want %d", limit, last.Total, len(want))
		}
	}
	// Under a directory, and the secrets are never there.
	got, _ := drainListFiles(t, h, args("path", "keys", "recursive", true))
	sameEntries(t, "keys/", got, gitTree(t, r, commit, "keys", true))
	all, _ := drainListFiles(t, h, args("recursive", true, "limit", 2000))
	for _, e := range all {
		for _, secret := range []string{".env", "config/.env.local", "keys/id_rsa", ".aws/credentials"} {
			if e.Path == secret {
				t.Fatalf("the secret %s is listed", secret)
			}
		}
	}
	// A small reply limit cuts pages by size: still every entry, once.
	small := serve(t, r, withMaxBytes(MinMaxBytes))
	got, pages := drainListFiles(t, small, args("recursive", true, "limit", 2000))
	sameEntries(t, "small replies", got, want)
	if len(pages) < 3 {
		t.Fatalf("%d pages under a %d-byte limit", len(pages), MinMaxBytes)
	}
}

func TestListFilesRootWithDirCounts(t *testing.T) {
	r, commit := treeRepo(t)
	h := serve(t, r)
	want := gitTree(t, r, commit, "", false)
	got, pages := drainListFiles(t, h, args())
	sameEntries(t, "root", got, want)
	if len(pages) != 1 || pages[0].Total == nil || *pages[0].Total != len(want) {
		t.Fatalf("root: %d pages, total %v; want one page of %d", len(pages), pages[0].Total, len(want))
	}

	text := serve(t, r, withTextOnly()).ok("list_files", args())
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	header := fmt.Sprintf("acme/widgets at %s (HEAD, not the work tree): / — %d entries", commit[:12], len(want))
	if lines[0] != header {
		t.Fatalf("header %q, want %q", lines[0], header)
	}
	for _, line := range []string{
		"dir   src/ (3 entries)",
		"dir   keys/ (1 entry)",
		"dir   many/ (600 entries)",
		"file  README.md 10 bytes",
		"link  link-to-main",
		"submodule sublib (commit abababababab)",
		"dir   config/ (0 entries)", // it holds only a secret
	} {
		if !slices.Contains(lines, line) {
			t.Errorf("no line %q in:\n%s", line, text)
		}
	}
	for _, hidden := range []string{".env", ".aws"} {
		if strings.Contains(text, hidden) {
			t.Errorf("the listing shows %s:\n%s", hidden, text)
		}
	}
	// Sizes with thousands separators.
	manyText := serve(t, r, withTextOnly()).ok("list_files", args("path", "many", "offset", 599))
	if !strings.Contains(manyText, "file  many/f599.txt 599 bytes") {
		t.Fatalf("many/f599.txt: %s", manyText)
	}
}

func TestListFilesNames(t *testing.T) {
	r, commit := treeRepo(t)
	h := serve(t, r, withTextOnly())
	text := h.ok("list_files", args("path", "docs"))
	for _, line := range []string{
		"file  docs/with space.md 7 bytes",
		"file  docs/naïve ünïcode.txt 8 bytes",
		`file  "docs/odd\nname.txt" 8 bytes`,
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("no line %q in:\n%s", line, text)
		}
	}
	hs := serve(t, r)
	got, _ := drainListFiles(t, hs, args("path", "docs"))
	sameEntries(t, "docs/", got, gitTree(t, r, commit, "docs", false))
	// A directory named with a space and unicode can be listed by its name.
	r2 := testrepo.New(t)
	r2.Write("dír with space/a b.txt", "x\n")
	c2 := r2.Commit("names")
	got, _ = drainListFiles(t, serve(t, r2), args("path", "dír with space"))
	sameEntries(t, "dír with space/", got, gitTree(t, r2, c2, "dír with space", false))
}

// The paths git selects with the globs' pathspecs (globs.Translate),
// less secrets: the oracle for glob.
func gitGlob(t *testing.T, r *testrepo.Repo, commit string, patterns ...string) []string {
	t.Helper()
	a := []string{"ls-tree", "-r", "-z", "--name-only", "--full-tree", commit}
	all := strings.Split(strings.TrimSuffix(r.Git(a...), "\x00"), "\x00")
	// git ls-tree takes no glob magic: ask git ls-files on an index of
	// the commit (the work tree's index is that commit's here).
	sel := map[string]bool{}
	lsArgs := []string{"ls-files", "-z", "--"}
	for _, b := range globs.TranslateAll(patterns) {
		lsArgs = append(lsArgs, ":(glob)"+b)
	}
	for _, p := range strings.Split(strings.TrimSuffix(r.Git(lsArgs...), "\x00"), "\x00") {
		sel[p] = true
	}
	policy := mustPolicy(nil)
	var out []string
	for _, p := range all {
		if sel[p] && !policy.Denied(p) {
			out = append(out, p)
		}
	}
	return out
}

func entryPaths(es []fileEntry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Path)
	}
	return out
}

func TestListFilesGlob(t *testing.T) {
	r, commit := treeRepo(t)
	h := serve(t, r)
	for _, c := range []struct {
		globs []string
		path  string
		want  []string // also checked against git
	}{
		{[]string{"*.c"}, "", []string{"lib/reftable/reftable-block.c", "reftable.c", "src/sub/x.c", "xdiff/xutils.c"}},
		{[]string{"src/*.go"}, "", []string{"src/main.go", "src/util.go"}},
		{[]string{"**/reftable*.c"}, "", []string{"lib/reftable/reftable-block.c", "reftable.c"}},
		{[]string{"/reftable*.c"}, "", []string{"reftable.c"}},
		{[]string{"*.go"}, "src/sub", []string{"src/sub/deep.go"}},
		{[]string{"docs/"}, "", nil},
		{[]string{"*.h", "*.sh"}, "", []string{"lib/reftable/block.h", "scripts/run.sh"}},
		{[]string{"id_rsa*", ".env"}, "", []string{"keys/id_rsa.pub"}},
		// Classes, "?" (one byte, as git has it) and directories, against git only.
		{[]string{"[!r]*.c"}, "", nil},
		{[]string{"**/*.[ch]"}, "", nil},
		{[]string{"?diff/"}, "", nil},
		{[]string{"docs/na?ve*", "docs/*[[:space:]]*"}, "", nil},
		{[]string{"lib"}, "", nil},
	} {
		got, _ := drainListFiles(t, h, args("pathGlobs", c.globs, "path", c.path, "limit", 3))
		oracle := gitGlob(t, r, commit, c.globs...)
		if c.path != "" {
			oracle = slices.DeleteFunc(oracle, func(p string) bool { return !strings.HasPrefix(p, c.path+"/") })
		}
		if !slices.Equal(entryPaths(got), oracle) {
			t.Errorf("glob %q under %q: list_files %q, git %q", c.globs, c.path, entryPaths(got), oracle)
		}
		if c.want != nil && !slices.Equal(entryPaths(got), c.want) {
			t.Errorf("glob %q under %q: list_files %q, want %q", c.globs, c.path, entryPaths(got), c.want)
		}
	}
	// A glob that matches nothing says so.
	text := serve(t, r, withTextOnly()).ok("list_files", args("pathGlobs", []string{"*.rs"}))
	if !strings.Contains(text, "— 0 entries") || !strings.Contains(text, "[pathGlobs matched no path under /") {
		t.Fatalf("a glob matching nothing:\n%s", text)
	}
}

func TestListFilesPagesA600EntryDirectory(t *testing.T) {
	r, commit := treeRepo(t)
	h := serve(t, r)
	want := gitTree(t, r, commit, "many", false)
	if len(want) != 600 {
		t.Fatalf("fixture: %d entries", len(want))
	}
	got, pages := drainListFiles(t, h, args("path", "many"))
	sameEntries(t, "many/", got, want)
	if len(pages) != 3 {
		t.Fatalf("%d pages of the default 200, want 3", len(pages))
	}
	text := serve(t, r, withTextOnly()).ok("list_files", args("path", "many", "offset", 200))
	if first := strings.SplitN(text, "\n", 2)[0]; !strings.HasSuffix(first, "many/ — 600 entries; entries 201–400 of 600 shown") {
		t.Fatalf("header %q", first)
	}
	// The next call pins the commit: a branch that moves between pages
	// does not shift them.
	var first listFilesOut
	res := callInto(t, h, "list_files", args("path", "many", "limit", 250), &first)
	next := nextOf(t, res)
	r.Write("many/a-new-first.txt", "new\n")
	r.Commit("move main")
	var second listFilesOut
	callInto(t, h, "list_files", next.Arguments, &second)
	if second.Ref != commit || second.Entries[0].Path != "many/f250.txt" {
		t.Fatalf("after main moved, the next page is at %s from %s", second.Ref, second.Entries[0].Path)
	}
	// Offset past the end.
	var past listFilesOut
	res = callInto(t, h, "list_files", args("path", "many", "offset", 900, "ref", commit), &past)
	if len(past.Entries) != 0 || past.NextOffset != nil || nextOf(t, res) != nil || !strings.Contains(textOf(res), "offset 900 is past the last of 600 entries; call list_files again without offset for the first") {
		t.Fatalf("offset past the end: %s", textOf(res))
	}
}

// A recursive listing stops reading the tree after its page.
func TestListFilesRecursiveStopsAfterThePage(t *testing.T) {
	r, _ := treeRepo(t)
	h := serve(t, r, withTextOnly())
	text := h.ok("list_files", args("recursive", true, "limit", 5))
	if first := strings.SplitN(text, "\n", 2)[0]; !strings.HasSuffix(first, "recursively — entries 1–5 shown; more follow") {
		t.Fatalf("header %q", first)
	}
}

// gitBlame is `git blame --porcelain -L start,end` of path at commit: each
// line's commit and its line number there.
func gitBlame(t *testing.T, r *testrepo.Repo, commit, path string, start, end int) []string {
	t.Helper()
	out := r.Git("blame", "--porcelain", "-L", fmt.Sprintf("%d,%d", start, end), commit, "--", path)
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && len(f[0]) == 40 && !strings.HasPrefix(l, "\t") {
			if _, err := strconv.Atoi(f[1]); err == nil {
				lines = append(lines, f[0]+" "+f[1])
			}
		}
	}
	return lines
}

func blamed(out blameOut) []string {
	var lines []string
	for _, l := range out.Lines {
		lines = append(lines, l.Commit+" "+strconv.Itoa(l.OrigLine))
	}
	return lines
}

// blameRepo: story.txt written over four commits (lines added, edited,
// moved by an insertion above them), then renamed to tale.txt and edited;
// long.txt of 1,200 lines edited in three commits.
func blameRepo(t *testing.T) (*testrepo.Repo, string) {
	t.Helper()
	r := testrepo.New(t)
	r.Write("story.txt", numberedLines(20))
	r.Write("long.txt", numberedLines(1200))
	r.Commit("first")
	story := strings.Replace(numberedLines(20), "line 5\n", "line five\n", 1)
	r.Write("story.txt", "a new first line\n"+story)
	r.Commit("second: line five, a line above")
	long := strings.Split(numberedLines(1200), "\n")
	for i := 100; i < 1200; i += 150 {
		long[i] = "edited " + long[i]
	}
	r.Write("long.txt", strings.Join(long, "\n"))
	r.Commit("third: long edited")
	r.Git("mv", "story.txt", "tale.txt")
	r.Commit("rename")
	r.Write("tale.txt", "a new first line\n"+strings.Replace(story, "line 12\n", "line twelve\n", 1))
	for i := 700; i < 1200; i += 90 {
		long[i] = "again " + long[i]
	}
	r.Write("long.txt", strings.Join(long, "\n"))
	r.Commit("fourth: twelve, long again")
	return r, r.Head()
}

func TestBlameEqualsGit(t *testing.T) {
	r, commit := blameRepo(t)
	h := serve(t, r)
	for _, c := range []struct {
		path       string
		start, end int
	}{
		{"tale.txt", 1, 21}, {"tale.txt", 3, 14}, {"tale.txt", 21, 21}, {"long.txt", 90, 320},
	} {
		var out blameOut
		res := callInto(t, h, "blame", args("path", c.path, "start_line", c.start, "end_line", c.end), &out)
		if nextOf(t, res) != nil {
			t.Fatalf("%s %d-%d: a next call", c.path, c.start, c.end)
		}
		if got, want := blamed(out), gitBlame(t, r, commit, c.path, c.start, c.end); !slices.Equal(got, want) {
			t.Fatalf("%s %d-%d: blame differs from git's:\n%s", c.path, c.start, c.end, lineDiff(strings.Join(want, "\n"), strings.Join(got, "\n")))
		}
		if out.StartLine != c.start || out.EndLine != c.end || out.Ref != commit {
			t.Fatalf("%s: lines %d-%d at %s", c.path, out.StartLine, out.EndLine, out.Ref)
		}
		for i, l := range out.Lines {
			if l.Line != c.start+i {
				t.Fatalf("line %d numbered %d", c.start+i, l.Line)
			}
		}
		// Each commit once, with its summary and author.
		seen := map[string]bool{}
		for _, cm := range out.Commits {
			if seen[cm.SHA] || cm.Author.Name != "Test Author" || cm.Summary == "" || cm.Author.Date == "" {
				t.Fatalf("commits: %+v", out.Commits)
			}
			seen[cm.SHA] = true
		}
	}
	// A renamed file's lines from before the rename say the old path.
	var out blameOut
	callInto(t, h, "blame", args("path", "tale.txt", "start_line", 1, "end_line", 3), &out)
	if out.Lines[1].OrigPath != "story.txt" || out.Lines[0].OrigPath != "story.txt" {
		t.Fatalf("lines from before the rename: %+v", out.Lines[:2])
	}
	// The text: each line's number, commit (12), line there and text; the
	// commits once.
	text := serve(t, r, withTextOnly()).ok("blame", args("path", "tale.txt", "start_line", 12, "end_line", 13))
	first := strings.TrimSpace(r.Git("rev-list", "--max-parents=0", "HEAD"))
	wantLines := []string{
		fmt.Sprintf("acme/widgets at %s (HEAD): blame of tale.txt, lines 12–13 of 21, 2 commits;", commit[:12]),
		fmt.Sprintf("12 %s 11  line 11", first[:12]),
		fmt.Sprintf("13 %s 13  line twelve", commit[:12]),
		fmt.Sprintf("%s 2026-01-02 Test Author: first (file then at story.txt)", first[:12]),
		fmt.Sprintf("%s 2026-01-02 Test Author: fourth: twelve, long again", commit[:12]),
	}
	for _, w := range wantLines {
		if !strings.Contains(text, w) {
			t.Errorf("no %q in:\n%s", w, text)
		}
	}
}

func TestBlamePagedOver500Lines(t *testing.T) {
	r, commit := blameRepo(t)
	want := gitBlame(t, r, commit, "long.txt", 1, 1200)
	for _, h := range []*harness{serve(t, r), serve(t, r, withMaxBytes(MinMaxBytes))} {
		var got []string
		a := args("path", "long.txt")
		pages := 0
		for {
			pages++
			var out blameOut
			res := callInto(t, h, "blame", a, &out)
			next := nextOf(t, res)
			lastLineSaysNext(t, res, next)
			if len(out.Lines) > maxBlameLines || out.TotalLines != 1200 {
				t.Fatalf("a page of %d lines, total %d", len(out.Lines), out.TotalLines)
			}
			got = append(got, blamed(out)...)
			if next == nil {
				break
			}
			if next.Arguments["ref"] != commit {
				t.Fatalf("the next call does not pin the commit: %v", next.Arguments)
			}
			a = next.Arguments
		}
		if !slices.Equal(got, want) {
			t.Fatalf("drained blame differs from git's:\n%s", lineDiff(strings.Join(want, "\n"), strings.Join(got, "\n")))
		}
		if pages < 3 {
			t.Fatalf("%d pages for 1,200 lines", pages)
		}
	}
	// An explicit end past a page: the next call keeps it.
	var out blameOut
	res := callInto(t, serve(t, r), "blame", args("path", "long.txt", "start_line", 100, "end_line", 700), &out)
	next := nextOf(t, res)
	if out.EndLine > 599 || next == nil || next.Arguments["start_line"] != float64(out.EndLine+1) || next.Arguments["end_line"] != float64(700) {
		t.Fatalf("lines %d-%d, next %v", out.StartLine, out.EndLine, next)
	}
}

// Bad input: each a named case with its code; the repository is unchanged.
func TestListFilesAndBlameBadInput(t *testing.T) {
	r, _ := treeRepo(t)
	r.Write("story.txt", numberedLines(20))
	r.Write("empty.txt", "")
	r.Write("img.bin", "\x00\x01\x02")
	r.Git("add", "story.txt", "empty.txt", "img.bin") // not -A: the submodule has no work tree
	r.Git("commit", "-q", "-m", "more")
	before := r.Snapshot()
	h := serve(t, r)
	missing := strings.Repeat("ab", 20)
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		code, says string
	}{
		{"list_files/ref-option", "list_files", args("ref", "--output=x"), "INVALID_REF", `starts with "-"`},
		{"list_files/dot-dot", "list_files", args("path", "src/../.."), "PATH_DENIED", `".." segment`},
		{"list_files/absolute", "list_files", args("path", "/etc"), "PATH_DENIED", "absolute"},
		{"list_files/file", "list_files", args("path", "README.md"), "INVALID_ARGUMENT", "is a file, not a directory"},
		{"list_files/symlink", "list_files", args("path", "link-to-main"), "INVALID_ARGUMENT", "is a symlink"},
		{"list_files/submodule", "list_files", args("path", "sublib"), "INVALID_ARGUMENT", "is a submodule"},
		{"list_files/secret", "list_files", args("path", ".aws"), "PATH_DENIED", "secrets policy"},
		{"list_files/secret-file", "list_files", args("path", ".env"), "PATH_DENIED", "secrets policy"},
		{"list_files/missing-dir", "list_files", args("path", "nope"), "NOT_FOUND", `"nope" does not exist`},
		{"list_files/missing-commit", "list_files", args("ref", missing), "INVALID_REF", "does not name a commit"},
		{"list_files/glob-10000", "list_files", args("pathGlobs", []string{strings.Repeat("a", 10000)}), "INVALID_ARGUMENT", "pathGlobs[0] is 10000 bytes long"},
		{"list_files/glob-unclosed", "list_files", args("pathGlobs", []string{"src/[ab.go"}), "INVALID_ARGUMENT", `pathGlobs[0] "src/[ab.go" can match no file`},
		{"list_files/glob-dot-dot", "list_files", args("pathGlobs", []string{"../*.c"}), "PATH_DENIED", `".." segment`},
		{"list_files/glob-too-wild", "list_files", args("pathGlobs", []string{"*a*b*c"}), "INVALID_ARGUMENT", "pathGlobs[0]"},
		{"list_files/limit-over-max", "list_files", args("limit", 2001), "INVALID_ARGUMENT", "at most 2000"},
		{"list_files/cursor-edited", "list_files", args("cursor", "eyJ0IjoibGlzdF9maWxlcyJ9.AAAA"), "INVALID_ARGUMENT", "cursor"},
		{"blame/ref-option", "blame", args("path", "story.txt", "ref", "-p"), "INVALID_REF", `starts with "-"`},
		{"blame/dot-dot", "blame", args("path", "../story.txt"), "PATH_DENIED", `".." segment`},
		{"blame/outside", "blame", args("path", "/etc/passwd"), "PATH_DENIED", "absolute"},
		{"blame/past-the-end", "blame", args("path", "story.txt", "start_line", 21), "INVALID_ARGUMENT", "which has 20 lines"},
		{"blame/inverted", "blame", args("path", "story.txt", "start_line", 10, "end_line", 5), "INVALID_ARGUMENT", "has 20 lines"},
		{"blame/empty-file", "blame", args("path", "empty.txt"), "INVALID_ARGUMENT", "is empty"},
		{"blame/binary", "blame", args("path", "img.bin"), "INVALID_ARGUMENT", "binary"},
		{"blame/directory", "blame", args("path", "src"), "INVALID_ARGUMENT", "is a directory"},
		{"blame/submodule", "blame", args("path", "sublib"), "INVALID_ARGUMENT", "submodule"},
		{"blame/secret", "blame", args("path", "keys/id_rsa"), "PATH_DENIED", "secrets policy"},
		{"blame/missing-file", "blame", args("path", "nope.txt"), "NOT_FOUND", "does not exist"},
		{"blame/missing-commit", "blame", args("path", "story.txt", "ref", missing), "INVALID_REF", "does not name a commit"},
		{"blame/no-path", "blame", args(), "INVALID_ARGUMENT", "path is required"},
		{"blame/start-zero", "blame", args("path", "story.txt", "start_line", 0), "INVALID_ARGUMENT", "start_line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := h.fails(c.tool, c.args, c.code)
			if !strings.Contains(msg, c.says) {
				t.Fatalf("%s: %q does not say %q", c.name, msg, c.says)
			}
			if strings.Contains(msg, "hunter2") || strings.Contains(msg, "PRIVATE") {
				t.Fatalf("a secret in %q", msg)
			}
		})
	}
	if after := r.Snapshot(); after != before {
		t.Fatal("the repository changed")
	}
}

// Both tools read a forge's mirrors and the repositories of a --root.
func TestListFilesAndBlameForgeAndRoot(t *testing.T) {
	f := forgetest.New(t)
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	var out listFilesOut
	callInto(t, h, "list_files", args("owner", "acme", "repo", "widgets", "ref", "topic"), &out)
	if got := entryPaths(out.Entries); !slices.Equal(got, []string{"README.md", "topic.txt"}) {
		t.Fatalf("forge: list_files %q", got)
	}
	var b blameOut
	callInto(t, h, "blame", args("owner", "acme", "repo", "widgets", "path", "README.md"), &b)
	if len(b.Lines) != 1 || b.Lines[0].Text != "hello" || b.Commits[0].Summary != "one" {
		t.Fatalf("forge: blame %+v", b)
	}

	root := t.TempDir()
	for _, name := range []string{"acme/gadgets", "acme/widgets"} {
		r := testrepo.Init(t, filepath.Join(root, filepath.FromSlash(name)))
		r.Write("src/"+strings.ReplaceAll(name, "/", "-")+".go", "package x\n")
		r.Commit("one")
	}
	rh := serveRootDir(t, root, repo.RootOptions{})
	callInto(t, rh, "list_files", args("owner", "acme", "repo", "gadgets", "recursive", true), &out)
	if got := entryPaths(out.Entries); !slices.Equal(got, []string{"src/acme-gadgets.go"}) {
		t.Fatalf("root: list_files %q", got)
	}
	callInto(t, rh, "blame", args("owner", "acme", "repo", "widgets", "path", "src/acme-widgets.go"), &b)
	if len(b.Lines) != 1 || b.Lines[0].Text != "package x" {
		t.Fatalf("root: blame %+v", b)
	}
	rh.fails("list_files", args("recursive", true), "INVALID_ARGUMENT")
}

// A list_files cursor whose commit was pruned (branch deleted, reflogs
// expired, gc) is NOT_FOUND, naming the commit and saying to start again;
// with the commit loose or packed, on the server's first call after gc
// and the next.
func TestListFilesCursorCommitGone(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", packed), func(t *testing.T) {
			r := testrepo.New(t)
			r.Write("a.txt", "a\n")
			r.Commit("base")
			r.Git("checkout", "-q", "-b", "gone")
			for i := range 5 {
				r.Write(fmt.Sprintf("gone/f%d.txt", i), "soon gone\n")
			}
			gone := r.Commit("gone")
			r.Git("checkout", "-q", "main")
			if packed {
				r.Git("gc", "-q")
			}
			h := serve(t, r, withTextOnly())
			res := h.call("list_files", args("ref", "gone", "path", "gone", "limit", 2))
			next := nextOf(t, res)
			if res.IsError || next == nil {
				t.Fatalf("first page: %s", textOf(res))
			}
			h.ok("list_files", next.Arguments) // the cursor works while its commit exists
			r.Git("branch", "-q", "-D", "gone")
			r.Git("reflog", "expire", "--expire=now", "--all")
			r.Git("gc", "-q", "--prune=now")
			if _, err := r.TryGit("cat-file", "-e", gone); err == nil {
				t.Fatalf("control: git still has %s after gc", gone)
			}
			for try := 1; try <= 2; try++ {
				msg := h.fails("list_files", next.Arguments, "NOT_FOUND")
				if !strings.Contains(msg, "start again") || !strings.Contains(msg, "cursor") || !strings.Contains(msg, gone[:12]) {
					t.Errorf("call %d: %q does not name the commit and say to leave cursor out and start again", try, msg)
				}
			}
		})
	}
}
