package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// renamePR is a repository whose pull request #1 changes n files, pct of
// them renames: renames with and without content changes, one with a
// mode change, a binary file, a file whose name git quotes; the rest are
// edits, an addition, a deletion and a mode change alone.
type renamePR struct {
	*testrepo.Repo
	mergeBase, head string
}

func newRenamePR(t *testing.T, n, pct int) *renamePR {
	t.Helper()
	r := testrepo.New(t)
	body := func(i int) string {
		var b strings.Builder
		for l := range 12 {
			fmt.Fprintf(&b, "file %d, line %d of a file long enough to be found as renamed\n", i, l)
		}
		return b.String()
	}
	name := func(i int) string {
		switch i {
		case 1:
			return "quoted/na\"me\twith tab.txt"
		case 2:
			return "bin/blob.bin"
		}
		return fmt.Sprintf("src/d%d/file%03d.c", i%7, i)
	}
	content := func(i int) string {
		if i == 2 {
			return "\x00\x01binary\x02" + strconv.Itoa(i) + strings.Repeat("\x00x", 40)
		}
		return body(i)
	}
	renames := n * pct / 100
	for i := range n {
		r.Write(name(i), content(i))
	}
	r.Write("main-only.txt", "main\n")
	mb := r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	chmod := func(p string) {
		if err := os.Chmod(filepath.Join(r.Dir, filepath.FromSlash(p)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		switch {
		case i < renames:
			to := strings.Replace(name(i), "/", "/moved/", 1)
			r.Git("rm", "-q", name(i))
			switch {
			case i%5 == 3 || i == 2: // a rename with content changes
				r.Write(to, content(i)+"one more line\n")
			default:
				r.Write(to, content(i))
			}
			if i == 4 { // a rename with a mode change
				chmod(to)
			}
		case i == renames:
			r.Git("rm", "-q", name(i))
		case i == renames+1:
			chmod(name(i))
		default:
			r.Write(name(i), content(i)+"edited\n")
		}
	}
	if renames < n {
		r.Write("added.txt", "a new file\n")
	}
	r.Commit("renames")
	head := r.Head()
	r.Git("update-ref", "refs/pull/1/head", head)
	r.Git("checkout", "-q", "main")
	r.Write("main-only.txt", "main moved on\n")
	r.Commit("main moves on")
	return &renamePR{Repo: r, mergeBase: mb, head: head}
}

// serverDiff is git's patch as the server asks git for it (git.diffArgs):
// the oracle of totals.
func (r *renamePR) serverDiff(args ...string) string {
	return r.Git(append([]string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--submodule=short", "--ignore-submodules=none",
		"--src-prefix=a/", "--dst-prefix=b/", "--indent-heuristic", "-M", "-l5000"}, args...)...)
}

// firstLineBytes is the "N bytes of patch" of a part's first line.
func firstLineBytes(t *testing.T, text string) int {
	t.Helper()
	first, _, _ := strings.Cut(text, "\n")
	f := strings.Fields(strings.Split(first, " bytes of patch")[0])
	if !strings.Contains(first, " bytes of patch") || len(f) == 0 {
		t.Fatalf("no patch total in the first line: %q", first)
	}
	n, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		t.Fatalf("no patch total in the first line: %q", first)
	}
	return n
}

// drainStructured follows a paged call's next calls to the end with
// --structured, and returns each part's structured content.
func drainStructured(t *testing.T, h *harness, tool string, args map[string]any) []getDiffOut {
	t.Helper()
	var parts []getDiffOut
	for call := 0; ; call++ {
		if call > 2000 {
			t.Fatal("more than 2,000 parts")
		}
		var out getDiffOut
		res := h.call(tool, args)
		if res.IsError {
			t.Fatalf("part %d: %s", call, textOf(res))
		}
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, out)
		next := nextOf(t, res)
		if next == nil {
			return parts
		}
		args = next.Arguments
	}
}

// A pull request that renames 691 of its 710 files: every part's first
// line said 215,612 bytes of patch where git's patch, and the parts put
// together, were 270,003 (only the first 500 files' were counted). Every
// part of a pull request's diff, and of get_diff's, says git's own
// byte count of the whole patch, and the parts hold exactly that many
// bytes of it: renames (with and without content changes, with a mode
// change), a binary file and a file whose name git quotes included.
func TestDiffTotalsWithRenames(t *testing.T) {
	for _, pct := range []int{100, 95} {
		t.Run(fmt.Sprintf("%d%%", pct), func(t *testing.T) {
			r := newRenamePR(t, 700, pct)
			want := r.serverDiff(r.mergeBase, r.head)
			for _, must := range []string{"\nold mode 100644\nnew mode 100755\n", "\nsimilarity index 100%\n", "Binary files", "diff --git \"a/quoted/"} {
				if !strings.Contains(want, must) {
					t.Fatalf("fixture: the diff has no %q", must)
				}
			}
			text := serve(t, r.Repo, withMaxBytes(32<<10), withTextOnly())
			var parts []string
			args := prArgs(1)
			for call := 0; ; call++ {
				res := text.call("get_pull_request_diff", args)
				if res.IsError {
					t.Fatalf("part %d: %s", call, textOf(res))
				}
				if got := firstLineBytes(t, textOf(res)); got != len(want) {
					t.Fatalf("part %d says %d bytes of patch, git's patch is %d", call, got, len(want))
				}
				parts = append(parts, patchOf(textOf(res)))
				next := nextOf(t, res)
				if next == nil {
					break
				}
				args = next.Arguments
			}
			checkJoined(t, parts, want)

			h := serve(t, r.Repo, withMaxBytes(32<<10))
			var sum int64
			seen := map[string]int{}
			for i, part := range drainStructured(t, h, "get_diff", diffArgs("base", r.mergeBase, "head", r.head)) {
				if part.PatchBytes != int64(len(want)) {
					t.Fatalf("get_diff part %d says %d bytes of patch, git's patch is %d", i, part.PatchBytes, len(want))
				}
				for _, f := range part.Files {
					if f.PatchOmitted != nil && *f.PatchOmitted == "size_limit" {
						continue // a file of the parts after (seed 003)
					}
					if f.PatchBytes == nil {
						t.Fatalf("part %d: %s has no patchBytes", i, f.Path)
					}
					sum += *f.PatchBytes
					seen[f.Path]++
				}
			}
			if sum != int64(len(want)) || len(seen) != 700+btoi(pct < 100) {
				t.Fatalf("the parts hold %d bytes of %d files; git's patch is %d bytes", sum, len(seen), len(want))
			}
		})
	}
}

// A diff too large to count within the call's time says no total rather
// than a wrong one, and its parts still come whole.
func TestDiffTotalNotCountedInTime(t *testing.T) {
	defer func(was time.Duration) { paging.CountTime = was }(paging.CountTime)
	paging.CountTime = time.Nanosecond
	r := newRenamePR(t, 700, 95)
	h := serve(t, r.Repo, withMaxBytes(32<<10), withTextOnly())
	first := h.ok("get_pull_request_diff", prArgs(1))
	if line, _, _ := strings.Cut(first, "\n"); strings.Contains(line, "bytes of patch") {
		t.Fatalf("a total not counted is given: %s", line)
	}
	checkJoined(t, drain(t, h, "get_pull_request_diff", prArgs(1)), r.serverDiff(r.mergeBase, r.head))
}

// get_pull_request_diff's first line and list_pull_request_files' total
// are one count: #9 touches the hidden .env, whose section neither counts
// (list_pull_request_files said 231 bytes, get_pull_request_diff 120, and
// the difference told the size of the hidden file's patch).
func TestPullRequestTotalsAgree(t *testing.T) {
	r := newPRRepo(t)
	for _, index := range []int{7, 9} {
		var list listPullRequestFilesOut
		hs := serve(t, r.Repo)
		hs.structured("list_pull_request_files", prArgs(index), &list)
		// The diff that fits comes whole, without its header: a part of
		// it, at a small maxBytes, says the total.
		small := serve(t, r.Repo, withMaxBytes(MinMaxBytes), withTextOnly())
		var got int
		if text := small.ok("get_pull_request_diff", prArgs(index)); strings.HasPrefix(text, "diff --git ") {
			got = len(text)
		} else {
			got = firstLineBytes(t, text)
		}
		if list.PatchBytes == nil {
			t.Fatalf("#%d: list_pull_request_files says no patch total", index)
		}
		if int(*list.PatchBytes) != got {
			t.Fatalf("#%d: list_pull_request_files says %d bytes of patch, get_pull_request_diff %d", index, *list.PatchBytes, got)
		}
		if index == 9 && strings.Contains(r.gitDiff(r.mergeBase, "refs/pull/9/head"), ".env") && got >= len(r.gitDiff(r.mergeBase, "refs/pull/9/head")) {
			t.Fatalf("#9: the hidden file's section is counted (%d bytes)", got)
		}
	}
}
