package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// TestGitea runs the contract scenarios of get_pull_request_diff and
// get_file_content (docs/contracts.md), and the mirror-backed tools, against a
// real Gitea started by scripts/gitea-test-server (GITEA_TEST_URL and
// GITEA_TEST_TOKEN). Without one it is skipped, except in CI, where
// .ci/run starts one and a missing server is a failure.
func TestGitea(t *testing.T) {
	g := needGitea(t)
	url, token := g.url, g.token
	r := newPRRepo(t)
	g.recreate("acme", "widgets")
	g.push(r.Repo, "acme/widgets", "main", "feature", "pr9")
	pr := g.openPR("acme/widgets", "feature", "main")
	pr9 := g.openPR("acme/widgets", "pr9", "main")
	h, _ := serveForge(t, url, token, r.Repo, 30*time.Second, time.Minute)

	t.Run("get_pull_request_diff contract", func(t *testing.T) {
		runPullRequestDiffContract(t, h, pr, g.get(fmt.Sprintf("/api/v1/repos/acme/widgets/pulls/%d.diff", pr)))
	})
	t.Run("get_file_content contract", func(t *testing.T) { runContentsContract(t, h) })

	t.Run("the forge's ContentsResponse unchanged", func(t *testing.T) {
		got := h.ok("get_file_content", fileArgs("cmd/main.go", "ref", "main", "with_metadata", true))
		var want, have any
		json.Unmarshal([]byte(g.get("/api/v1/repos/acme/widgets/contents/cmd/main.go?ref=main")), &want)
		json.Unmarshal([]byte(got), &have)
		if fmt.Sprint(want) != fmt.Sprint(have) {
			t.Fatalf("got %s\nthe forge says %v", got, want)
		}
		h.fails("get_file_content", fileArgs("cmd"), "INVALID_ARGUMENT")
		h.fails("get_file_content", fileArgs("nope.go"), "NOT_FOUND")
		h.fails("get_file_content", fileArgs(".env"), "PATH_DENIED")
	})
	t.Run("list_pull_request_files", func(t *testing.T) {
		var out listPullRequestFilesOut
		h.structured("list_pull_request_files", prArgs(pr), &out)
		names := map[string]changedFile{}
		for _, f := range out.Files {
			names[f.Path] = f.changedFile
		}
		// Gitea's own words: "changed" for a modified file, and a changed
		// binary file comes back "unchanged" with 0/0.
		if out.TotalCount != len(out.Files) || out.TotalCount < 6 || names["cmd/main.go"].Status != "changed" || names["new.go"].Status != "renamed" {
			t.Fatalf("%+v", out)
		}
		var page listPullRequestFilesOut
		h.structured("list_pull_request_files", prArgs(pr, "limit", 2, "page", 2), &page)
		if len(page.Files) != 2 || page.TotalCount != out.TotalCount || !page.HasMore || page.Files[0].Path != out.Files[2].Path {
			t.Fatalf("page 2: %+v", page)
		}
		h.fails("list_pull_request_files", prArgs(999), "NOT_FOUND")
	})
	t.Run("a pull request touching a secret", func(t *testing.T) {
		// The whole diff leaves .env out and says so.
		whole := h.ok("get_pull_request_diff", prArgs(pr9))
		if strings.Contains(whole, "diff --git a/.env") || !strings.Contains(whole, "[hidden by the server's secrets policy: .env]") || !strings.Contains(whole, "+fine") {
			t.Fatalf("whole diff: %q", whole)
		}
		h.fails("get_pull_request_diff", prArgs(pr9, "file_path", ".env"), "PATH_DENIED")
		if got := h.ok("get_pull_request_diff", prArgs(pr9, "file_path", "ok.txt")); !strings.Contains(got, "+fine") {
			t.Fatalf("ok.txt: %q", got)
		}
	})
	t.Run("mirror-backed tools", func(t *testing.T) {
		var d getDiffOut
		h.structured("get_diff", args("owner", "acme", "repo", "widgets", "base", "main", "head", "feature"), &d)
		if got, want := concat(d), withoutBinary(r.gitDiff(r.mergeBase, r.feature)); got != want {
			t.Fatalf("get_diff through the mirror:\n%s\nwant\n%s", got, want)
		}
		var rf readFileOut
		h.structured("read_file", args("owner", "acme", "repo", "widgets", "path", "cmd/main.go", "ref", fmt.Sprintf("refs/pull/%d/head", pr)), &rf)
		if !strings.Contains(rf.Content, `println("two")`) {
			t.Fatalf("read_file at the pull request's head: %+v", rf)
		}
		var sc searchCodeOut
		h.structured("search_code", args("owner", "acme", "repo", "widgets", "query", "println", "ref", "feature"), &sc)
		if len(sc.Matches) != 1 || sc.Matches[0].Path != "cmd/main.go" {
			t.Fatalf("search_code: %+v", sc)
		}
		// A branch pushed after the mirror was made is found: a missing
		// ref refreshes the mirror.
		time.Sleep(6 * time.Second) // past the shortest interval between refreshes
		r.Git("branch", "late", "feature")
		g.push(r.Repo, "acme/widgets", "late")
		h.structured("read_file", args("owner", "acme", "repo", "widgets", "path", "cmd/main.go", "ref", "late"), &rf)
	})
	t.Run("bad input", func(t *testing.T) {
		h.fails("get_pull_request_diff", map[string]any{"owner": "acme", "repo": "nope", "index": 1}, "NOT_FOUND")
		h.fails("get_pull_request_diff", map[string]any{"owner": "..", "repo": "widgets", "index": 1}, "INVALID_ARGUMENT")
		h.fails("get_pull_request_diff", prArgs(pr, "file_path", "main.go"), "NOT_FOUND")
		h.fails("get_file_content", fileArgs("cmd/main.go", "ref", "no-such-branch"), "INVALID_REF")
		h.fails("get_file_content", fileArgs("cmd/main.go", "ref", "-x"), "INVALID_REF")
		if got := h.ok("get_file_content", fileArgs("cmd/main.go", "ref", "feature")); !strings.Contains(got, "two") {
			t.Errorf("at feature: %q", got)
		}
	})
	t.Run("get_pull_request", func(t *testing.T) {
		// A description larger than a reply, and a label.
		body := strings.Repeat("A line of the description, ünïcode & <html> included.\r\n", 2500) + "the end"
		status, label := g.do("POST", "/api/v1/repos/acme/widgets/labels", `{"name":"needs review","color":"#ee0701"}`)
		var l struct {
			ID int `json:"id"`
		}
		if json.Unmarshal([]byte(label), &l); status != 201 || l.ID == 0 {
			t.Fatalf("creating a label: %d %s", status, label)
		}
		edit, _ := json.Marshal(map[string]any{"body": body, "labels": []int{l.ID}})
		if status, resp := g.do("PATCH", fmt.Sprintf("/api/v1/repos/acme/widgets/pulls/%d", pr), string(edit)); status != 201 {
			t.Fatalf("editing the pull request: %d %s", status, resp)
		}
		var forge struct {
			Base, Head struct {
				SHA string `json:"sha"`
			}
			MergeBase    string `json:"merge_base"`
			ChangedFiles int    `json:"changed_files"`
		}
		json.Unmarshal([]byte(g.get(fmt.Sprintf("/api/v1/repos/acme/widgets/pulls/%d", pr))), &forge)
		var out getPullRequestOut
		text := h.structured("get_pull_request", prArgs(pr), &out)
		if *out.Title != "feature" || *out.State != "open" || *out.Author != os.Getenv("GITEA_TEST_USER") || out.BaseRef != "main" || out.HeadRef != "feature" ||
			out.Base != forge.Base.SHA || out.Head != forge.Head.SHA || out.Head != r.feature || out.MergeBase != forge.MergeBase || out.MergeBase != r.mergeBase ||
			*out.ChangedFiles != forge.ChangedFiles || !slices.Equal(out.Labels, []string{"needs review"}) || !strings.HasSuffix(*out.URL, fmt.Sprintf("/acme/widgets/pulls/%d", pr)) ||
			*out.CreatedAt == "" || !out.Truncated || out.BodyBytes != len(body) {
			t.Fatalf("%+v\nthe forge says %+v", out, forge)
		}
		// The same first line as list_pull_request_files', which also
		// gives the patch's size and how many parts the diff takes.
		files := h.ok("list_pull_request_files", prArgs(pr))
		filesFirst := regexp.MustCompile(`, \d+ bytes of patch`).ReplaceAllString(strings.SplitN(files, "\n", 2)[0], "")
		if first := strings.SplitN(text, "\n", 2)[0]; first != filesFirst || !strings.Contains(first, "; the whole diff fits one reply") {
			t.Fatalf("first line %q, list_pull_request_files says %q: the same, and the same count of parts", first, strings.SplitN(files, "\n", 2)[0])
		}
		joined := *out.Body
		for parts := 1; out.Next != nil; parts++ {
			if parts > 50 {
				t.Fatal("more than 50 parts")
			}
			next := out.Next.Arguments
			out = getPullRequestOut{}
			h.structured("get_pull_request", next, &out)
			joined += *out.Body
		}
		if joined != body {
			t.Fatalf("the parts put together (%d bytes) are not the description (%d bytes)", len(joined), len(body))
		}
		h.fails("get_pull_request", prArgs(999), "NOT_FOUND")
	})
}

// needGitea is the Gitea of scripts/gitea-test-server (GITEA_TEST_URL and
// GITEA_TEST_TOKEN); without one the test is skipped, except in CI.
func needGitea(t testing.TB) *giteaAPI {
	t.Helper()
	url, token := os.Getenv("GITEA_TEST_URL"), os.Getenv("GITEA_TEST_TOKEN")
	if url == "" || token == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must run the Gitea tests: start one with scripts/gitea-test-server")
		}
		t.Skip("no Gitea: eval \"$(scripts/gitea-test-server start)\" to run these tests")
	}
	return &giteaAPI{t: t, url: strings.TrimRight(url, "/"), token: token}
}

// giteaAPI sets up fixtures through Gitea's API.
type giteaAPI struct {
	t          testing.TB
	url, token string
}

func (g *giteaAPI) do(method, path, body string) (int, string) {
	g.t.Helper()
	return g.request(method, path, body, func(req *http.Request) { req.Header.Set("Authorization", "token "+g.token) })
}

// request sends a JSON request, authenticated by auth.
func (g *giteaAPI) request(method, path, body string, auth func(*http.Request)) (int, string) {
	g.t.Helper()
	req, err := http.NewRequest(method, g.url+path, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	auth(req)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

func (g *giteaAPI) get(path string) string {
	g.t.Helper()
	status, body := g.do("GET", path, "")
	if status != 200 {
		g.t.Fatalf("GET %s: %d %s", path, status, body)
	}
	return body
}

// recreate makes an empty repository owner/name, owner an organization.
func (g *giteaAPI) recreate(owner, name string) {
	g.t.Helper()
	g.do("POST", "/api/v1/orgs", `{"username":"`+owner+`"}`)
	g.do("DELETE", "/api/v1/repos/"+owner+"/"+name, "")
	if status, body := g.do("POST", "/api/v1/orgs/"+owner+"/repos", `{"name":"`+name+`","default_branch":"main"}`); status != 201 {
		g.t.Fatalf("creating %s/%s: %d %s", owner, name, status, body)
	}
}

// push pushes branches of r; the token goes as a header, not in the URL.
func (g *giteaAPI) push(r *testrepo.Repo, fullName string, branches ...string) {
	g.t.Helper()
	args := []string{"-c", "http.extraHeader=Authorization: token " + g.token, "push", "-q", "--force", g.url + "/" + fullName + ".git"}
	for _, b := range branches {
		args = append(args, "refs/heads/"+b+":refs/heads/"+b)
	}
	r.Git(args...)
}

// openPR opens a pull request and returns its number.
func (g *giteaAPI) openPR(fullName, head, base string) int {
	g.t.Helper()
	status, body := g.do("POST", "/api/v1/repos/"+fullName+"/pulls", `{"head":"`+head+`","base":"`+base+`","title":"`+head+`"}`)
	if status != 201 {
		g.t.Fatalf("opening a pull request %s→%s: %d %s", head, base, status, body)
	}
	var pr struct {
		Number int `json:"number"`
	}
	json.Unmarshal([]byte(body), &pr)
	return pr.Number
}

// TestGiteaPullRequestOnAnotherBase: a pull request into release, a branch
// that diverged from the default branch main. Every pull request tool
// takes its base, merge base and commits from the forge's pull request
// (git on a clone of the forge's repository is the oracle), not from the
// default branch; a base that moved on the forge since the mirror was made
// is fetched, and a cursor keeps the commits its first page saw.
func TestGiteaPullRequestOnAnotherBase(t *testing.T) {
	g := needGitea(t)
	r := testrepo.New(t)
	r.Write("shared.txt", "shared\n")
	r.Commit("root")
	r.Git("checkout", "-q", "-b", "release")
	r.Write("release.txt", "release 1\n")
	r.Commit("release one")
	r.Git("checkout", "-q", "-b", "feature")
	for i := 1; i <= 3; i++ {
		r.Write(fmt.Sprintf("f%d.txt", i), "feature\n")
		r.Commit(fmt.Sprintf("feature %d", i))
	}
	r.Git("checkout", "-q", "release")
	r.Write("release.txt", "release 2\n")
	r.Commit("release two")
	r.Git("checkout", "-q", "main")
	r.Write("main.txt", "main moves on\n")
	r.Commit("main moves on")
	g.recreate("acme", "releases")
	g.push(r, "acme/releases", "main", "release", "feature")
	index := g.openPR("acme/releases", "feature", "release")
	h, _ := serveForge(t, g.url, g.token, r, 30*time.Second, time.Minute)
	pr := map[string]any{"owner": "acme", "repo": "releases", "index": index}
	withPR := func(kv ...any) map[string]any {
		m := args(kv...)
		for k, v := range pr {
			m[k] = v
		}
		return m
	}

	// The oracle: the forge's pull request, and git on a clone.
	clone := testrepo.New(t)
	type oracle struct {
		base, mergeBase string
		commits         []string // git log mergeBase..head
	}
	want := func() oracle {
		t.Helper()
		clone.Git("-c", "http.extraHeader=Authorization: token "+g.token, "fetch", "-q", g.url+"/acme/releases.git", "+refs/heads/*:refs/remotes/origin/*")
		var forge struct {
			Base struct {
				Ref string `json:"ref"`
				SHA string `json:"sha"`
			} `json:"base"`
			MergeBase string `json:"merge_base"`
		}
		json.Unmarshal([]byte(g.get(fmt.Sprintf("/api/v1/repos/acme/releases/pulls/%d", index))), &forge)
		o := oracle{base: strings.TrimSpace(clone.Git("rev-parse", "origin/release"))}
		o.mergeBase = strings.TrimSpace(clone.Git("merge-base", "origin/release", "origin/feature"))
		o.commits = histGitLog(clone, o.mergeBase+"..origin/feature")
		if forge.Base.Ref != "release" || forge.Base.SHA != o.base || forge.MergeBase != o.mergeBase || len(o.commits) != 3 {
			t.Fatalf("the fixture is not what the test needs: the forge says %+v; git says %+v", forge, o)
		}
		return o
	}
	checkCommits := func(t *testing.T, o oracle) {
		t.Helper()
		got, first := histListAll(t, h, pr)
		if !slices.Equal(histSHAs(got), o.commits) || first.Base == nil || *first.Base != o.base || first.MergeBase == nil || *first.MergeBase != o.mergeBase {
			t.Fatalf("list_commits index=%d: %v, base %v, merge base %v\nwant %v, base %s, merge base %s",
				index, histSHAs(got), deref(first.Base), deref(first.MergeBase), o.commits, o.base, o.mergeBase)
		}
	}
	o := want()

	t.Run("list_commits", func(t *testing.T) { checkCommits(t, o) })
	t.Run("get_pull_request", func(t *testing.T) {
		var out getPullRequestOut
		h.structured("get_pull_request", pr, &out)
		if out.BaseRef != "release" || out.Base != o.base || out.MergeBase != o.mergeBase {
			t.Fatalf("%+v\nwant base release at %s, merge base %s", out, o.base, o.mergeBase)
		}
	})
	t.Run("list_pull_request_files and get_pull_request_diff", func(t *testing.T) {
		var out listPullRequestFilesOut
		h.structured("list_pull_request_files", pr, &out)
		var names []string
		for _, f := range out.Files {
			names = append(names, f.Path)
		}
		wantNames := strings.Fields(clone.Git("diff", "--name-only", o.mergeBase, o.commits[0]))
		if out.Base != o.base || out.MergeBase != o.mergeBase || !slices.Equal(names, wantNames) {
			t.Fatalf("%+v\nwant base %s, merge base %s, files %v", out, o.base, o.mergeBase, wantNames)
		}
		d := h.ok("get_pull_request_diff", pr)
		var got []string
		for _, s := range sections(d) {
			got = append(got, strings.Fields(s)[2][2:]) // "diff --git a/X b/X"
		}
		if !slices.Equal(got, wantNames) {
			t.Fatalf("get_pull_request_diff's files %v, want %v:\n%s", got, wantNames, d)
		}
	})
	t.Run("the base moves on the forge", func(t *testing.T) {
		first := h.call("list_commits", withPR("limit", 1))
		next := nextOf(t, first)
		if first.IsError || next == nil {
			t.Fatalf("a first page of one commit: %s", textOf(first))
		}
		r.Git("checkout", "-q", "release")
		r.Write("release.txt", "release 3\n")
		r.Commit("release three")
		g.push(r, "acme/releases", "release")
		moved := want()
		if moved.base == o.base {
			t.Fatal("the base did not move")
		}
		// The cursor's pages are the commits the first page saw.
		rest, page2 := histListAll(t, h, next.Arguments)
		var firstOut listCommitsOut
		histDecode(t, first, &firstOut)
		if all := append(histSHAs([]listCommitEntryView{{histCommit: firstOut.Commits[0]}}), histSHAs(rest)...); !slices.Equal(all, o.commits) || *page2.Base != o.base {
			t.Fatalf("through the cursor: %v, base %s; want %v, base %s", all, *page2.Base, o.commits, o.base)
		}
		// A new listing sees the new base, which the mirror fetches (past
		// the shortest interval between two fetches).
		time.Sleep(6 * time.Second)
		checkCommits(t, moved)
	})
}
