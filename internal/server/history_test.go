package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// list_commits and get_commit (issue 14, items 1 and 10), with git as the
// oracle: git log for the commits listed, git diff for a commit's patch.

// histEmptyTreeID is what git diffs a root commit against.
const histEmptyTreeID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// histRepo is a history with what the two tools meet. ids names its
// commits:
//
//   - root: a.txt, dir/b.txt, big.txt (400 lines)
//   - edit-a: edits a.txt
//   - rename: dir/b.txt → dir/c.txt, edited
//   - side (branch side, from edit-a): adds side.txt, edits big.txt's head
//   - tail (main): edits big.txt's tail
//   - merge: side merged into main (--no-ff)
//   - rewrite: every line of big.txt, with a message of 100 body lines
//   - pr-one, pr-two (branch pr from rename, refs/pull/5/head): pr.txt;
//     a.txt and the secret .env. main moved on since: its merge base is
//     rename.
func histRepo(t *testing.T) (*testrepo.Repo, map[string]string) {
	r := testrepo.New(t)
	ids := map[string]string{}
	commit := func(name string, msg ...string) {
		r.Git("add", "-A")
		a := []string{"commit", "-q", "--allow-empty"}
		for _, m := range msg {
			a = append(a, "-m", m)
		}
		r.Git(a...)
		ids[name] = r.Head()
	}
	big := func(prefix string, from, to int) string {
		var b strings.Builder
		for i := 1; i <= 400; i++ {
			p := "line"
			if i >= from && i <= to {
				p = prefix
			}
			fmt.Fprintf(&b, "%s %03d of big.txt, long enough to take some room\n", p, i)
		}
		return b.String()
	}
	similar := strings.Repeat("a line of b that is long enough to be similar\n", 8)
	r.Write("a.txt", "one\n")
	r.Write("dir/b.txt", similar)
	r.Write("big.txt", big("", 0, 0))
	commit("root", "root commit")
	r.Write("a.txt", "one\ntwo\n")
	commit("edit-a", "edit a")
	r.Git("mv", "dir/b.txt", "dir/c.txt")
	r.Write("dir/c.txt", similar+"and one more\n")
	commit("rename", "rename b to c", "With a body.\n\nOf two paragraphs.")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write("pr.txt", "pull request\n")
	commit("pr-one", "pr one")
	r.Write("a.txt", "one\ntwo\npr\n")
	r.Write(".env", "TOKEN=hunter2\n")
	commit("pr-two", "pr two")
	r.Git("update-ref", "refs/pull/5/head", ids["pr-two"])
	r.Git("checkout", "-q", "-b", "side", ids["edit-a"])
	r.Write("side.txt", "side\n")
	r.Write("big.txt", big("SIDE", 1, 5))
	commit("side", "side work")
	r.Git("checkout", "-q", "main")
	r.Write("big.txt", big("TAIL", 396, 400))
	commit("tail", "edit the tail of big")
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	ids["merge"] = r.Head()
	var body strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&body, "Body line %03d of a long message, which goes on and on.\n", i)
	}
	r.Write("big.txt", big("REWRITTEN", 1, 400))
	commit("rewrite", "rewrite big", body.String())
	return r, ids
}

// histGitLog is plain git's list: git log --format=%H with args.
func histGitLog(r *testrepo.Repo, args ...string) []string {
	return strings.Fields(r.Git(append([]string{"log", "--format=%H"}, args...)...))
}

// histFileCount is the number of files git diff -M says sha changes
// against its first parent (the empty tree for a root commit).
func histFileCount(r *testrepo.Repo, sha string) int {
	parents := strings.Fields(r.Git("rev-list", "--parents", "-n", "1", sha))[1:]
	from := histEmptyTreeID
	if len(parents) > 0 {
		from = parents[0]
	}
	return strings.Count(r.Git("diff", "--name-only", "-z", "-M", from, sha), "\x00")
}

// histDecode decodes a result's structured content into v.
func histDecode(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
}

// histCheckNextLine: a partial reply's last line says its next call.
func histCheckNextLine(t *testing.T, tool, text string, next *paging.Call) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	last := lines[len(lines)-1]
	if next.Tool != tool || !strings.HasPrefix(last, "[partial reply] Next part: call "+tool+" with {") || !strings.Contains(last, fmt.Sprint(next.Arguments["cursor"])) {
		t.Fatalf("the last line does not say the next call %v: %q", next.Arguments, last)
	}
}

// histListAll follows list_commits' next calls to the end: every commit
// listed, in order, and the first page. Each page's text lists its commits.
func histListAll(t *testing.T, h *harness, a map[string]any) ([]listCommitEntryView, listCommitsOut) {
	t.Helper()
	var all []listCommitEntryView
	var first listCommitsOut
	for call := 0; ; call++ {
		if call > 500 {
			t.Fatal("more than 500 pages")
		}
		res := h.call("list_commits", a)
		text := textOf(res)
		if res.IsError {
			t.Fatalf("list_commits(%v), page %d: %s", a, call, text)
		}
		var out listCommitsOut
		histDecode(t, res, &out)
		if call == 0 {
			first = out
		}
		for _, c := range out.Commits {
			if !strings.Contains(text, "\n"+c.SHA[:12]+" ") {
				t.Fatalf("page %d: the text does not list %s:\n%s", call, c.SHA, text)
			}
			all = append(all, listCommitEntryView{c, text})
		}
		next := nextOf(t, res)
		if next == nil {
			if out.NextOffset != nil || strings.Contains(text, "Next part:") {
				t.Fatalf("page %d: nextOffset %v without a next call, or the text says one", call, *out.NextOffset)
			}
			return all, first
		}
		if len(out.Commits) == 0 {
			t.Fatalf("page %d lists nothing and has a next call", call)
		}
		histCheckNextLine(t, "list_commits", text, next)
		a = next.Arguments
	}
}

// listCommitEntryView is a commit listed and the text of its page.
type listCommitEntryView struct {
	histCommit
	page string
}

func histSHAs(cs []listCommitEntryView) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.SHA
	}
	return out
}

func TestListCommitsIsGitLog(t *testing.T) {
	r, ids := histRepo(t)
	mb := strings.TrimSpace(r.Git("merge-base", "main", "refs/pull/5/head"))
	cases := []struct {
		name string
		args map[string]any
		git  []string
		base *string // the selection's base, mergeBase
		mb   *string
	}{
		{"HEAD newest first", args(), histGitLog(r, "HEAD"), nil, nil},
		{"a ref oldest first", args("ref", "side", "order", "oldest"), histGitLog(r, "--reverse", "side"), nil, nil},
		{"paths", args("ref", "main", "paths", []string{"big.txt", "./dir/"}), histGitLog(r, "main", "--", "big.txt", "dir"), nil, nil},
		{"paths oldest first", args("paths", []string{"a.txt"}, "order", "oldest"), histGitLog(r, "--reverse", "HEAD", "--", "a.txt"), nil, nil},
		{"a pull request by index", args("index", 5, "order", "oldest"), histGitLog(r, "--reverse", mb+"..refs/pull/5/head"), ptr(ids["rewrite"]), ptr(mb)},
		{"a pull request by index with owner and repo", args("owner", "acme", "repo", "widgets", "index", 5), histGitLog(r, mb+"..refs/pull/5/head"), ptr(ids["rewrite"]), ptr(mb)},
		{"a range in merge-base mode", args("base", "main", "head", "pr"), histGitLog(r, mb+"..pr"), ptr(ids["rewrite"]), ptr(mb)},
		{"a range in direct mode", args("base", "pr", "head", "main", "mode", "direct"), histGitLog(r, "pr..main"), ptr(ids["pr-two"]), nil},
		{"a range head defaults to HEAD", args("base", ids["edit-a"], "order", "oldest"), histGitLog(r, "--reverse", ids["edit-a"]+"..HEAD"), ptr(ids["edit-a"]), ptr(ids["edit-a"])},
		{"an empty range", args("base", "main", "head", "main"), nil, ptr(ids["rewrite"]), ptr(ids["rewrite"])},
	}
	servers := map[string]*harness{
		"default limit": serve(t, r),
		"small replies": serve(t, r, withMaxBytes(MinMaxBytes)),
	}
	before := r.Snapshot()
	for sname, h := range servers {
		for _, c := range cases {
			for _, limit := range []int{0, 2} {
				t.Run(fmt.Sprintf("%s/%s/limit %d", sname, c.name, limit), func(t *testing.T) {
					a := args()
					for k, v := range c.args {
						a[k] = v
					}
					if limit > 0 {
						a["limit"] = limit
					}
					got, first := histListAll(t, h, a)
					if !slices.Equal(histSHAs(got), c.git) {
						t.Fatalf("listed %d commits, git log %d:\n%v\n%v", len(got), len(c.git), histSHAs(got), c.git)
					}
					if first.TotalCommits != len(c.git) {
						t.Fatalf("totalCommits %d, git log lists %d", first.TotalCommits, len(c.git))
					}
					if (first.Base == nil) != (c.base == nil) || (c.base != nil && *first.Base != *c.base) ||
						(first.MergeBase == nil) != (c.mb == nil) || (c.mb != nil && *first.MergeBase != *c.mb) {
						t.Fatalf("base %v, merge base %v; want %v, %v", first.Base, first.MergeBase, c.base, c.mb)
					}
					if len(c.git) == 0 && first.Commits == nil {
						t.Fatal("commits is null, want []")
					}
				})
			}
		}
	}
	// Each commit as git has it: parents, author, dates, files changed.
	h := servers["default limit"]
	all, _ := histListAll(t, h, args("ref", "main"))
	for _, c := range all {
		parents := strings.Fields(r.Git("rev-list", "--parents", "-n", "1", c.SHA))[1:]
		subject := strings.TrimSpace(r.Git("log", "-1", "--format=%s", c.SHA))
		if !slices.Equal(c.Parents, parents) || c.Subject != subject || c.IsMerge != (len(parents) > 1) ||
			c.Author != (histPerson{"Test Author", "author@example.com", "2026-01-02T03:04:05Z"}) || c.Date != "2026-01-02T03:04:05Z" {
			t.Errorf("%s: %+v; git: parents %v, subject %q", c.SHA, c.histCommit, parents, subject)
		}
		if n := histFileCount(r, c.SHA); c.FilesChanged != n {
			t.Errorf("%s (%s): %d files changed, git diff says %d", c.SHA, c.Subject, c.FilesChanged, n)
		}
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("the repository changed:\n%s\n%s", before, after)
	}
}

// The text, as served by default: a header, then one line per commit.
func TestListCommitsText(t *testing.T) {
	r, ids := histRepo(t)
	h := serve(t, r, withTextOnly())
	text := h.ok("list_commits", args("ref", "main", "limit", 3))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	want := []string{
		fmt.Sprintf("acme/widgets: 7 commits reachable from main (%s), newest first; commits 1–3 of 7 shown", ids["rewrite"][:12]),
		fmt.Sprintf("%s 2026-01-02 Test Author rewrite big (1 file)", ids["rewrite"][:12]),
		fmt.Sprintf("%s 2026-01-02 Test Author merge side (merge, 2 files against its first parent)", ids["merge"][:12]),
	}
	if len(lines) != 5 || !slices.Equal(lines[:3], want) || !strings.HasPrefix(lines[4], "[partial reply] Next part: call list_commits with {") {
		t.Fatalf("text:\n%s\nwant it to start with\n%s", text, strings.Join(want, "\n"))
	}
	pr := h.ok("list_commits", args("index", 5, "order", "oldest"))
	wantPR := fmt.Sprintf("acme/widgets: 2 commits of pull request #5, head %s since its merge base %s with its base %s, oldest first\n%s 2026-01-02 Test Author pr one (1 file)\n%s 2026-01-02 Test Author pr two (2 files)\n",
		ids["pr-two"][:12], ids["rename"][:12], ids["rewrite"][:12], ids["pr-one"][:12], ids["pr-two"][:12])
	if pr != wantPR {
		t.Fatalf("pull request:\n%s\nwant\n%s", pr, wantPR)
	}
	if empty := h.ok("list_commits", args("base", "main", "head", "main")); !strings.HasSuffix(empty, "\nNo commit.\n") {
		t.Fatalf("empty range: %q", empty)
	}
	if past := h.ok("list_commits", args("offset", 50)); !strings.HasSuffix(past, `; offset 50 is past the last of 7 commits; call list_commits again without offset for the first`+"\n") {
		t.Fatalf("past the end: %q", past)
	}
}

// A cursor pins the commits of the first page: a branch that moves on
// between two pages changes nothing.
func TestListCommitsCursorPinsTheCommits(t *testing.T) {
	r, _ := histRepo(t)
	h := serve(t, r)
	want := histGitLog(r, "main")
	res := h.call("list_commits", args("ref", "main", "limit", 2))
	next := nextOf(t, res)
	var first listCommitsOut
	histDecode(t, res, &first)
	r.Write("later.txt", "later\n")
	r.Commit("a commit after the first page")
	got := []string{first.Commits[0].SHA, first.Commits[1].SHA}
	rest, _ := histListAll(t, h, next.Arguments)
	if got = append(got, histSHAs(rest)...); !slices.Equal(got, want) {
		t.Fatalf("listed %v\nwant %v", got, want)
	}
	if now := h.ok("list_commits", args("ref", "main", "limit", 2)); !strings.Contains(now, "8 commits") {
		t.Fatalf("a new call does not see the new commit: %s", now)
	}
}

// histGetAll follows get_commit's next calls to the end: the patch of
// each part (the first part's after its "Patch against" line), the first
// part's structured content and text.
func histGetAll(t *testing.T, h *harness, a map[string]any) ([]string, getCommitOut, string) {
	t.Helper()
	var parts []string
	var first getCommitOut
	var firstText string
	for call := 0; ; call++ {
		if call > 2000 {
			t.Fatal("more than 2,000 parts")
		}
		res := h.call("get_commit", a)
		text := textOf(res)
		if res.IsError {
			t.Fatalf("get_commit(%v), part %d: %s", a, call, text)
		}
		whole := text
		var out getCommitOut
		histDecode(t, res, &out)
		if call == 0 {
			first, firstText = out, text
			i := strings.Index(text, "\nPatch against ")
			if i < 0 {
				t.Fatalf("no \"Patch against\" line in the first part:\n%s", text)
			}
			text = text[i+1:]
		} else if head := strings.SplitN(text, "\n", 2)[0]; strings.Contains(head, ", parents ") || strings.Contains(head, ", message bytes ") {
			text = "" // a part before the patch, that goes on with the parents or the message
		} else if out.Message != nil || len(out.ChangedFiles) > 0 {
			t.Fatalf("part %d repeats the message or the files", call)
		}
		if p := patchOf(text); text != "" && p != "" {
			parts = append(parts, p)
		}
		next := nextOf(t, res)
		if next == nil {
			if out.Truncated || strings.Contains(text, "Next part:") {
				t.Fatalf("part %d: truncated without a next call, or the text says one", call)
			}
			return parts, first, firstText
		}
		histCheckNextLine(t, "get_commit", whole, next)
		a = next.Arguments
	}
}

func TestGetCommitPatchIsGitDiff(t *testing.T) {
	r, ids := histRepo(t)
	servers := map[string]*harness{
		"default limit": serve(t, r),
		// Small, but not so small that get_diff itself would leave out
		// lines of this history as longer than a part (its notes' room
		// takes 6 KiB of each).
		"small replies": serve(t, r, withMaxBytes(32<<10)),
		"text only":     serve(t, r, withTextOnly(), withMaxBytes(12<<10)),
	}
	before := r.Snapshot()
	cases := []struct {
		name, ref, against string
		extra              []any
	}{
		{"a commit", "edit-a", ids["root"], nil},
		{"a rename, by branch name", "pr~2", ids["edit-a"], nil},
		{"a root commit", ids["root"], histEmptyTreeID, nil},
		{"a merge", "merge", ids["tail"], nil},
		{"a large patch", "main", ids["merge"], nil},
		{"a large patch in small parts", "main", ids["merge"], []any{"maxBytes", 1500}},
		{"no context", "main", ids["merge"], []any{"contextLines", 0}},
	}
	for sname, h := range servers {
		for _, c := range cases {
			t.Run(sname+"/"+c.name, func(t *testing.T) {
				if len(c.extra) > 0 && c.extra[0] == "maxBytes" && sname != "default limit" {
					t.Skip("once is enough")
				}
				ref := c.ref
				if id, ok := ids[ref]; ok {
					ref = id
				}
				a := args(append([]any{"ref", ref}, c.extra...)...)
				parts, first, text := histGetAll(t, h, a)
				sha := strings.TrimSpace(r.Git("rev-parse", ref))
				diffArgs := []string{"diff", "-M", c.against, sha}
				if len(c.extra) > 0 && c.extra[0] == "contextLines" {
					diffArgs = []string{"diff", "-M", "-U0", c.against, sha}
				}
				checkJoined(t, parts, r.Git(diffArgs...))
				if h.server.cfg.Structured {
					if first.SHA != sha || first.DiffBase != c.against || first.TotalFiles != histFileCount(r, sha) {
						t.Fatalf("sha %s, diffBase %s, %d files; want %s, %s, %d", first.SHA, first.DiffBase, first.TotalFiles, sha, c.against, histFileCount(r, sha))
					}
					parents := strings.Fields(r.Git("rev-list", "--parents", "-n", "1", sha))[1:]
					if !slices.Equal(first.Parents, parents) || first.IsMerge != (len(parents) > 1) {
						t.Fatalf("parents %v, merge %v; git: %v", first.Parents, first.IsMerge, parents)
					}
					if first.Author != (histPerson{"Test Author", "author@example.com", "2026-01-02T03:04:05Z"}) ||
						first.Committer != (histPerson{"Test Committer", "committer@example.com", "2026-01-02T03:04:05Z"}) {
						t.Fatalf("author %+v, committer %+v", first.Author, first.Committer)
					}
				}
				if !strings.HasPrefix(text, "acme/widgets: commit "+sha+"\n") {
					t.Fatalf("first line: %q", strings.SplitN(text, "\n", 2)[0])
				}
				switch c.against {
				case histEmptyTreeID:
					if !strings.Contains(text, "a root commit") || !strings.Contains(text, "against the empty tree") {
						t.Fatalf("a root commit does not say so:\n%s", text)
					}
				case ids["tail"]:
					if !strings.Contains(text, "Parents:   "+ids["tail"]+" "+ids["side"]+" (a merge: its files and patch are against its first parent)") ||
						!strings.Contains(text, "against its first parent "+ids["tail"][:12]) {
						t.Fatalf("a merge does not say it is one, diffed against its first parent:\n%s", text)
					}
				}
			})
		}
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("the repository changed:\n%s\n%s", before, after)
	}
}

// A first part whose preamble leaves its patch less room than a later
// part's must not leave out lines a later part could hold. Its room was
// reckoned with the preamble, header and next call at their longest, and
// the estimate left lines out (the patch then started in the next part);
// now the part is fitted by its measure (fitPart): at every limit the
// parts leave nothing out and are git's patch. A first part that still
// cannot hold a line puts its patch off to the next part (commitReply).
func TestGetCommitFirstPartLeavesNoLineOutForWantOfRoom(t *testing.T) {
	r, ids := histRepo(t)
	want := r.Git("diff", "-M", ids["edit-a"], ids["rename"])
	// Below about 3,000 bytes a later part is too small for the lines as
	// well, and leaves them out too (with notes).
	for limit := 3000; limit <= 24000; limit += 250 {
		h := serve(t, r, withTextOnly(), withMaxBytes(limit))
		parts, _, text := histGetAll(t, h, args("ref", ids["rename"]))
		if strings.Contains(text, "[left out") || strings.Contains(text, "it starts in the next part") {
			t.Fatalf("limit %d: the first part leaves lines out or puts its patch off:\n%s", limit, text)
		}
		checkJoined(t, parts, want)
	}
}

// The message comes first, whole when it fits in a third of a reply, else
// cut, the bytes that go on in the next parts said; files are listed as list_changed_files
// lists them (generated ones flagged), at most histMaxFiles, the rest
// pointed to.
func TestGetCommitMessageAndFiles(t *testing.T) {
	r, ids := histRepo(t)
	full := strings.TrimRight(r.Git("log", "-1", "--format=%B", ids["rewrite"]), "\n")
	t.Run("whole", func(t *testing.T) {
		h := serve(t, r)
		var out getCommitOut
		text := h.structured("get_commit", args("ref", "main"), &out)
		if out.Message == nil || *out.Message != full || out.MessageBytesLeftOut != 0 {
			t.Fatalf("message %d bytes, %d left out; want %d bytes", len(*out.Message), out.MessageBytesLeftOut, len(full))
		}
		if !strings.Contains(text, "\n    rewrite big\n\n    Body line 001 of") || strings.Contains(text, "[message cut") {
			t.Fatalf("text:\n%.600s", text)
		}
	})
	t.Run("cut", func(t *testing.T) {
		h := serve(t, r, withMaxBytes(MinMaxBytes))
		var out getCommitOut
		text := h.structured("get_commit", args("ref", "main"), &out)
		if out.Message == nil || out.MessageBytesLeftOut == 0 || len(*out.Message)+out.MessageBytesLeftOut != len(full) || !strings.HasPrefix(full, *out.Message) {
			t.Fatalf("message %q, %d left out of %d", *out.Message, out.MessageBytesLeftOut, len(full))
		}
		if !strings.Contains(text, "[message goes on in the next part, from ") || !strings.Contains(text, fmt.Sprintf(": %d bytes more]", out.MessageBytesLeftOut)) {
			t.Fatalf("the cut is not said:\n%s", text)
		}
		// At the smallest limit too, every part fits (the harness checks)
		// and the parts come to an end.
		if parts, _, _ := histGetAll(t, h, args("ref", "pr~2")); len(parts) == 0 {
			t.Fatal("no patch")
		}
	})
	t.Run("files", func(t *testing.T) {
		w := testrepo.New(t)
		w.Write("seed.txt", "seed\n")
		parent := w.Commit("seed")
		for i := 1; i <= 60; i++ {
			w.Write(fmt.Sprintf("f/file-%02d.txt", i), fmt.Sprintf("file %d\n", i))
		}
		w.Write("a/go.sum", "generated\n")
		sha := w.Commit("sixty-one files")
		h := serve(t, w, withTextOnly())
		text := h.ok("get_commit", args("ref", "HEAD"))
		if !strings.Contains(text, "\n61 files changed against its parent "+parent[:12]+":\nadded +1 -0 a/go.sum [generated]\nadded +1 -0 f/file-01.txt\n") ||
			!strings.Contains(text, "[generated or vendored: a/go.sum]") ||
			!strings.Contains(text, fmt.Sprintf("\nand 11 more: list_changed_files base=%s head=%s mode=direct lists them all\n", parent, sha)) {
			t.Fatalf("files:\n%s", text)
		}
		listed := h.ok("list_changed_files", args("base", parent, "head", sha, "mode", "direct"))
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "added ") && !strings.Contains(listed, line+"\n") {
				t.Fatalf("%q is not as list_changed_files lists it", line)
			}
		}
	})
	t.Run("a hidden file", func(t *testing.T) {
		h := serve(t, r, withTextOnly())
		text := h.ok("get_commit", args("ref", "pr"))
		if strings.Contains(text, "hunter2") || !strings.Contains(text, "[hidden by the server's secrets policy: .env]") || !strings.Contains(text, "added hidden .env") {
			t.Fatalf("a secret's patch:\n%s", text)
		}
	})
	t.Run("an empty commit", func(t *testing.T) {
		w := testrepo.New(t)
		w.Write("a.txt", "a\n")
		w.Commit("one")
		w.Commit("nothing")
		h := serve(t, w)
		var out getCommitOut
		text := h.structured("get_commit", args("ref", "HEAD"), &out)
		if out.TotalFiles != 0 || len(out.Files) != 0 || !strings.Contains(text, "\nNo file changed against its parent ") || !strings.HasSuffix(text, ": no file differs.\n") {
			t.Fatalf("%+v\n%s", out, text)
		}
	})
}

// Bad input is refused with its code, and nothing changes in the
// repository.
func TestHistoryBadInput(t *testing.T) {
	r, ids := histRepo(t)
	orphan := strings.TrimSpace(r.Git("commit-tree", "-m", "orphan", strings.TrimSpace(r.Git("rev-parse", "main^{tree}"))))
	r.Git("update-ref", "refs/heads/orphan", orphan)
	h := serve(t, r)
	missing := strings.Repeat("ab", 20)
	listCursor := nextOf(t, h.call("list_commits", args("limit", 1))).Arguments["cursor"]
	cases := []struct {
		name, tool string
		args       map[string]any
		code, says string
	}{
		{"list_commits: ref starting with -", "list_commits", args("ref", "--output=/tmp/x"), "INVALID_REF", `starts with "-"`},
		{"list_commits: base starting with -", "list_commits", args("base", "-x", "head", "main"), "INVALID_REF", `starts with "-"`},
		{"list_commits: head starting with -", "list_commits", args("base", "main", "head", "--all"), "INVALID_REF", `starts with "-"`},
		{"get_commit: ref starting with -", "get_commit", args("ref", "--output=/tmp/x"), "INVALID_REF", `starts with "-"`},
		{"list_commits: a range as ref", "list_commits", args("ref", "main..pr"), "INVALID_ARGUMENT", "is a range"},
		{"list_commits: a symmetric range as ref", "list_commits", args("ref", "main...pr"), "INVALID_ARGUMENT", "is a range"},
		{"list_commits: a range as base", "list_commits", args("base", "main..pr"), "INVALID_ARGUMENT", "is a range"},
		{"get_commit: a range as ref", "get_commit", args("ref", "main..pr"), "INVALID_ARGUMENT", "is a range"},
		{"list_commits: a path leaving the repository", "list_commits", args("paths", []string{"../outside"}), "PATH_DENIED", ".."},
		{"list_commits: a path leaving through a directory", "list_commits", args("paths", []string{"dir/../../outside"}), "PATH_DENIED", ".."},
		{"list_commits: a control character in a path", "list_commits", args("paths", []string{"a\nb"}), "INVALID_ARGUMENT", "control character"},
		{"get_commit: a commit that does not exist", "get_commit", args("ref", missing), "INVALID_REF", "does not name a commit"},
		{"get_commit: a branch that does not exist", "get_commit", args("ref", "no-such-branch"), "INVALID_REF", "does not name a commit"},
		{"list_commits: a commit that does not exist", "list_commits", args("ref", missing), "INVALID_REF", "does not name a commit"},
		{"get_commit: a tree, not a commit", "get_commit", args("ref", ids["root"]+"^{tree}"), "INVALID_REF", "does not name a commit"},
		{"list_commits: a pull request with no ref", "list_commits", args("index", 99), "NOT_FOUND", "pull request #99 does not exist"},
		{"list_commits: index zero", "list_commits", args("index", 0), "INVALID_ARGUMENT", "index"},
		{"list_commits: ref and a range", "list_commits", args("ref", "main", "base", "pr"), "INVALID_ARGUMENT", "not both"},
		{"list_commits: head without base", "list_commits", args("head", "pr"), "INVALID_ARGUMENT", "head needs base"},
		{"list_commits: index and ref", "list_commits", args("index", 5, "ref", "main"), "INVALID_ARGUMENT", "leave out ref, base and head"},
		{"list_commits: no merge base", "list_commits", args("base", "main", "head", "orphan"), "INVALID_REF", "no merge base"},
		{"list_commits: order", "list_commits", args("order", "sideways"), "INVALID_ARGUMENT", "order"},
		{"list_commits: limit over 500", "list_commits", args("limit", 501), "INVALID_ARGUMENT", "limit"},
		{"get_commit: no ref", "get_commit", args(), "INVALID_ARGUMENT", "ref"},
		{"get_commit: a damaged cursor", "get_commit", args("ref", "main", "cursor", "x.y"), "INVALID_ARGUMENT", "cursor"},
		{"get_commit: list_commits' cursor", "get_commit", args("ref", "main", "cursor", listCursor), "INVALID_ARGUMENT", "was made for list_commits"},
		{"list_commits: a cursor for other arguments", "list_commits", args("limit", 2, "cursor", listCursor), "INVALID_ARGUMENT", "other arguments"},
	}
	before := r.Snapshot()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := h.fails(c.tool, c.args, c.code)
			if !strings.Contains(msg, c.says) {
				t.Fatalf("%s: %q does not say %q", c.code, msg, c.says)
			}
		})
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("the repository changed:\n%s\n%s", before, after)
	}
}

// Both tools under --root and in forge mode (through the mirrors).
func TestHistoryUnderRootAndForge(t *testing.T) {
	t.Run("root", func(t *testing.T) {
		root := t.TempDir()
		w := testrepo.Init(t, filepath.Join(root, "acme", "widgets"))
		w.Write("a.txt", "a\n")
		w.Commit("one")
		w.Write("a.txt", "b\n")
		w.Commit("two")
		h := serveRootDir(t, root, repo.RootOptions{})
		for _, a := range []map[string]any{args("owner", "acme", "repo", "widgets"), args()} {
			got, _ := histListAll(t, h, a)
			if want := histGitLog(w, "HEAD"); !slices.Equal(histSHAs(got), want) {
				t.Fatalf("%v: %v, want %v", a, histSHAs(got), want)
			}
		}
		parts, _, _ := histGetAll(t, h, args("owner", "acme", "repo", "widgets", "ref", "HEAD"))
		checkJoined(t, parts, w.Git("diff", "-M", "HEAD~1", "HEAD"))
	})
	t.Run("forge", func(t *testing.T) {
		f := forgetest.New(t)
		// Pull request 2: next into topic, not into the default branch.
		f.Repo.Git("checkout", "-q", "-b", "next", "topic")
		f.Repo.Write("next.txt", "next\n")
		f.Repo.Git("update-ref", "refs/pull/2/head", f.Repo.Commit("next"))
		f.Repo.Git("push", "-q", f.Bare, "next", "refs/pull/2/head")
		sha := func(rev string) string { return strings.TrimSpace(f.Repo.Git("rev-parse", rev)) }
		// The pull requests as the forge describes them; #3 without a base.
		pulls := map[string]string{
			"/api/v1/repos/acme/widgets/pulls/1": fmt.Sprintf(`{"base":{"ref":"main","sha":"%s"},"head":{"ref":"topic","sha":"%s"}}`, sha("main"), sha("topic")),
			"/api/v1/repos/acme/widgets/pulls/2": fmt.Sprintf(`{"base":{"ref":"topic","sha":"%s"},"head":{"ref":"next","sha":"%s"}}`, sha("topic"), sha("next")),
			"/api/v1/repos/acme/widgets/pulls/3": fmt.Sprintf(`{"base":{"ref":"gone","sha":""},"head":{"ref":"next","sha":"%s"}}`, sha("next")),
		}
		f.API = func(w http.ResponseWriter, r *http.Request) {
			if pull, ok := pulls[r.URL.Path]; ok {
				io.WriteString(w, pull)
				return
			}
			http.NotFound(w, r)
		}
		h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
		got, first := histListAll(t, h, args("owner", "acme", "repo", "widgets", "index", 1))
		if want := histGitLog(f.Repo, "main..topic"); !slices.Equal(histSHAs(got), want) || first.MergeBase == nil {
			t.Fatalf("pull request 1: %v, want %v", histSHAs(got), want)
		}
		got, first = histListAll(t, h, args("owner", "acme", "repo", "widgets", "index", 2))
		if want := histGitLog(f.Repo, "topic..next"); !slices.Equal(histSHAs(got), want) || *first.Base != sha("topic") || *first.MergeBase != sha("topic") {
			t.Fatalf("pull request 2 into topic: %v, base %s; want %v, base %s", histSHAs(got), *first.Base, want, sha("topic"))
		}
		h.fails("list_commits", args("owner", "acme", "repo", "widgets", "index", 3), "UNAVAILABLE")
		h.fails("list_commits", args("owner", "acme", "repo", "widgets", "index", 4), "NOT_FOUND")
		got, _ = histListAll(t, h, args("owner", "acme", "repo", "widgets", "ref", "topic", "order", "oldest"))
		if want := histGitLog(f.Repo, "--reverse", "topic"); !slices.Equal(histSHAs(got), want) {
			t.Fatalf("topic: %v, want %v", histSHAs(got), want)
		}
		parts, _, _ := histGetAll(t, h, args("owner", "acme", "repo", "widgets", "ref", "topic"))
		checkJoined(t, parts, f.Repo.Git("diff", "-M", "main", "topic"))
	})
}
