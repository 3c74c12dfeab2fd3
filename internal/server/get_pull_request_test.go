package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// get_pull_request on a local pull request: what git knows, with git as
// the oracle.
func TestGetPullRequestLocal(t *testing.T) {
	r := newPRRepo(t)
	// #7 gets two more commits, one with a body.
	r.Git("checkout", "-q", "feature")
	r.Write("more.txt", "more\n")
	r.Commit("Add more.txt")
	r.Write("more.txt", "more and more\n")
	r.Git("add", "more.txt")
	r.Git("commit", "-q", "-m", "Grow more.txt", "-m", "Because one line\nwas not enough.")
	r.Git("update-ref", "refs/pull/7/head", "HEAD")
	r.Git("checkout", "-q", "main")
	h := serve(t, r.Repo)
	rev := func(args ...string) string { return strings.TrimSpace(r.Git(args...)) }

	var out getPullRequestOut
	text := h.structured("get_pull_request", prArgs(7), &out)
	head, base := rev("rev-parse", "refs/pull/7/head"), rev("rev-parse", "main")
	mb := rev("merge-base", base, head)
	if out.Head != head || out.Base != base || out.MergeBase != mb || out.BaseRef != "main" || out.HeadRef != "refs/pull/7/head" {
		t.Fatalf("commits: %+v\nwant head %s base %s merge base %s", out, head, base, mb)
	}
	if n := rev("rev-list", "--count", mb+".."+head); out.CommitCount == nil || fmt.Sprint(*out.CommitCount) != n {
		t.Fatalf("commitCount %v, git rev-list --count says %s", out.CommitCount, n)
	}
	if n := len(strings.Split(rev("diff", "-M", "--name-only", mb, head), "\n")); out.ChangedFiles == nil || *out.ChangedFiles != n {
		t.Fatalf("changedFiles %v, git diff --name-only says %d", out.ChangedFiles, n)
	}
	var shas, subjects []string
	for _, c := range out.Commits {
		shas = append(shas, c.SHA)
		if c.Message == nil || c.Subject != nil || c.Author != "Test Author" || c.Date == "" {
			t.Fatalf("commit %+v: a small pull request's messages come whole", c)
		}
		subjects = append(subjects, strings.SplitN(*c.Message, "\n", 2)[0])
		if n := gitFilesChanged(r.Repo, c.SHA); c.FilesChanged != n {
			t.Errorf("commit %s: filesChanged %d, git diff-tree lists %d", c.SHA, c.FilesChanged, n)
		}
	}
	if want := strings.Fields(rev("rev-list", "--reverse", mb+".."+head)); !slices.Equal(shas, want) {
		t.Fatalf("commits %v, git rev-list --reverse says %v", shas, want)
	}
	if want := strings.Split(rev("log", "--reverse", "--format=%s", mb+".."+head), "\n"); !slices.Equal(subjects, want) {
		t.Fatalf("subjects %q, git log says %q", subjects, want)
	}
	if got := *out.Commits[2].Message; got != "Grow more.txt\n\nBecause one line\nwas not enough.\n" {
		t.Fatalf("message with its body: %q", got)
	}
	if out.Title != nil || out.State != nil || out.Body != nil || out.Truncated || out.Next != nil || len(out.Labels) != 0 {
		t.Fatalf("a local pull request has no forge fields: %+v", out)
	}
	// The text: list_pull_request_files' header first (the patch's size
	// and the parts it takes included), then the commits.
	files := h.ok("list_pull_request_files", prArgs(7))
	listed := strings.SplitN(files, "\n", 2)[0]
	if first := strings.SplitN(text, "\n", 2)[0]; first != listed || !strings.Contains(first, " bytes of patch") {
		t.Fatalf("first line %q, list_pull_request_files says %q", first, listed)
	}
	for _, want := range []string{"Base: main at " + base, "Head: refs/pull/7/head at " + head, "Merge base: " + mb,
		"Commits: 3 from the merge base to the head, oldest first:\n", "commit " + head + " (3 of 3)\n", "    Grow more.txt\n\n    Because one line\n    was not enough.\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}

	// #8's base is the first parent of its merge ref.
	h.structured("get_pull_request", prArgs(8), &out)
	if out.Base != rev("rev-parse", "refs/pull/8/merge^1") || out.BaseRef != "refs/pull/8/merge^1" || len(out.Commits) != 1 {
		t.Fatalf("#8: %+v", out)
	}
	// An empty pull request says why.
	r.Git("update-ref", "refs/pull/11/head", r.mergeBase)
	text = h.structured("get_pull_request", prArgs(11), &out)
	if *out.CommitCount != 0 || *out.ChangedFiles != 0 || len(out.Commits) != 0 || !strings.Contains(text, "Commits: none: its head") {
		t.Fatalf("#11: %+v\n%s", out, text)
	}
}

// A local pull request's overview is one reply at any budget: the first
// commits with their whole messages (as many as fill a share of a reply),
// at most overviewLines more on one line, and the list_commits call that
// lists the rest; that call, followed to its end, lists every other commit
// once, in order. What the overview shows of each commit is git's.
func TestGetPullRequestLocalOverviewIsOneReply(t *testing.T) {
	r := newPRRepo(t)
	r.Git("checkout", "-q", "feature")
	var long strings.Builder
	for i := range 200 {
		fmt.Fprintf(&long, "Line %d of a long commit message, ünïcode included.\n", i)
	}
	for i := range 120 {
		msg := fmt.Sprintf("Commit %d", i)
		switch i {
		case 1:
			msg += "\n\nA short body."
		case 3:
			msg += "\n\n" + long.String()
		}
		r.Git("commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", msg)
	}
	r.Git("update-ref", "refs/pull/7/head", "HEAD")
	r.Git("checkout", "-q", "main")
	rev := func(args ...string) string { return strings.TrimSpace(r.Git(args...)) }
	head := rev("rev-parse", "refs/pull/7/head")
	want := strings.Fields(rev("rev-list", "--reverse", r.mergeBase+".."+head))
	subjects := strings.Split(rev("log", "--reverse", "--format=%s", r.mergeBase+".."+head), "\n")

	for _, limit := range []int{MinMaxBytes, DefaultMaxBytes} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			h := serve(t, r.Repo, withMaxBytes(limit))
			var out getPullRequestOut
			text := h.structured("get_pull_request", prArgs(7), &out)
			if out.Next != nil || !out.Truncated || *out.CommitCount != len(want) {
				t.Fatalf("next %v, truncated %v, %d commits: want one reply of %d commits, truncated", out.Next, out.Truncated, *out.CommitCount, len(want))
			}
			var shas []string
			whole, oneLine := 0, 0
			for i, c := range out.Commits {
				shas = append(shas, c.SHA)
				switch {
				case c.Message != nil && c.Subject == nil:
					if oneLine > 0 {
						t.Fatalf("commit %d has its message after %d one-line commits: only the first come whole", i+1, oneLine)
					}
					whole++
					if w := rev("log", "-1", "--format=%s%n%n%b", c.SHA); strings.TrimRight(*c.Message, "\n") != strings.TrimRight(w, "\n") {
						t.Fatalf("the message of %s is not git's:\n%q\nwant\n%q", c.SHA, *c.Message, w)
					}
				case c.Subject != nil && c.Message == nil:
					oneLine++
					if *c.Subject != subjects[i] {
						t.Fatalf("commit %d: subject %q, git says %q", i+1, *c.Subject, subjects[i])
					}
				default:
					t.Fatalf("commit %+v: a message or a subject, one of them", c)
				}
			}
			if whole < 1 || whole > 4 || oneLine == 0 || oneLine > overviewLines {
				t.Errorf("%d whole and %d one-line commits: want 1–4 whole (the fifth's message is long) and 1–%d on one line", whole, oneLine, overviewLines)
			}
			shas = append(shas, restOfCommits(t, h, text)...)
			if !slices.Equal(shas, want) {
				t.Fatalf("the overview and its list_commits call list %d commits, git lists %d", len(shas), len(want))
			}
		})
	}
}

// restOfCommits follows the list_commits call an overview's text gives
// for the commits it does not show, and returns them, oldest first.
func restOfCommits(t *testing.T, h *harness, text string) []string {
	t.Helper()
	_, call, ok := strings.Cut(text, ": list_commits with ")
	call, _, ok2 := strings.Cut(call, " lists them, oldest first.")
	if !ok || !ok2 {
		t.Fatalf("the overview does not give the list_commits call for the rest:\n%s", text)
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(call), &a); err != nil {
		t.Fatalf("the list_commits call %s: %v", call, err)
	}
	var shas []string
	for _, res := range drainResults(t, h, "list_commits", a) {
		var out listCommitsOut
		histDecode(t, res, &out)
		for _, c := range out.Commits {
			shas = append(shas, c.SHA)
		}
	}
	return shas
}

// A pull request of 700 commits, each changing a file: the overview is one
// reply of at most 20 KB at the default reply limit, and its list_commits
// call lists every other commit once, with its files counted as git
// counts them.
func TestGetPullRequest700Commits(t *testing.T) {
	r := newPRRepo(t)
	const commits = 700
	fastCommits(r.Repo, "refs/pull/7/head", r.mergeBase, commits, func(i int) (string, map[string]string) {
		msg := fmt.Sprintf("Change %d: tune the widget's frobnicator for case %d\n\nA body of a few lines\nthat explains commit %d.\n", i, i, i)
		files := map[string]string{fmt.Sprintf("f%d.txt", i%50): fmt.Sprintf("version %d\n", i)}
		if i%7 == 0 {
			files[fmt.Sprintf("g%d.txt", i)] = "new\n"
		}
		return msg, files
	})
	want := strings.Fields(strings.TrimSpace(r.Git("rev-list", "--reverse", r.mergeBase+"..refs/pull/7/head")))
	h := serve(t, r.Repo)
	res := h.call("get_pull_request", prArgs(7))
	data, _ := json.Marshal(res)
	var out getPullRequestOut
	histDecode(t, res, &out)
	if res.IsError || nextOf(t, res) != nil || len(data) > 20_000 {
		t.Fatalf("the overview: error %v, next %v, %d bytes; want one reply of at most 20 KB", res.IsError, nextOf(t, res), len(data))
	}
	var shas []string
	for i, c := range out.Commits {
		shas = append(shas, c.SHA)
		if w := 1 + btoi(i%7 == 0); c.FilesChanged != w {
			t.Fatalf("commit %d: filesChanged %d, want %d", i+1, c.FilesChanged, w)
		}
	}
	if shas = append(shas, restOfCommits(t, h, textOf(res))...); !slices.Equal(shas, want) {
		t.Fatalf("the overview and its list_commits call list %d commits, git lists %d", len(shas), len(want))
	}
}

// fastCommits makes n commits on ref from commit from with git
// fast-import (one process, where n git commits would take seconds): commit
// i has the message and writes the files commit(i) gives. The dates go up
// a second a commit.
func fastCommits(r *testrepo.Repo, ref, from string, n int, commit func(i int) (msg string, files map[string]string)) {
	var stream strings.Builder
	fmt.Fprintf(&stream, "reset %s\nfrom %s\n\n", ref, from)
	for i := range n {
		msg, files := commit(i)
		fmt.Fprintf(&stream, "commit %s\nauthor Ann Author <ann@example.com> %d +0000\ncommitter Ann Author <ann@example.com> %d +0000\ndata %d\n%s",
			ref, 1700000000+i, 1700000000+i, len(msg), msg)
		for _, p := range slices.Sorted(maps.Keys(files)) {
			fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s", p, len(files[p]), files[p])
		}
		stream.WriteString("\n")
	}
	r.GitInput(stream.String(), "fast-import", "--quiet", "--force")
}

// gitFilesChanged is how many files git diff-tree lists for commit sha
// against its first parent, renames found.
func gitFilesChanged(r *testrepo.Repo, sha string) int {
	return strings.Count(r.Git("diff-tree", "-z", "--no-commit-id", "-r", "--name-only", "-M", sha+"^", sha), "\x00")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fakePull serves one pull request on a fake forge; its fields can change
// between calls.
type fakePull struct {
	mu       sync.Mutex
	fields   map[string]any
	noCount  bool
	notFound bool
}

func (p *fakePull) set(k string, v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fields[k] = v
}

func (p *fakePull) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch r.URL.Path {
	case "/api/v1/repos/acme/widgets/pulls/3":
		if p.notFound {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"not found"}`)
			return
		}
		f := map[string]any{}
		for k, v := range p.fields {
			f[k] = v
		}
		if p.noCount {
			delete(f, "changed_files")
		}
		json.NewEncoder(w).Encode(f)
	case "/api/v1/repos/acme/widgets/pulls/3/files":
		w.Header().Set("X-Total-Count", "5")
		io.WriteString(w, `[{"filename":"a.txt","status":"added","additions":1,"deletions":0}]`)
	default:
		http.NotFound(w, r)
	}
}

func newFakePull(body string) *fakePull {
	return &fakePull{fields: map[string]any{
		"number": 3, "title": "Add widgets\nsecond line", "body": body, "user": map[string]any{"login": "alice", "id": 1},
		"labels": []any{map[string]any{"name": "bug"}, map[string]any{"name": "needs review"}},
		"state":  "open", "draft": false, "merged": false, "mergeable": true, "changed_files": 7,
		"base":       map[string]any{"ref": "main", "sha": strings.Repeat("a", 40)},
		"head":       map[string]any{"ref": "feature", "sha": strings.Repeat("b", 40)},
		"merge_base": strings.Repeat("c", 40), "html_url": "http://forge/acme/widgets/pulls/3",
		"created_at": "2025-01-02T03:04:05Z", "updated_at": "2025-02-03T04:05:06Z",
	}}
}

// A large description: lines with CRLF, multi-byte characters, one line
// longer than a reply, no newline at its end.
func largeBody() string {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "Paragraph line %d: ünïcödé & <html> \"quotes\"\r\n", i)
	}
	b.WriteString(strings.Repeat("€", 30000) + "\n")
	b.WriteString("the end, without a newline")
	return b.String()
}

// get_pull_request in forge mode: the forge's fields, and its description
// in parts that put together are the description.
func TestGetPullRequestForge(t *testing.T) {
	f := forgetest.New(t)
	body := largeBody()
	p := newFakePull(body)
	f.API = p.serve
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)

	var out getPullRequestOut
	text := h.structured("get_pull_request", args("owner", "acme", "repo", "widgets", "index", 3), &out)
	if *out.Title != "Add widgets\nsecond line" || *out.State != "open" || !*out.Mergeable || *out.Draft || *out.Author != "alice" ||
		!slices.Equal(out.Labels, []string{"bug", "needs review"}) || *out.ChangedFiles != 7 || out.CommitCount != nil ||
		out.BaseRef != "main" || out.HeadRef != "feature" || out.Head != strings.Repeat("b", 40) || out.MergeBase != strings.Repeat("c", 40) ||
		*out.URL != "http://forge/acme/widgets/pulls/3" || *out.CreatedAt != "2025-01-02T03:04:05Z" || *out.UpdatedAt != "2025-02-03T04:05:06Z" ||
		out.BodyBytes != len(body) || out.BodyOffset != 0 || !out.Truncated || len(out.Commits) != 0 {
		t.Fatalf("fields: %+v", out)
	}
	for _, want := range []string{
		"acme/widgets#3: 7 files changed (base aaaaaaaaaaaa, merge base cccccccccccc → head bbbbbbbbbbbb)\n",
		`Title: "Add widgets\nsecond line"` + "\n", "State: open, mergeable\n", "Author: alice\n", "Labels: bug, needs review\n",
		"Base: main at " + strings.Repeat("a", 40) + "\n", "Head: feature at " + strings.Repeat("b", 40) + "\n",
		"URL: http://forge/acme/widgets/pulls/3\n", fmt.Sprintf("Description, bytes 0 to %d of %d", len(*out.Body), len(body)),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%.1500s", want, text)
		}
	}
	if !strings.HasPrefix(text, "acme/widgets#3: ") {
		t.Fatalf("the first line is not the header:\n%.200s", text)
	}

	// Followed to the end, the parts are the description, in text and
	// structured.
	joined, joinedText := *out.Body, textBody(t, text)
	next := out.Next
	for parts := 1; next != nil; parts++ {
		if parts > 100 {
			t.Fatal("more than 100 parts")
		}
		out = getPullRequestOut{}
		text = h.structured("get_pull_request", next.Arguments, &out)
		if out.BodyOffset != len(joined) || *out.Title == "" || out.Head != strings.Repeat("b", 40) {
			t.Fatalf("part %d starts at byte %d, %d bytes were shown: %+v", parts, out.BodyOffset, len(joined), out)
		}
		joined += *out.Body
		joinedText += textBody(t, text)
		next = out.Next
	}
	if joined != body {
		t.Fatalf("the parts put together (%d bytes) are not the description (%d bytes)", len(joined), len(body))
	}
	// The text adds a newline where a part ends inside a line.
	if strings.ReplaceAll(joinedText, "\n", "") != strings.ReplaceAll(body, "\n", "") {
		t.Fatalf("the text's parts put together are not the description")
	}
	if !strings.Contains(text, "no newline at its end") {
		t.Errorf("the last part does not say the description ends without a newline:\n%.300s", text[:min(300, len(text))])
	}

	// The head moves between two parts: refused. So is an edited description.
	first := h.call("get_pull_request", args("owner", "acme", "repo", "widgets", "index", 3))
	n := nextOf(t, first)
	p.set("head", map[string]any{"ref": "feature", "sha": strings.Repeat("d", 40)})
	if msg := h.fails("get_pull_request", n.Arguments, "INVALID_ARGUMENT"); !strings.Contains(msg, "moved from bbbbbbbbbbbb to dddddddddddd") {
		t.Fatalf("head moved: %s", msg)
	}
	p.set("head", map[string]any{"ref": "feature", "sha": strings.Repeat("b", 40)})
	p.set("body", body+"!")
	if msg := h.fails("get_pull_request", n.Arguments, "INVALID_ARGUMENT"); !strings.Contains(msg, "description changed") {
		t.Fatalf("description edited: %s", msg)
	}

	// A short description comes whole; a merged pull request says so; a
	// forge that does not count the files has them counted by its listing.
	p.set("body", "Fixes #2.\n")
	p.set("state", "closed")
	p.set("merged", true)
	p.set("labels", []any{})
	p.noCount = true
	out = getPullRequestOut{}
	text = h.structured("get_pull_request", args("owner", "acme", "repo", "widgets", "index", 3), &out)
	if *out.State != "merged" || *out.Body != "Fixes #2.\n" || out.Truncated || out.Next != nil || *out.ChangedFiles != 5 {
		t.Fatalf("%+v", out)
	}
	for _, want := range []string{"acme/widgets#3: 5 files changed", "State: merged\n", "Labels: none\n", "Description (10 bytes):\nFixes #2.\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	p.set("body", "")
	if text = h.ok("get_pull_request", args("owner", "acme", "repo", "widgets", "index", 3)); !strings.HasSuffix(text, "Description: none\n") {
		t.Errorf("an empty description:\n%s", text)
	}

	// Not found: the pull request, or the repository.
	h.fails("get_pull_request", args("owner", "acme", "repo", "widgets", "index", 4), "NOT_FOUND")
	h.fails("get_pull_request", args("owner", "acme", "repo", "nope", "index", 3), "NOT_FOUND")
	p.notFound = true
	if msg := h.fails("get_pull_request", args("owner", "acme", "repo", "widgets", "index", 3), "NOT_FOUND"); !strings.Contains(msg, "pull request #3 does not exist in acme/widgets") {
		t.Fatalf("404: %s", msg)
	}
	h.fails("get_pull_request", args("owner", "..", "repo", "widgets", "index", 3), "INVALID_ARGUMENT")
}

// textBody is the description's share in a part's text: after the
// "Description…:" line, up to the next call's line.
func textBody(t *testing.T, text string) string {
	t.Helper()
	i := strings.Index(text, "\nDescription")
	if i < 0 {
		t.Fatalf("no description in:\n%.300s", text)
	}
	rest := text[i+1:]
	rest = rest[strings.IndexByte(rest, '\n')+1:]
	if j := strings.LastIndex(rest, "[partial reply] Next part: call "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// The forge's errors never carry the token, whatever its status; the
// forge's echo does arrive, scrubbed.
func TestGetPullRequestForgeNeverLeaksTheToken(t *testing.T) {
	const token = "TOPSECRETTOKEN"
	f := forgetest.New(t)
	var log bytes.Buffer
	h, _, _ := serveForgeWith(t, f.URL, token, f.Repo, 30*time.Second, time.Hour, forge.Limits{}, &log)
	echoed := 0
	for _, status := range []int32{400, 401, 403, 404, 422, 500, 502} {
		f.EchoAPI.Store(status)
		res := h.call("get_pull_request", args("owner", "acme", "repo", "widgets", "index", 1))
		data, _ := json.Marshal(res)
		if !res.IsError || bytes.Contains(data, []byte(token)) {
			t.Errorf("%d: %s", status, data)
		}
		echoed += bytes.Count(data, []byte("token [token]"))
	}
	if echoed == 0 {
		t.Fatal("no reply quoted the forge's echo: the test tests nothing")
	}
	if strings.Contains(log.String(), token) {
		t.Errorf("the log carries the token:\n%s", log.String())
	}
}

func TestGetPullRequestBadInput(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)
	before := r.Snapshot()
	for _, c := range []struct {
		name string
		args map[string]any
		code string
	}{
		{"unknown index", prArgs(99), "NOT_FOUND"},
		{"zero index", prArgs(0), "INVALID_ARGUMENT"},
		{"negative index", prArgs(-7), "INVALID_ARGUMENT"},
		{"index as a word", args("owner", "acme", "repo", "widgets", "index", "seven"), "INVALID_ARGUMENT"},
		{"index as a path", args("owner", "acme", "repo", "widgets", "index", "7/../../x"), "INVALID_ARGUMENT"},
		{"fractional index", args("owner", "acme", "repo", "widgets", "index", 7.5), "INVALID_ARGUMENT"},
		{"index missing", args("owner", "acme", "repo", "widgets"), "INVALID_ARGUMENT"},
		{"unknown repository", map[string]any{"owner": "acme", "repo": "nope", "index": 7}, "NOT_FOUND"},
		{"owner missing", map[string]any{"repo": "widgets", "index": 7}, "INVALID_ARGUMENT"},
		{"damaged cursor", prArgs(7, "cursor", "abc.def"), "INVALID_ARGUMENT"},
		{"unknown parameter", prArgs(7, "file_path", "x"), "INVALID_ARGUMENT"},
	} {
		t.Run(c.name, func(t *testing.T) { h.fails("get_pull_request", c.args, c.code) })
	}
	// A number sent as a string is read as the number (argcheck).
	if got, want := h.ok("get_pull_request", args("owner", "acme", "repo", "widgets", "index", "7")), h.ok("get_pull_request", prArgs(7)); got != want {
		t.Fatalf("index \"7\":\n%s\nindex 7:\n%s", got, want)
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("repository changed")
	}
	// A cursor of another tool is refused.
	big := serve(t, bigPullRequest(t, r).Repo, withMaxBytes(MinMaxBytes))
	res := big.call("get_pull_request_diff", prArgs(7))
	if n := nextOf(t, res); n != nil {
		big.fails("get_pull_request", prArgs(7, "cursor", n.Arguments["cursor"]), "INVALID_ARGUMENT")
	}
}

// bigPullRequest gives #7 of r enough commits to take several parts at
// the smallest reply limit.
func bigPullRequest(t *testing.T, r *prRepo) *prRepo {
	t.Helper()
	r.Git("checkout", "-q", "feature")
	for i := range 40 {
		r.Git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("Commit %d with a subject long enough to fill a part sooner than later", i))
	}
	r.Git("update-ref", "refs/pull/7/head", "HEAD")
	r.Git("checkout", "-q", "main")
	return r
}
