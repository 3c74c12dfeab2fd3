package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
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
		subjects = append(subjects, strings.SplitN(c.Message, "\n", 2)[0])
		if c.Partial || c.MessageOffset != 0 || c.Author != "Test Author" || c.Date == "" {
			t.Errorf("commit %+v", c)
		}
	}
	if want := strings.Fields(rev("rev-list", "--reverse", mb+".."+head)); !slices.Equal(shas, want) {
		t.Fatalf("commits %v, git rev-list --reverse says %v", shas, want)
	}
	if want := strings.Split(rev("log", "--reverse", "--format=%s", mb+".."+head), "\n"); !slices.Equal(subjects, want) {
		t.Fatalf("subjects %q, git log says %q", subjects, want)
	}
	if got := out.Commits[2].Message; got != "Grow more.txt\n\nBecause one line\nwas not enough.\n" {
		t.Fatalf("message with its body: %q", got)
	}
	if out.Title != nil || out.State != nil || out.Body != nil || out.Truncated || out.Next != nil || len(out.Labels) != 0 {
		t.Fatalf("a local pull request has no forge fields: %+v", out)
	}
	// The text: list_pull_request_files' header first, then the commits.
	files := h.ok("list_pull_request_files", prArgs(7))
	if first := strings.SplitN(text, "\n", 2)[0]; first != strings.SplitN(files, "\n", 2)[0] {
		t.Fatalf("first line %q, list_pull_request_files says %q", first, strings.SplitN(files, "\n", 2)[0])
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

// A local pull request with more commits, or a longer message, than a
// reply holds comes in parts; followed to the end, they hold every commit
// once, in order, and every message whole.
func TestGetPullRequestLocalParts(t *testing.T) {
	r := newPRRepo(t)
	r.Git("checkout", "-q", "feature")
	var long strings.Builder
	for i := range 200 {
		fmt.Fprintf(&long, "Line %d of a long commit message, ünïcode included.\n", i)
	}
	huge := strings.Repeat("ß", 6000) + "\n" // one line longer than a reply
	for i := range 30 {
		msg := fmt.Sprintf("Commit %d", i)
		switch i {
		case 10:
			msg += "\n\n" + long.String()
		case 20:
			msg += "\n\n" + huge + "after the huge line\n"
		}
		r.Git("commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", msg)
	}
	r.Git("update-ref", "refs/pull/7/head", "HEAD")
	r.Git("checkout", "-q", "main")
	rev := func(args ...string) string { return strings.TrimSpace(r.Git(args...)) }
	head := rev("rev-parse", "refs/pull/7/head")
	want := strings.Fields(rev("rev-list", "--reverse", r.mergeBase+".."+head))

	for _, structured := range []bool{false, true} {
		t.Run(fmt.Sprintf("structured=%v", structured), func(t *testing.T) {
			opts := []option{withMaxBytes(MinMaxBytes)}
			if !structured {
				opts = append(opts, withTextOnly())
			}
			h := serve(t, r.Repo, opts...)
			var shas []string
			messages := map[string]string{}
			type cut struct {
				sha    string
				offset int
			}
			var cuts []cut // where a message went on in the next part
			a := prArgs(7)
			parts := 0
			for ; a != nil; parts++ {
				if parts > 500 {
					t.Fatal("more than 500 parts")
				}
				res := h.call("get_pull_request", a)
				if res.IsError {
					t.Fatalf("part %d: %s", parts, textOf(res))
				}
				text := textOf(res)
				if !strings.HasPrefix(text, "acme/widgets#7: ") {
					t.Fatalf("part %d does not start with the header:\n%.300s", parts, text)
				}
				n := nextOf(t, res)
				if structured {
					var out getPullRequestOut
					data, _ := json.Marshal(res.StructuredContent)
					if err := json.Unmarshal(data, &out); err != nil {
						t.Fatal(err)
					}
					if out.Truncated != (n != nil) || len(out.Commits) == 0 {
						t.Fatalf("part %d: truncated %v, next %v, %d commits", parts, out.Truncated, n, len(out.Commits))
					}
					for _, c := range out.Commits {
						if len(messages[c.SHA]) != c.MessageOffset {
							t.Fatalf("part %d: commit %s goes on from byte %d, %d bytes were shown", parts, c.SHA, c.MessageOffset, len(messages[c.SHA]))
						}
						if c.MessageOffset == 0 {
							shas = append(shas, c.SHA)
						} else {
							cuts = append(cuts, cut{c.SHA, c.MessageOffset})
						}
						messages[c.SHA] += c.Message
					}
				} else {
					for _, line := range strings.Split(text, "\n") {
						if sha, ok := strings.CutPrefix(line, "commit "); ok && !strings.Contains(line, "its message from byte") {
							shas = append(shas, strings.Fields(sha)[0])
						}
					}
				}
				if n == nil {
					a = nil
				} else {
					if n.Tool != "get_pull_request" {
						t.Fatalf("next calls %s", n.Tool)
					}
					a = n.Arguments
				}
			}
			if !slices.Equal(shas, want) {
				t.Fatalf("%d parts listed %d commits, git lists %d:\n%v\n%v", parts, len(shas), len(want), shas, want)
			}
			if parts < 4 {
				t.Fatalf("only %d parts at the smallest reply limit", parts)
			}
			if structured {
				inLine := 0
				for _, c := range cuts {
					if messages[c.sha][c.offset-1] != '\n' {
						inLine++
					}
				}
				if len(cuts) < 3 || inLine == 0 {
					t.Fatalf("messages were cut %d times, %d of them inside a line: the long messages did not take parts", len(cuts), inLine)
				}
				for _, sha := range want {
					if got, w := messages[sha], rev("log", "-1", "--format=%s%n%n%b", sha); strings.TrimRight(got, "\n") != strings.TrimRight(w, "\n") {
						t.Fatalf("the message of %s, put together, is not git's:\n%q\nwant\n%q", sha, got[:min(200, len(got))], w[:min(200, len(w))])
					}
				}
			}
		})
	}
	// A cursor's commits are pinned: the head moving on changes nothing.
	h := serve(t, r.Repo, withMaxBytes(MinMaxBytes))
	res := h.call("get_pull_request", prArgs(7))
	n := nextOf(t, res)
	r.Git("update-ref", "refs/pull/7/head", r.mergeBase)
	var out getPullRequestOut
	h.structured("get_pull_request", n.Arguments, &out)
	if out.Head != head || len(out.Commits) == 0 {
		t.Fatalf("after the head moved, the next part is not of the pinned head: %+v", out)
	}
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
	// A number sent as a string is read as the number (schema.go).
	if got, want := h.ok("get_pull_request", args("owner", "acme", "repo", "widgets", "index", "7")), h.ok("get_pull_request", prArgs(7)); got != want {
		t.Fatalf("index \"7\":\n%s\nindex 7:\n%s", got, want)
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("repository changed")
	}
	// A cursor of another tool, or of another pull request, is refused.
	big := serve(t, bigPullRequest(t, r).Repo, withMaxBytes(MinMaxBytes))
	res := big.call("get_pull_request_diff", prArgs(7))
	if n := nextOf(t, res); n != nil {
		big.fails("get_pull_request", prArgs(7, "cursor", n.Arguments["cursor"]), "INVALID_ARGUMENT")
	}
	n := nextOf(t, big.call("get_pull_request", prArgs(7)))
	if n == nil {
		t.Fatal("no second part")
	}
	big.fails("get_pull_request", prArgs(8, "cursor", n.Arguments["cursor"]), "INVALID_ARGUMENT")
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
