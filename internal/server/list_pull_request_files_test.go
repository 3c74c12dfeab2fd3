package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// changedFiles are the files of a reply, as every file list says them.
func (o listPullRequestFilesOut) changedFiles() []changedFile {
	files := make([]changedFile, len(o.Files))
	for i, f := range o.Files {
		files[i] = f.changedFile
	}
	return files
}

// gitSections splits a patch as git printed it at its "diff --git " lines:
// each file's section, in git's order, a type change's two sections as one
// (a deletion and an addition of the same path, one after the other).
func gitSections(patch string) []string {
	var sections []string
	var lastPath string
	var lastDeleted bool
	for _, s := range regexp.MustCompile(`(?m)^diff --git `).Split(patch, -1)[1:] {
		s = "diff --git " + s
		path := strings.Fields(strings.SplitN(s, "\n", 2)[0])[3]
		if lastDeleted && path == lastPath && strings.Contains(s, "\nnew file mode ") {
			sections[len(sections)-1] += s
			lastDeleted = false
			continue
		}
		sections = append(sections, s)
		lastPath, lastDeleted = path, strings.Contains(s, "\ndeleted file mode ")
	}
	return sections
}

// Each file's patchBytes is the size of its section in git's own patch of
// the pull request (renames, a binary file, a type change), a hidden
// file's is null, and patchBytes of the whole is the size of git's patch
// (git diff -M merge-base head | wc -c), on every page alike.
func TestListPullRequestFilesPatchBytes(t *testing.T) {
	r := testrepo.New(t)
	var body strings.Builder
	for i := range 40 {
		fmt.Fprintf(&body, "line %d of a file that is renamed\n", i)
	}
	r.Write("a.txt", "one\n")
	r.Write("pure/old.txt", body.String())
	r.Write("most/old.txt", body.String())
	r.Write("img.bin", "\x00\x01\x02 first")
	r.Write(".env", "TOKEN=old\n")
	r.Write("link", "a file, then a symlink\n")
	base := r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write("a.txt", "two\n")
	r.Git("mv", "pure/old.txt", "pure/new.txt")
	r.Git("mv", "most/old.txt", "most/new.txt")
	r.Write("most/new.txt", strings.Replace(body.String(), "line 7 ", "LINE 7 ", 1))
	r.Write("img.bin", "\x00\x01\x02 second")
	r.Write(".env", "TOKEN=new\n")
	r.Git("rm", "-q", "link")
	r.Symlink("a.txt", "link")
	r.Write("added.txt", "new\n")
	head := r.Commit("pr")
	r.Git("update-ref", "refs/pull/1/head", head)
	r.Git("checkout", "-q", "main")

	patch := r.Git("diff", "-M", base, head)
	sections := gitSections(patch)
	h := serve(t, r)
	var all listPullRequestFilesOut
	text := h.structured("list_pull_request_files", prArgs(1), &all)
	if all.TotalCount != len(sections) || len(all.Files) != len(sections) {
		t.Fatalf("%d files listed, %d in all; git's patch has %d:\n%s", len(all.Files), all.TotalCount, len(sections), patch)
	}
	// The total is git's, the hidden .env's section not counted (its
	// size would tell what its patch is).
	shown := len(patch)
	for _, sec := range sections {
		if strings.HasPrefix(sec, "diff --git a/.env ") {
			shown -= len(sec)
		}
	}
	if all.PatchBytes == nil || *all.PatchBytes != int64(shown) {
		t.Fatalf("patchBytes %v; git diff -M prints %d bytes, %d of them not hidden", all.PatchBytes, len(patch), shown)
	}
	if want := fmt.Sprintf(" %d files changed, %d bytes of patch (", len(sections), shown); !strings.Contains(strings.SplitN(text, "\n", 2)[0], want) {
		t.Fatalf("the first line does not say %q:\n%s", want, text)
	}
	kinds := map[string]bool{}
	for i, f := range all.Files {
		if f.Path == ".env" {
			if f.PatchBytes != nil {
				t.Errorf(".env, hidden, has its patch's size told: %d", *f.PatchBytes)
			}
			kinds["hidden"] = true
			continue
		}
		if f.PatchBytes == nil || *f.PatchBytes != int64(len(sections[i])) {
			t.Errorf("%s: patchBytes %v, its section in git's patch is %d bytes:\n%s", f.Path, f.PatchBytes, len(sections[i]), sections[i])
		}
		if !strings.Contains(text, fmt.Sprintf(" %d bytes %s", len(sections[i]), f.Path)) {
			t.Errorf("the text does not give %s's size:\n%s", f.Path, text)
		}
		// What the tag promises: get_pull_request_diff with file_path
		// returns exactly that section.
		if got := h.ok("get_pull_request_diff", prArgs(1, "file_path", f.Path)); len(got) != len(sections[i]) {
			t.Errorf("%s: get_pull_request_diff file_path gives %d bytes, patchBytes %d", f.Path, len(got), len(sections[i]))
		}
		kinds[f.Status] = true
		if f.IsBinary != nil && *f.IsBinary {
			kinds["binary"] = true
		}
	}
	for _, k := range []string{"hidden", "renamed", "binary", "type_changed", "added"} {
		if !kinds[k] {
			t.Errorf("the fixture has no %s file: %+v", k, all.Files)
		}
	}
	// Page by page (the cursor carries the total), each file's size is the
	// same, and the offset goes on where the last page stopped.
	a := prArgs(1, "limit", 2)
	var got []pullFile
	for calls := 0; a != nil; calls++ {
		if calls > len(sections) {
			t.Fatal("too many pages")
		}
		var page listPullRequestFilesOut
		res := h.call("list_pull_request_files", a)
		h.structured("list_pull_request_files", a, &page)
		if page.Offset != len(got) || *page.PatchBytes != *all.PatchBytes {
			t.Fatalf("page at offset %d after %d files, total %d", page.Offset, len(got), *page.PatchBytes)
		}
		got = append(got, page.Files...)
		a = nil
		if n := nextOf(t, res); n != nil {
			a = n.Arguments
		}
	}
	for i := range got {
		if fmt.Sprint(got[i].PatchBytes) != fmt.Sprint(all.Files[i].PatchBytes) && (got[i].PatchBytes == nil || *got[i].PatchBytes != *all.Files[i].PatchBytes) {
			t.Errorf("%s: %v by pages, %v at once", got[i].Path, got[i].PatchBytes, all.Files[i].PatchBytes)
		}
	}
}

// page and offset: page p is offset (p-1)×limit; given both, they must
// agree; the next call goes on by offset.
func TestListPullRequestFilesPageAndOffset(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)
	var all, byPage, byOffset, both listPullRequestFilesOut
	h.structured("list_pull_request_files", prArgs(7), &all)
	h.structured("list_pull_request_files", prArgs(7, "page", 2, "limit", 3), &byPage)
	h.structured("list_pull_request_files", prArgs(7, "offset", 3, "limit", 3), &byOffset)
	h.structured("list_pull_request_files", prArgs(7, "page", 2, "offset", 3, "limit", 3), &both)
	for _, p := range []listPullRequestFilesOut{byPage, byOffset, both} {
		if p.Offset != 3 || len(p.Files) == 0 || p.Files[0].Path != all.Files[3].Path {
			t.Fatalf("offset %d, first %+v; want %s at offset 3", p.Offset, p.Files, all.Files[3].Path)
		}
	}
	msg := h.fails("list_pull_request_files", prArgs(7, "page", 2, "offset", 4, "limit", 3), "INVALID_ARGUMENT")
	if !strings.Contains(msg, "starts at offset 3, but offset is 4") {
		t.Fatalf("page and offset that disagree: %q", msg)
	}
	// An offset that is no page's start.
	var odd listPullRequestFilesOut
	res := h.call("list_pull_request_files", prArgs(7, "offset", 1, "limit", 2))
	h.structured("list_pull_request_files", prArgs(7, "offset", 1, "limit", 2), &odd)
	if n := nextOf(t, res); odd.Files[0].Path != all.Files[1].Path || n == nil || n.Arguments["offset"] != float64(3) || n.Arguments["page"] != nil {
		t.Fatalf("offset 1: %+v, next %+v", odd.Files, n)
	}
}

// The target: the 3,550 files of a large pull request, listed
// with limit=5000 at the default reply limit, in at most 5 calls, each
// reply cut to fit and the next call going on from there.
func TestListPullRequestFiles3550FilesInFiveCalls(t *testing.T) {
	r := testrepo.New(t)
	r.Write("README", "a large change follows\n")
	base := r.Commit("base")
	const files = 3550
	var stream strings.Builder
	fmt.Fprintf(&stream, "blob\nmark :1\ndata 8\ncontent\n\ncommit refs/pull/1/head\nmark :2\ncommitter Ann Author <ann@example.com> 1700000000 +0000\ndata 6\nlarge\nfrom %s\n", base)
	for i := range files {
		fmt.Fprintf(&stream, "M 100644 :1 src/module-%02d/component/file-%04d.c\n", i/50, i)
	}
	stream.WriteString("\n")
	r.GitInput(stream.String(), "fast-import", "--quiet")
	h := serve(t, r, withTextOnly())
	ctx := context.Background()
	rr, _, opts, err := h.server.pullRequest(ctx, "acme", "widgets", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	calls := 0
	for a := prArgs(1, "limit", 5000); a != nil; calls++ {
		if calls > 10 {
			t.Fatal("more than 10 calls")
		}
		// Only the files a reply can hold are counted and measured: a
		// bound above what the reply lists, well under what is left.
		measured, _, err := rr.Git.ChangedFilesPageFit(ctx, opts, len(seen), 5000, h.server.fitsOneReply(ctx))
		if err != nil {
			t.Fatal(err)
		}
		bound := len(measured)
		res := h.call("list_pull_request_files", a)
		if res.IsError {
			t.Fatalf("call %d: %s", calls, textOf(res))
		}
		before := len(seen)
		for _, line := range strings.Split(textOf(res), "\n") {
			if f := strings.Fields(line); len(f) == 6 && f[0] == "added" {
				seen[f[5]] = true
			}
		}
		if listed, left := len(seen)-before, files-before; listed > bound || (left > 2*listed && bound > 2*listed) {
			t.Errorf("call %d lists %d of the %d files left, and %d were measured", calls+1, listed, left, bound)
		}
		a = nil
		if n := nextOf(t, res); n != nil {
			a = n.Arguments
		}
	}
	t.Logf("%d files in %d calls", len(seen), calls)
	if len(seen) != files || calls > 5 {
		t.Fatalf("%d of the %d files in %d calls; want all in at most 5", len(seen), files, calls)
	}
}

// In forge mode, the forge pages its file list by its own page size (here
// 30, under the 50 asked for): each reply holds the files of one forge
// page from the offset on, and the next calls, by offset, list every file
// once, in order; an offset inside a forge page starts there. Sizes are
// those of the forge's own patch (its .diff), matched by path.
func TestListPullRequestFilesForgePagesByOffset(t *testing.T) {
	f := forgetest.New(t)
	const files, forgePage = 95, 30
	p := newFakePull("")
	// The forge's patch: its sections in another order than its list, and
	// .env, which the secrets policy hides.
	var patch strings.Builder
	section := func(i int) string {
		return fmt.Sprintf("diff --git a/f%03d.txt b/f%03d.txt\nnew file mode 100644\nindex 0000000..%07d\n--- /dev/null\n+++ b/f%03d.txt\n@@ -0,0 +1 @@\n+%s\n", i, i, i, i, strings.Repeat("x", i))
	}
	for i := files - 1; i >= 0; i-- {
		patch.WriteString(section(i))
	}
	shown := int64(patch.Len()) // the total, the hidden .env's section not counted
	patch.WriteString("diff --git a/.env b/.env\nindex 1111111..2222222 100644\n--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-TOKEN=old\n+TOKEN=new\n")
	f.API = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/repos/acme/widgets/pulls/3.diff" {
			io.WriteString(w, patch.String())
			return
		}
		if r.URL.Path != "/api/v1/repos/acme/widgets/pulls/3/files" {
			p.serve(w, r)
			return
		}
		page, limit := 1, 10
		fmt.Sscan(r.URL.Query().Get("page"), &page)
		fmt.Sscan(r.URL.Query().Get("limit"), &limit)
		limit = min(limit, forgePage)
		list := []map[string]any{}
		for i := (page - 1) * limit; i < min(page*limit, files); i++ {
			list = append(list, map[string]any{"filename": fmt.Sprintf("f%03d.txt", i), "status": "added", "additions": 1, "deletions": 0})
		}
		w.Header().Set("X-Total-Count", fmt.Sprint(files))
		json.NewEncoder(w).Encode(list)
	}
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	var names []string
	a := args("owner", "acme", "repo", "widgets", "index", 3, "limit", 5000)
	for calls := 0; a != nil; calls++ {
		if calls > 10 {
			t.Fatal("more than 10 calls")
		}
		var out listPullRequestFilesOut
		h.structured("list_pull_request_files", a, &out)
		if out.Offset != len(names) || out.TotalCount != files || out.PatchBytes == nil || *out.PatchBytes != shown || len(out.Files) > forgePage {
			t.Fatalf("call %d: offset %d after %d files, total %d, patchBytes %v, %d files", calls, out.Offset, len(names), out.TotalCount, out.PatchBytes, len(out.Files))
		}
		for _, f := range out.Files {
			names = append(names, f.Path)
			var i int
			fmt.Sscanf(f.Path, "f%03d.txt", &i)
			if f.PatchBytes == nil || *f.PatchBytes != int64(len(section(i))) {
				t.Fatalf("%s: patchBytes %v, its section in the forge's patch is %d bytes", f.Path, f.PatchBytes, len(section(i)))
			}
		}
		a = nil
		if out.Next != nil {
			a = out.Next.Arguments
		}
	}
	for i, n := range names {
		if n != fmt.Sprintf("f%03d.txt", i) {
			t.Fatalf("file %d is %s: %v", i, n, names)
		}
	}
	if len(names) != files {
		t.Fatalf("%d of %d files", len(names), files)
	}
	var odd listPullRequestFilesOut
	h.structured("list_pull_request_files", args("owner", "acme", "repo", "widgets", "index", 3, "offset", 40, "limit", 50), &odd)
	if len(odd.Files) == 0 || odd.Files[0].Path != "f040.txt" || *odd.NextOffset != 40+len(odd.Files) {
		t.Fatalf("offset 40: %+v", odd)
	}
}
