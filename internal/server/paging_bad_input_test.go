package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Issue 13, "Bad input": cursors that do not belong to the call they are
// given to, cursors whose commits are gone or whose branches moved, and
// patches that are hard to cut (lines longer than a reply, bytes that are
// not UTF-8, CRLF, "\ No newline at end of file" inside a split hunk),
// through the real tools, with git as the oracle.

// pagingRepo is a repository whose diffs take several parts at a small
// reply limit:
//   - main: a.txt and b.txt (300 numbered lines each), c.txt;
//   - feature (refs/pull/7/head): edits every third line of a.txt and b.txt,
//     renames c.txt to d.txt and adds f1.txt..f5.txt;
//   - pr8 (refs/pull/8/head): edits a.txt and b.txt otherwise;
//   - main has moved on since both branched.
type pagingRepo struct {
	*testrepo.Repo
	mergeBase, feature string
}

func newPagingRepo(t *testing.T) *pagingRepo {
	t.Helper()
	r := testrepo.New(t)
	r.Write("a.txt", numberedLines(900))
	r.Write("b.txt", numberedLines(900))
	r.Write("c.txt", "a file that is renamed\nwith a few lines\nso that git sees the rename\n")
	mb := r.Commit("base")

	r.Git("checkout", "-q", "-b", "feature")
	r.Write("a.txt", editEvery(numberedLines(900), 3, "changed on feature"))
	r.Write("b.txt", editEvery(numberedLines(900), 3, "feature's b"))
	r.Git("mv", "c.txt", "d.txt")
	for i := 1; i <= 5; i++ {
		r.Write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("new file %d\n", i))
	}
	feature := r.Commit("feature")
	r.Git("update-ref", "refs/pull/7/head", feature)

	r.Git("checkout", "-q", "-b", "pr8", mb)
	r.Write("a.txt", editEvery(numberedLines(900), 4, "pr8 was here"))
	r.Write("b.txt", editEvery(numberedLines(900), 5, "pr8's b"))
	r.Git("update-ref", "refs/pull/8/head", r.Commit("pr8"))

	r.Git("checkout", "-q", "main")
	r.Write("unrelated.txt", "main moved on\n")
	r.Commit("main moves on")
	return &pagingRepo{Repo: r, mergeBase: mb, feature: feature}
}

// editEvery appends what to every nth line of s.
func editEvery(s string, n int, what string) string {
	lines := strings.SplitAfter(s, "\n")
	for i := range lines {
		if i%n == 0 && lines[i] != "" {
			lines[i] = strings.TrimSuffix(lines[i], "\n") + " " + what + "\n"
		}
	}
	return strings.Join(lines, "")
}

// with is a copy of a with the given keys set (a nil value deletes one).
func with(a map[string]any, kv ...any) map[string]any {
	m := make(map[string]any, len(a))
	for k, v := range a {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(m, kv[i].(string))
			continue
		}
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// boundTo is h reporting to t: a subtest's failures must end the subtest,
// not its parent.
func (h *harness) boundTo(t *testing.T) *harness {
	c := *h
	c.t = t
	return &c
}

// firstNext calls tool, which must answer with a partial reply, and returns
// the arguments of its next call.
func firstNext(t *testing.T, h *harness, tool string, a map[string]any) map[string]any {
	t.Helper()
	res := h.call(tool, a)
	if res.IsError {
		t.Fatalf("%s(%v): %s", tool, a, textOf(res))
	}
	n := nextOf(t, res)
	if n == nil {
		t.Fatalf("%s(%v) is not a partial reply: the fixture must need several parts", tool, a)
	}
	if n.Tool != tool {
		t.Fatalf("the next call of %s is to %s", tool, n.Tool)
	}
	if c, _ := n.Arguments["cursor"].(string); c == "" {
		t.Fatalf("the next call of %s has no cursor: %v", tool, n.Arguments)
	}
	return n.Arguments
}

var leaveOutRE = regexp.MustCompile(`leave (it|cursor) out`)

// failsLeaveOut: the call fails with INVALID_ARGUMENT, and the message is
// about the cursor and says to leave it out.
func failsLeaveOut(t *testing.T, h *harness, tool string, a map[string]any) string {
	t.Helper()
	msg := h.fails(tool, a, "INVALID_ARGUMENT")
	if !strings.Contains(msg, "cursor") || !leaveOutRE.MatchString(msg) {
		t.Errorf("%s: the message does not say to leave cursor out: %q", tool, msg)
	}
	return msg
}

// A cursor of get_pull_request_diff #7 given to #8 (its commits are in the
// repository, only the index differs) is refused, in both directions.
func TestBadInputCursorFromOtherPullRequest(t *testing.T) {
	r := newPagingRepo(t)
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	next7 := firstNext(t, h, "get_pull_request_diff", prArgs(7))
	next8 := firstNext(t, h, "get_pull_request_diff", prArgs(8))
	failsLeaveOut(t, h, "get_pull_request_diff", with(next7, "index", 8))
	failsLeaveOut(t, h, "get_pull_request_diff", with(next8, "index", 7))
	// The same for list_pull_request_files.
	files7 := firstNext(t, h, "list_pull_request_files", prArgs(7, "limit", 2))
	failsLeaveOut(t, h, "list_pull_request_files", with(files7, "index", 8))
	// Control: given to its own pull request, each cursor goes on.
	h.ok("get_pull_request_diff", next7)
	h.ok("get_pull_request_diff", next8)
	h.ok("list_pull_request_files", files7)
}

// A cursor of file_path a.txt given with file_path b.txt is refused; a
// cursor made without file_path is refused with one.
func TestBadInputCursorForOtherFile(t *testing.T) {
	r := newPagingRepo(t)
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	nextA := firstNext(t, h, "get_pull_request_diff", prArgs(7, "file_path", "a.txt"))
	failsLeaveOut(t, h, "get_pull_request_diff", with(nextA, "file_path", "b.txt"))
	failsLeaveOut(t, h, "get_pull_request_diff", with(nextA, "file_path", nil))
	// Control: a.txt's cursor continues a.txt, to git's section exactly.
	parts := drain(t, h, "get_pull_request_diff", prArgs(7, "file_path", "a.txt"))
	checkJoined(t, parts, r.Git("diff", "-M", r.mergeBase, r.feature, "--", "a.txt"))
}

// file_path with a cursor made without it is refused.
func TestBadInputCursorFilePathAdded(t *testing.T) {
	r := newPagingRepo(t)
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	next := firstNext(t, h, "get_pull_request_diff", prArgs(7))
	for _, p := range []string{"a.txt", "b.txt", "d.txt", "c.txt"} {
		failsLeaveOut(t, h, "get_pull_request_diff", with(next, "file_path", p))
	}
}

// Under --root, a cursor of acme/one given to acme/two is refused, though
// acme/two holds the very commits (and pull request ref) the cursor pinned:
// only the repository differs.
func TestBadInputCursorFromOtherRepository(t *testing.T) {
	root := t.TempDir()
	one := testrepo.Init(t, filepath.Join(root, "acme", "one"))
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		one.Write(f, numberedLines(300))
	}
	base := one.Commit("base")
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		one.Write(f, editEvery(numberedLines(300), 2, "changed"))
	}
	head := one.Commit("head")
	one.Git("update-ref", "refs/pull/3/head", head)
	one.Git("reset", "-q", "--hard", base)
	two := testrepo.Init(t, filepath.Join(root, "acme", "two"))
	two.Git("fetch", "-q", "--update-head-ok", one.Dir, "+refs/heads/*:refs/heads/*", "+refs/pull/*:refs/pull/*")
	two.Git("reset", "-q", "--hard")
	if got := strings.TrimSpace(two.Git("rev-parse", "refs/pull/3/head")); got != head {
		t.Fatalf("acme/two's refs/pull/3/head is %s, want %s", got, head)
	}

	served, err := repo.ServeRoot(testEnv(t), root, repo.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: 8192, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test", Structured: true}
	h := connectClient(t, New(served, cfg), nil, cfg.MaxBytes)
	if got := listedNames(h); got != "acme/one acme/two" {
		t.Fatalf("served %q, want acme/one acme/two", got)
	}

	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_diff", args("owner", "acme", "repo", "one", "base", base, "head", head, "maxBytes", 1000)},
		{"list_changed_files", args("owner", "acme", "repo", "one", "base", base, "head", head, "limit", 1)},
		{"get_pull_request_diff", args("owner", "acme", "repo", "one", "index", 3)},
		{"list_pull_request_files", args("owner", "acme", "repo", "one", "index", 3, "limit", 1)},
	} {
		t.Run(c.tool, func(t *testing.T) {
			h := h.boundTo(t)
			next := firstNext(t, h, c.tool, c.args)
			failsLeaveOut(t, h, c.tool, with(next, "repo", "two"))
			h.ok(c.tool, next) // control: in acme/one it goes on
			// Control: acme/two answers the same call without the cursor.
			h.ok(c.tool, with(c.args, "repo", "two"))
		})
	}
}

// pagedCall is a first call that needs several parts.
type pagedCall struct {
	name, tool string
	args       map[string]any
}

// pagedCalls are first calls of each cursor-taking tool that need several
// parts on a pagingRepo served at 8,192 bytes.
var pagedCalls = []pagedCall{
	{"get_diff", "get_diff", args("base", "main", "head", "feature", "maxBytes", 1000)},
	{"list_changed_files", "list_changed_files", args("base", "main", "head", "feature", "limit", 2)},
	{"get_pull_request_diff", "get_pull_request_diff", prArgs(7)},
	{"get_pull_request_diff_file_path", "get_pull_request_diff", prArgs(7, "file_path", "a.txt")},
	{"list_pull_request_files", "list_pull_request_files", prArgs(7, "limit", 2)},
}

// A cursor edited by hand is refused: any one character of it changed,
// its bytes changed (a position) and encoded again with the signature of
// the original, or without a signature.
func TestBadInputCursorEditedByHand(t *testing.T) {
	r := newPagingRepo(t)
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for _, c := range pagedCalls {
		t.Run(c.name, func(t *testing.T) {
			h := h.boundTo(t)
			next := firstNext(t, h, c.tool, c.args)
			cur := next["cursor"].(string)
			// Every character, flipped to another one of the alphabet:
			// the cursor no longer is what the server made.
			for i := range cur {
				flipped := alphabet[(strings.IndexByte(alphabet, cur[i])+1)%len(alphabet)]
				failsLeaveOut(t, h, c.tool, with(next, "cursor", cur[:i]+string(flipped)+cur[i+1:]))
			}
			// A position changed (the byte before the signature, the last
			// varint's) and encoded again, with the signature it had, and
			// without one.
			raw, err := base64.RawURLEncoding.DecodeString(cur)
			if err != nil {
				t.Fatal(err)
			}
			const sig = 10
			changed := bytes.Clone(raw)
			changed[len(changed)-sig-1] ^= 1
			for _, edited := range [][]byte{changed, changed[:len(changed)-sig]} {
				failsLeaveOut(t, h, c.tool, with(next, "cursor", base64.RawURLEncoding.EncodeToString(edited)))
			}
			// Control: the cursor as given goes on.
			h.ok(c.tool, next)
		})
	}
}

// A truncated cursor is refused, cut anywhere.
func TestBadInputCursorTruncated(t *testing.T) {
	r := newPagingRepo(t)
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	for _, c := range pagedCalls {
		t.Run(c.name, func(t *testing.T) {
			h := h.boundTo(t)
			next := firstNext(t, h, c.tool, c.args)
			cur := next["cursor"].(string)
			for n := len(cur) - 1; n > 0; n-- {
				failsLeaveOut(t, h, c.tool, with(next, "cursor", cur[:n]))
			}
			// Cut at its start: the end alone.
			failsLeaveOut(t, h, c.tool, with(next, "cursor", cur[1:]))
		})
	}
}

// A cursor of one tool given to another with the same other arguments is
// refused, in each direction of the two pairs that share arguments.
func TestBadInputCursorOfOtherTool(t *testing.T) {
	r := newPagingRepo(t)
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	sel := args("base", "main", "head", "feature")
	diffNext := firstNext(t, h, "get_diff", with(sel, "maxBytes", 1000))
	listNext := firstNext(t, h, "list_changed_files", with(sel, "limit", 2))
	msg := failsLeaveOut(t, h, "list_changed_files", with(sel, "cursor", diffNext["cursor"]))
	if !strings.Contains(msg, "get_diff") {
		t.Errorf("the message does not say which tool the cursor was made for: %q", msg)
	}
	failsLeaveOut(t, h, "list_changed_files", with(sel, "offset", 2, "cursor", diffNext["cursor"]))
	failsLeaveOut(t, h, "get_diff", with(sel, "cursor", listNext["cursor"]))

	prDiffNext := firstNext(t, h, "get_pull_request_diff", prArgs(7))
	prFilesNext := firstNext(t, h, "list_pull_request_files", prArgs(7, "limit", 2))
	failsLeaveOut(t, h, "list_pull_request_files", prArgs(7, "cursor", prDiffNext["cursor"]))
	failsLeaveOut(t, h, "list_pull_request_files", prArgs(7, "page", 2, "cursor", prDiffNext["cursor"]))
	failsLeaveOut(t, h, "get_pull_request_diff", prArgs(7, "cursor", prFilesNext["cursor"]))
	failsLeaveOut(t, h, "get_diff", with(sel, "cursor", prDiffNext["cursor"]))
}

// A cursor whose commits are no longer in the repository (the branch and
// the pull request ref deleted, reflogs expired, gc pruned) is NOT_FOUND,
// naming the commit and saying to start again. Each tool is asked on a
// server of its own, by that server's first call after gc, with commits
// that were loose and commits that were packed: a long-lived object reader
// that has a pack open still finds the commits in it after gc deleted it,
// though a new git process does not.
func TestBadInputCursorCommitsGone(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", packed), func(t *testing.T) {
			r := testrepo.New(t)
			for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
				r.Write(f, numberedLines(300))
			}
			r.Commit("base")
			r.Git("checkout", "-q", "-b", "gone")
			for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
				r.Write(f, editEvery(numberedLines(300), 2, "soon gone"))
			}
			gone := r.Commit("gone")
			r.Git("update-ref", "refs/pull/5/head", gone)
			r.Git("checkout", "-q", "main")
			if packed {
				r.Git("gc", "-q")
			}
			type pending struct {
				tool string
				h    *harness
				next map[string]any
			}
			var calls []pending
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"get_diff", args("base", "main", "head", "gone", "maxBytes", 1000)},
				{"list_changed_files", args("base", "main", "head", "gone", "limit", 1)},
				{"get_pull_request_diff", prArgs(5)},
				{"list_pull_request_files", prArgs(5, "limit", 1)},
			} {
				h := serve(t, r, withMaxBytes(8192), withTextOnly())
				next := firstNext(t, h, c.tool, c.args)
				h.ok(c.tool, next) // the cursor works while its commits exist
				calls = append(calls, pending{c.tool, h, next})
			}
			r.Git("branch", "-q", "-D", "gone")
			r.Git("update-ref", "-d", "refs/pull/5/head")
			r.Git("reflog", "expire", "--expire=now", "--all")
			r.Git("gc", "-q", "--prune=now")
			if _, err := r.TryGit("cat-file", "-e", gone); err == nil {
				t.Fatalf("control: git still has %s after gc", gone)
			}
			for _, c := range calls {
				t.Run(c.tool, func(t *testing.T) {
					h := c.h.boundTo(t)
					for try := 1; try <= 2; try++ { // the server's first call after gc (again), and another
						msg := h.fails(c.tool, c.next, "NOT_FOUND")
						if !strings.Contains(msg, "start again") || !strings.Contains(msg, "cursor") || !strings.Contains(msg, gone[:12]) {
							t.Errorf("call %d: the message does not name the commit and say to leave cursor out and start again: %q", try, msg)
						}
					}
				})
			}
		})
	}
}

// drainFrom is drain for a reply already in hand: the patch of first (a
// partial reply's text), then the parts from its next call on.
func drainFrom(t *testing.T, h *harness, tool string, first string, next map[string]any) []string {
	t.Helper()
	return append([]string{patchOf(first)}, drain(t, h, tool, next)...)
}

// filesPage is what a page of list_changed_files or list_pull_request_files
// says, structured.
type filesPage struct {
	Head  string `json:"head"`
	Files []struct {
		Path string `json:"path"`
	} `json:"files"`
}

// pageOf calls a listing tool (served with --structured) and returns its
// page and its next call's arguments (nil on the last page). The text's
// last line must say the same call as _meta.
func pageOf(t *testing.T, h *harness, tool string, a map[string]any) (filesPage, map[string]any) {
	t.Helper()
	res := h.call(tool, a)
	if res.IsError {
		t.Fatalf("%s(%v): %s", tool, a, textOf(res))
	}
	var p filesPage
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	n := nextOf(t, res)
	if n == nil {
		return p, nil
	}
	checkNextLine(t, res, n)
	return p, n.Arguments
}

// checkNextLine: a partial reply's text ends with the call _meta gives
// (compared as JSON values, whatever the escaping).
func checkNextLine(t *testing.T, res *mcp.CallToolResult, n *paging.Call) {
	t.Helper()
	text := textOf(res)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	last := lines[len(lines)-1]
	rest, ok := strings.CutPrefix(last, "[partial reply] Next part: call "+n.Tool+" with ")
	var said map[string]any
	if !ok || json.Unmarshal([]byte(rest), &said) != nil || !reflect.DeepEqual(said, n.Arguments) {
		t.Fatalf("the last line does not say the next call %s %v: %q", n.Tool, n.Arguments, last)
	}
}

// restOfPages follows next calls from a page's next to the end and returns
// the paths listed and the head each page was listed at.
func restOfPages(t *testing.T, h *harness, tool string, next map[string]any) (paths, heads []string) {
	t.Helper()
	for call := 0; next != nil; call++ {
		if call > 100 {
			t.Fatal("more than 100 pages")
		}
		var p filesPage
		p, next = pageOf(t, h, tool, next)
		heads = append(heads, p.Head)
		for _, f := range p.Files {
			paths = append(paths, f.Path)
		}
	}
	return paths, heads
}

func pathsOf(p filesPage) []string {
	var out []string
	for _, f := range p.Files {
		out = append(out, f.Path)
	}
	return out
}

// gitNames is git's list of the new paths of a diff, in its order.
func gitNames(r *testrepo.Repo, from, to string) []string {
	return strings.Fields(r.Git("diff", "--name-only", "-M", from, to))
}

// A cursor pins the commits of the first part: after feature (and main)
// move on, following next still gives the original diff, joined exactly
// git's diff of the original commits; list_changed_files' pages stay on the
// original file list.
func TestBadInputCursorPinnedAfterBranchMoves(t *testing.T) {
	r := newPagingRepo(t)
	h := serve(t, r.Repo, withTextOnly())
	hs := serve(t, r.Repo) // --structured, for the lists
	want := r.Git("diff", "-M", r.mergeBase, r.feature)
	wantFiles := gitNames(r.Repo, r.mergeBase, r.feature)

	diffArgs := args("base", "main", "head", "feature", "maxBytes", 1000)
	res := h.call("get_diff", diffArgs)
	diffNext := nextOf(t, res)
	if res.IsError || diffNext == nil {
		t.Fatalf("get_diff: not a partial reply: %s", textOf(res))
	}
	first := textOf(res)
	page1, listNext := pageOf(t, hs, "list_changed_files", args("base", "main", "head", "feature", "limit", 2))
	if listNext == nil {
		t.Fatal("list_changed_files: one page")
	}

	// feature moves: a.txt changes again, f1.txt goes, g.txt comes; main
	// moves too.
	r.Git("checkout", "-q", "feature")
	r.Write("a.txt", editEvery(numberedLines(300), 2, "moved on"))
	r.Git("rm", "-q", "f1.txt")
	r.Write("g.txt", "came later\n")
	moved := r.Commit("feature moves")
	r.Git("checkout", "-q", "main")
	r.Write("unrelated.txt", "main moved again\n")
	r.Commit("main moves again")
	if slices.Equal(gitNames(r.Repo, r.mergeBase, moved), wantFiles) {
		t.Fatal("control: the moved branches list the same files")
	}

	parts := drainFrom(t, h, "get_diff", first, diffNext.Arguments)
	checkJoined(t, parts, want)
	for i, p := range parts {
		if strings.Contains(p, "moved on") || strings.Contains(p, "g.txt") {
			t.Fatalf("part %d holds the moved branch's changes:\n%s", i, p)
		}
	}

	rest, heads := restOfPages(t, hs, "list_changed_files", listNext)
	for _, head := range heads {
		if head != r.feature {
			t.Errorf("a later page was listed at %s, not at the first page's head %s (feature is now %s)", head, r.feature, moved)
		}
	}
	if got := append(pathsOf(page1), rest...); !slices.Equal(got, wantFiles) {
		t.Fatalf("pages listed %q, want the original %q", got, wantFiles)
	}
}

// When refs/pull/7/head moves, a cursor of the pull request is refused
// (review 3, finding 02: a cursor pins its pull request, so that a minted
// one cannot show another branch as it): list_pull_request_files' and
// get_pull_request_diff's next parts say the pull request moved and to
// start over, and a new first part is at the moved head.
func TestBadInputCursorPinnedAfterPullRequestMoves(t *testing.T) {
	r := newPagingRepo(t)
	hs := serve(t, r.Repo)
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())

	_, filesNext := pageOf(t, hs, "list_pull_request_files", prArgs(7, "limit", 2))
	if filesNext == nil {
		t.Fatal("list_pull_request_files: one page")
	}
	res := h.call("get_pull_request_diff", prArgs(7))
	diffNext := nextOf(t, res)
	if res.IsError || diffNext == nil {
		t.Fatalf("get_pull_request_diff: not a partial reply: %s", textOf(res))
	}

	// The pull request's head moves.
	r.Git("checkout", "-q", "--detach", r.feature)
	r.Write("aa.txt", "added after the first page\n")
	moved := r.Commit("pull request moves")
	r.Git("update-ref", "refs/pull/7/head", moved)
	r.Git("checkout", "-q", "main")

	for _, c := range []struct {
		h    *harness
		tool string
		next map[string]any
	}{{hs, "list_pull_request_files", filesNext}, {h, "get_pull_request_diff", diffNext.Arguments}} {
		if msg := failsLeaveOut(t, c.h, c.tool, c.next); !strings.Contains(msg, "the pull request moved") || !strings.Contains(msg, git.Short(moved)) {
			t.Errorf("%s after the head moved: %q", c.tool, msg)
		}
	}
	// Without the cursor, the pull request is the moved one.
	if got := h.ok("get_pull_request_diff", prArgs(7)); !strings.Contains(got, git.Short(moved)) {
		t.Errorf("a new first part is not at the moved head %s: %.200q", git.Short(moved), got)
	}
}

// A cursor given to a fresh server on the same repository with the same
// cursor key (nothing kept between calls) gives the same next part as the
// server that made it, and that server's parts from there on join to git's
// diff.
func TestBadInputCursorFreshServer(t *testing.T) {
	r := newPagingRepo(t)
	key := randomCursorKey(t)
	h1 := serve(t, r.Repo, withMaxBytes(8192), withTextOnly(), withCursorKey(key))
	for _, c := range pagedCalls {
		t.Run(c.name, func(t *testing.T) {
			h1 := h1.boundTo(t)
			res := h1.call(c.tool, c.args)
			n := nextOf(t, res)
			if res.IsError || n == nil {
				t.Fatalf("not a partial reply: %s", textOf(res))
			}
			h2 := serve(t, r.Repo, withMaxBytes(8192), withTextOnly(), withCursorKey(key))
			a, b := h1.call(c.tool, n.Arguments), h2.call(c.tool, n.Arguments)
			if a.IsError || b.IsError {
				t.Fatalf("next call failed: %s / %s", textOf(a), textOf(b))
			}
			if textOf(a) != textOf(b) {
				t.Fatalf("the fresh server's next part differs:\n%s\n---\n%s", textOf(b), textOf(a))
			}
			na, nb := nextOf(t, a), nextOf(t, b)
			ja, _ := json.Marshal(na)
			jb, _ := json.Marshal(nb)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("the fresh server's next call differs: %s vs %s", jb, ja)
			}
			if !strings.HasSuffix(c.tool, "_diff") {
				return
			}
			parts := drainFrom(t, h2, c.tool, textOf(res), n.Arguments)
			from, to := r.mergeBase, r.feature
			want := r.Git("diff", "-M", from, to)
			if fp, ok := c.args["file_path"].(string); ok {
				want = r.Git("diff", "-M", from, to, "--", fp)
			}
			checkJoined(t, parts, want)
		})
	}
}

// get_diff's paths naming one side of a rename bring the other: the
// rename's section comes whole, as git prints it, and the text says it
// paired them; naming both sides needs no such note.
func TestBadInputPathsOneSideOfRename(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo, withTextOnly())
	var want string
	for _, sec := range sections(r.gitDiff(r.mergeBase, r.feature)) {
		if sectionPaths(sec) == [2]string{"old.go", "new.go"} {
			want = sec
		}
	}
	if !strings.Contains(want, "rename from old.go\nrename to new.go\n") || !strings.Contains(want, "+\treturn 2\n") {
		t.Fatalf("control: git's diff has no edited rename old.go → new.go:\n%s", want)
	}
	for _, paths := range [][]string{{"old.go"}, {"new.go"}, {"old.go", "new.go"}} {
		text := h.ok("get_diff", args("base", "main", "head", "feature", "paths", paths))
		if got := patchOf(text); got != want {
			t.Errorf("paths %q: the patch is not git's rename section:\n%s\nwant:\n%s", paths, got, want)
		}
		note := "[paths named one side of old.go → new.go: both sides are shown, as one rename]"
		if said := strings.Contains(text, note); said != (len(paths) == 1) {
			t.Errorf("paths %q: the note %q is there: %v; text:\n%s", paths, note, said, text)
		}
	}
	// Structured: one file, renamed, from old.go.
	hs := serve(t, r.Repo)
	var out getDiffOut
	hs.structured("get_diff", args("base", "main", "head", "feature", "paths", []string{"old.go"}), &out)
	if len(out.Files) != 1 || out.Files[0].Path != "new.go" || out.Files[0].OldPath == nil || *out.Files[0].OldPath != "old.go" ||
		out.Files[0].Status != "renamed" || out.Files[0].Patch == nil || *out.Files[0].Patch != want || out.TotalFiles != 1 {
		t.Errorf("structured files: %+v (total %d)", out.Files, out.TotalFiles)
	}
}

// A line longer than a whole reply (70 KB at the default 64 KiB limit; 10 KB
// at 8,192 bytes), inside a hunk between other changes: every part fits,
// the line comes in pieces, each after a marker naming the file, the line
// and its bytes, following next ends, and the parts joined are git's patch
// byte for byte.
func TestBadInputLineLongerThanReply(t *testing.T) {
	for _, c := range []struct {
		name     string
		long     int
		maxBytes int
	}{
		{"70KB-line-64KiB-limit", 70_000, DefaultMaxBytes},
		{"10KB-line-8KiB-limit", 10_000, 8192},
	} {
		t.Run(c.name, func(t *testing.T) {
			const longAt = 150 // the long line's number in the new file
			r := testrepo.New(t)
			r.Write("a.txt", "a\n")
			r.Write("long.txt", numberedLines(300))
			r.Write("z.txt", numberedLines(10))
			base := r.Commit("base")
			lines := strings.SplitAfter(editEvery(numberedLines(300), 7, "edited"), "\n")
			long := strings.Repeat("x", c.long)
			lines[longAt-1] = long + "\n"
			r.Git("checkout", "-q", "-b", "long")
			r.Write("a.txt", "a\nb\n")
			r.Write("long.txt", strings.Join(lines, ""))
			r.Write("z.txt", editEvery(numberedLines(10), 2, "edited"))
			head := r.Commit("head")
			r.Git("update-ref", "refs/pull/4/head", head)
			r.Git("checkout", "-q", "main")
			want := r.Git("diff", "-M", base, head)
			if !strings.Contains(want, "\n+"+long+"\n") {
				t.Fatal("control: git's diff does not hold the long line")
			}
			h := serve(t, r, withMaxBytes(c.maxBytes), withTextOnly())
			for _, call := range []struct {
				name, tool string
				args       map[string]any
			}{
				{"get_diff", "get_diff", args("base", base, "head", head)},
				{"get_pull_request_diff", "get_pull_request_diff", prArgs(4)},
				{"get_pull_request_diff_file_path", "get_pull_request_diff", prArgs(4, "file_path", "long.txt")},
			} {
				t.Run(call.name, func(t *testing.T) {
					h := h.boundTo(t)
					var texts []string
					a := call.args
					for n := 0; a != nil; n++ {
						if n > 2000 {
							t.Fatal("more than 2,000 parts")
						}
						res := h.call(call.tool, a) // h.call fails a reply over the limit
						if res.IsError {
							t.Fatalf("part %d: %s", n, textOf(res))
						}
						texts = append(texts, textOf(res))
						a = nil
						if next := nextOf(t, res); next != nil {
							checkNextLine(t, res, next)
							a = next.Arguments
						}
					}
					all := strings.Join(texts, "")
					if strings.Contains(all, "[left out:") {
						t.Fatal("a part left something out")
					}
					marker := regexp.MustCompile(`\[line (\d+) of the new long\.txt, bytes (\d+)–(\d+) of (\d+)(, from the previous part)?(; goes on in the next part|: the line's end)\]`)
					ms := marker.FindAllStringSubmatch(all, -1)
					if len(ms) < 2 {
						t.Fatalf("the long line is not in pieces:\n%.3000s", all)
					}
					next := 1
					for i, m := range ms {
						if m[1] != fmt.Sprint(longAt) || m[2] != fmt.Sprint(next) || m[4] != fmt.Sprint(c.long) || (m[5] != "") != (i > 0) || (m[6] == ": the line's end") != (i == len(ms)-1) {
							t.Fatalf("marker %d: %q", i, m[0])
						}
						to, _ := strconv.Atoi(m[3])
						next = to + 1
					}
					if next != c.long+1 {
						t.Fatalf("the pieces end at byte %d of %d", next-1, c.long)
					}
					var patches [][]byte
					for _, text := range texts {
						patches = append(patches, []byte(patchOf(text)))
					}
					joined, err := diff.Join(patches...)
					if err != nil {
						t.Fatal(err)
					}
					wantHere := want
					if call.args["file_path"] != nil {
						wantHere = r.Git("diff", "-M", base, head, "--", "long.txt")
					}
					if string(joined) != wantHere {
						t.Errorf("the parts joined are not git's patch: %d bytes, want %d", len(joined), len(wantHere))
					}
				})
			}
		})
	}
}

// asShown is s with every byte that is not part of valid UTF-8 replaced by
// U+FFFD, one for one: what the README says a reply shows.
func asShown(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// hardRepo is a base and a head whose diff has a Latin-1 file, a CRLF file
// and a file whose old side ends without a newline, in hunks large enough
// to be split at a small maxBytes.
func hardRepo(t *testing.T) (r *testrepo.Repo, base, head string) {
	r = testrepo.New(t)
	var latin1, latin1New, crlf, crlfNew, nonl, nonlNew strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&latin1, "caf\xe9 cr\xe8me br\xfbl\xe9e %d\n", i)
		if i%3 == 0 {
			fmt.Fprintf(&latin1New, "caf\xe9 cr\xe8me br\xfbl\xe9e %d \xa9 \xe0 la carte\n", i)
		} else {
			fmt.Fprintf(&latin1New, "caf\xe9 cr\xe8me br\xfbl\xe9e %d\n", i)
		}
		fmt.Fprintf(&crlf, "crlf line %d\r\n", i)
		if i%4 == 0 {
			fmt.Fprintf(&crlfNew, "crlf line %d changed\r\n", i)
		} else {
			fmt.Fprintf(&crlfNew, "crlf line %d\r\n", i)
		}
		// Every line changes, so the hunk is one: its "-" lines end with the
		// old side's last line and its marker, then come its "+" lines.
		fmt.Fprintf(&nonl, "old line %d\n", i)
		fmt.Fprintf(&nonlNew, "new line %d\n", i)
	}
	r.Write("crlf.txt", crlf.String())
	r.Write("latin1.txt", latin1.String())
	r.Write("nonl.txt", strings.TrimSuffix(nonl.String(), "\n"))
	r.Write("nonl2.txt", "kept 1\nkept 2\nold end")
	base = r.Commit("base")
	r.Write("crlf.txt", crlfNew.String())
	r.Write("latin1.txt", latin1New.String())
	r.Write("nonl.txt", nonlNew.String()+"new tail without newline")
	r.Write("nonl2.txt", "kept 1\nkept 2\nnew end\nand more\n")
	head = r.Commit("head")
	return r, base, head
}

// A patch whose bytes are not UTF-8 (Latin-1 text) comes with those bytes
// as U+FFFD, one for each, in every part, and each part that shows one
// names the file; split or not, the parts join to git's patch so shown.
func TestBadInputNotUTF8(t *testing.T) {
	r, base, head := hardRepo(t)
	want := r.Git("diff", "-M", base, head, "--", "latin1.txt")
	if utf8.ValidString(want) || !strings.Contains(want, "\n+caf\xe9 cr\xe8me br\xfbl\xe9e 3 \xa9 \xe0 la carte\n") {
		t.Fatal("control: git's patch has no Latin-1 bytes")
	}
	h := serve(t, r, withTextOnly())
	for _, maxBytes := range []int{0, 300, 517} {
		a := args("base", base, "head", head, "paths", []string{"latin1.txt"})
		if maxBytes > 0 {
			a["maxBytes"] = maxBytes
		}
		var texts []string
		for n := 0; a != nil; n++ {
			if n > 500 {
				t.Fatal("more than 500 parts")
			}
			res := h.call("get_diff", a)
			if res.IsError {
				t.Fatalf("maxBytes %d, part %d: %s", maxBytes, n, textOf(res))
			}
			text := textOf(res)
			texts = append(texts, patchOf(text))
			if strings.Contains(patchOf(text), "\uFFFD") && !strings.Contains(text, "[not UTF-8: bytes shown as U+FFFD in latin1.txt]") {
				t.Errorf("maxBytes %d, part %d shows U+FFFD but does not name latin1.txt:\n%s", maxBytes, n, text)
			}
			a = nil
			if next := nextOf(t, res); next != nil {
				checkNextLine(t, res, next)
				a = next.Arguments
			}
		}
		if maxBytes > 0 && len(texts) < 3 {
			t.Errorf("maxBytes %d: %d parts; the fixture should need more", maxBytes, len(texts))
		}
		checkJoined(t, texts, asShown(want))
	}
	// The whole diff of a pull request that fits in one reply: the same.
	r.Git("update-ref", "refs/pull/2/head", head)
	r.Git("update-ref", "refs/heads/main", base)
	t.Run("get_pull_request_diff_whole", func(t *testing.T) {
		h := h.boundTo(t)
		text := h.ok("get_pull_request_diff", prArgs(2, "file_path", "latin1.txt"))
		if !strings.Contains(text, "\uFFFD") || !strings.Contains(text, "latin1.txt") {
			t.Fatalf("not shown as U+FFFD: %.300q", text)
		}
		if !strings.Contains(text, "[not UTF-8: bytes shown as U+FFFD in latin1.txt]") {
			t.Errorf("get_pull_request_diff file_path=latin1.txt shows U+FFFD for its bytes without saying so:\n%s", text)
		}
	})
}

// sweepCuts drains get_diff of path at every maxBytes from the smallest
// part up past the whole patch, in steps of step, and checks that the parts
// join to want byte for byte; check sees each run's parts. It returns the
// number of parts at the smallest maxBytes.
func sweepCuts(t *testing.T, h *harness, base, head, path, want string, step int, check func(maxBytes int, parts []string)) int {
	t.Helper()
	first := 0
	for maxBytes := paging.MinPartRoom; maxBytes < len(want)+100; maxBytes += step {
		parts := drain(t, h, "get_diff", args("base", base, "head", head, "paths", []string{path}, "maxBytes", maxBytes))
		checkJoined(t, parts, want)
		if check != nil {
			check(maxBytes, parts)
		}
		if first == 0 {
			first = len(parts)
		}
	}
	return first
}

// CRLF line endings come through exactly, wherever a hunk is cut: the
// parts join to git's patch byte for byte, "\r" included.
func TestBadInputCRLF(t *testing.T) {
	r, base, head := hardRepo(t)
	h := serve(t, r, withTextOnly())
	want := r.Git("diff", "-M", base, head, "--", "crlf.txt")
	if !strings.Contains(want, "\n-crlf line 4\r\n+crlf line 4 changed\r\n") {
		t.Fatalf("control: git's patch has no CRLF lines:\n%q", want)
	}
	n := sweepCuts(t, h, base, head, "crlf.txt", want, 101, func(maxBytes int, parts []string) {
		for i, p := range parts {
			if strings.Count(p, "\r\n") < strings.Count(p, "crlf line") {
				t.Fatalf("maxBytes %d, part %d lost a \\r:\n%q", maxBytes, i, p)
			}
		}
	})
	if n < 3 {
		t.Errorf("%d parts at the smallest maxBytes; the fixture should need more", n)
	}
	// With the other hard files, cut small: the same (non-UTF-8 bytes as
	// U+FFFD).
	checkJoined(t, drain(t, h, "get_diff", args("base", base, "head", head, "maxBytes", paging.MinPartRoom)), asShown(r.Git("diff", "-M", base, head)))
}

// "\ No newline at end of file" in the middle of a hunk (after the old
// side's last line, before the new side's lines) comes through exactly,
// wherever the hunk is cut: never apart from the line it belongs to, and
// the parts join to git's patch byte for byte.
func TestBadInputNoNewlineMarkerInSplitHunk(t *testing.T) {
	r, base, head := hardRepo(t)
	h := serve(t, r, withTextOnly())
	for _, c := range []struct {
		path, want string // want must be in git's patch, as a control
	}{
		{"nonl.txt", "\n-old line 60\n\\ No newline at end of file\n+new line 1\n"},
		{"nonl2.txt", "\n-old end\n\\ No newline at end of file\n+new end\n+and more\n"},
	} {
		want := r.Git("diff", "-M", base, head, "--", c.path)
		if !strings.Contains(want, c.want) {
			t.Fatalf("control: git's patch of %s has no %q:\n%s", c.path, c.want, want)
		}
		n := sweepCuts(t, h, base, head, c.path, want, 37, func(maxBytes int, parts []string) {
			for i, p := range parts {
				for _, line := range strings.SplitAfter(p, "\n") {
					if strings.HasPrefix(line, "\\") && !strings.Contains(p, "-old line 60\n"+line) &&
						!strings.Contains(p, "+new tail without newline\n"+line) && !strings.Contains(p, "-old end\n"+line) {
						t.Fatalf("maxBytes %d, part %d: a marker apart from its line:\n%s", maxBytes, i, p)
					}
				}
			}
		})
		if c.path == "nonl.txt" && n < 3 {
			t.Errorf("%s: %d parts at the smallest maxBytes; the fixture should need more", c.path, n)
		}
	}
}
