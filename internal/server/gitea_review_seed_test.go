package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// The review-context fixture: acme/reviewed, one pull request reviewed by
// alice and bob, with threads, a discussion and commit statuses, made on
// the Gitea of needGitea. Tests of the review tools compare against the
// reviewSeed that seedReviewPR returns; TestGiteaReviewSeed checks the seed
// itself through Gitea's API, so a failing tool test blames the tool.

// reviewSeed is what seedReviewPR made, as a test expects to read it back.
type reviewSeed struct {
	Owner, Repo string
	Index       int    // the pull request, feature into main
	Author      string // the PR's poster: g's token user (a site admin)
	FirstHead   string // feature when the reviews were made
	Head        string // feature after the second push: the PR's head
	MergeBase   string

	// Alice and Bob are the reviewers (write collaborators); their tokens
	// have scope "all".
	Alice, Bob seedUser

	// Reviews in the order Gitea lists them (created, id), all given on
	// FirstHead: alice APPROVED, bob REQUEST_CHANGES, alice COMMENT (the
	// stand-in for a reply).
	Reviews []seedReview
	// Comments are the inline comments of all reviews, by id (creation
	// order): bob's three, then alice's reply.
	Comments []seedReviewComment
	// The special ones, as ids into Comments.
	OutdatedID int64 // bob's comment whose line the second push changed
	ResolvedID int64 // bob's docs/guide.md comment, resolved by Author
	ReplyID    int64 // alice's comment in the thread of ReplyToID
	ReplyToID  int64 // bob's old-side comment on app/server.go

	// Discussion is the PR's five plain comments, in order.
	Discussion []seedIssueComment
	BigIndex   int    // Discussion[BigIndex] is the 80 KB one
	BidiIndex  int    // Discussion[BidiIndex] holds U+202E
	Since      string // Discussion[2].CreatedAt; since=Since lists Discussion[2:]

	// Statuses on Head, in the order they were made; combined: "failure".
	Statuses      []seedStatus
	CombinedState string
}

type seedUser struct{ Login, Token string }

type seedReview struct {
	ID            int64
	User, State   string
	Body          string
	CommitID      string // the head it was given on
	Stale         bool   // given on FirstHead: the second push marked it stale
	CommentsCount int
}

type seedReviewComment struct {
	ID       int64
	ReviewID int64
	User     string
	Path     string
	Side     string // "new" (Gitea's position) or "old" (original_position)
	Line     int    // a file line number on Side, not a diff offset
	Body     string
	CommitID string // Gitea's commit_id: the line's blame commit (new side) or the head (old side) when made
	DiffHunk string // as Gitea cut it when the comment was made: an outdated one still shows the old line
	Outdated bool   // Gitea's Invalidated; not in the API, only on the web page
	Resolver string // "" unless resolved
}

type seedIssueComment struct {
	ID        int64
	User      string
	Body      string
	CreatedAt string // RFC 3339, as Gitea gives it
}

type seedStatus struct {
	ID                                     int64 // Gitea's per-commit index
	Context, State, Description, TargetURL string
}

const seedPassword = "review-seed-password-1" // alice's and bob's, reset on every seeding

// seedReviewPR makes acme/reviewed afresh (users are reused) and returns
// what it made. It takes a few seconds: Gitea marks outdated comments
// and stale reviews after a push asynchronously, and the seed waits for it.
func seedReviewPR(t testing.TB, g *giteaAPI) *reviewSeed {
	t.Helper()
	s := &reviewSeed{Owner: "acme", Repo: "reviewed", BigIndex: 3, BidiIndex: 4, CombinedState: "failure"}
	repoAPI := "/api/v1/repos/acme/reviewed"
	var me struct {
		Login string `json:"login"`
	}
	g.getJSON("/api/v1/user", &me)
	s.Author = me.Login
	s.Alice, s.Bob = g.reviewer("alice"), g.reviewer("bob")

	r, mergeBase, first := reviewedRepo(t)
	s.MergeBase, s.FirstHead = mergeBase, first
	g.recreate("acme", "reviewed")
	g.push(r, "acme/reviewed", "main", "feature")
	for _, u := range []seedUser{s.Alice, s.Bob} {
		g.send(g.token, "PUT", repoAPI+"/collaborators/"+u.Login, map[string]string{"permission": "write"}, 204, nil)
	}
	s.Index = g.openPR("acme/reviewed", "feature", "main")
	pulls := fmt.Sprintf("%s/pulls/%d", repoAPI, s.Index)
	g.waitFor("the pull request's head to be "+first, func() bool { return g.prHead(pulls) == first })

	// The reviews on the first head.
	approve, _ := g.review(s.Alice, pulls, s.FirstHead, "APPROVED", "Looks good to me")
	reject, byLine := g.review(s.Bob, pulls, s.FirstHead, "REQUEST_CHANGES", "Three things to fix before this goes in.",
		seedLine{"app/server.go", "new", 16, "Why 60 seconds? The old 30 was documented."},
		seedLine{"app/server.go", "old", 21, "Keep fmt here: the log package adds a timestamp we do not want."},
		seedLine{"docs/guide.md", "new", 12, "Say which port the server listens on."})
	s.OutdatedID = byLine["app/server.go new 16"].ID
	s.ReplyToID = byLine["app/server.go old 21"].ID
	s.ResolvedID = byLine["docs/guide.md new 12"].ID
	// The API has no replies: a comment at the same path and line through
	// a new review is the same thread in Gitea's UI. Made before the push:
	// an old-side comment made at the second head would be outdated as soon
	// as Gitea checks it (it compares the line's blame commit with the head
	// the comment was made at), and whether that check runs after it is a race.
	reply, replies := g.review(s.Alice, pulls, s.FirstHead, "COMMENT", "", seedLine{"app/server.go", "old", 21, "Agreed, fmt keeps the output plain."})
	s.ReplyID = replies["app/server.go old 21"].ID

	// The author changes the line of bob's first comment after the review.
	r.Write("app/server.go", featureServerGo(45))
	s.Head = r.Commit("feature: a shorter timeout")
	g.push(r, "acme/reviewed", "feature")
	g.waitFor("the pull request's head to be "+s.Head, func() bool { return g.prHead(pulls) == s.Head })
	g.send(g.token, "POST", fmt.Sprintf("%s/pulls/comments/%d/resolve", repoAPI, s.ResolvedID), nil, 204, nil)
	// After a push Gitea marks reviews stale and comments outdated in the
	// background: wait for both, so the tests see the final state.
	g.waitFor("Gitea to mark the first reviews stale", func() bool {
		var rs []struct{ Stale bool }
		g.getJSON(pulls+"/reviews", &rs)
		return len(rs) == 3 && rs[0].Stale && rs[1].Stale && rs[2].Stale
	})
	g.waitFor(fmt.Sprintf("the web page to show comment %d outdated", s.OutdatedID), func() bool {
		return slices.Equal(g.outdatedOrResolved(s.Index), []int64{s.OutdatedID, s.ResolvedID})
	})

	s.Discussion = g.seedDiscussion(s, fmt.Sprintf("%s/issues/%d/comments", repoAPI, s.Index))
	s.Since = s.Discussion[2].CreatedAt
	s.Statuses = []seedStatus{
		g.status(repoAPI, s.Head, "ci/build", "success", "The build passed", "https://ci.example.com/builds/101"),
		g.status(repoAPI, s.Head, "ci/test", "failure", "2 of 48 tests failed", "https://ci.example.com/builds/101/tests"),
	}

	// The expected state, and Gitea's asynchronous work after the push.
	for _, c := range byLine {
		c.Outdated = c.ID == s.OutdatedID
		if c.ID == s.ResolvedID {
			c.Resolver = s.Author
		}
	}
	s.Comments = append(s.Comments, *byLine["app/server.go new 16"], *byLine["app/server.go old 21"], *byLine["docs/guide.md new 12"])
	s.Comments = append(s.Comments, *replies["app/server.go old 21"])
	slices.SortFunc(s.Comments, func(a, b seedReviewComment) int { return int(a.ID - b.ID) })
	approve.Stale, reject.Stale, reply.Stale = true, true, true // a push marks every review on an older head stale, COMMENT too
	approve.CommentsCount, reject.CommentsCount, reply.CommentsCount = 0, 3, 1
	s.Reviews = []seedReview{approve, reject, reply}
	if got := g.outdatedOrResolved(s.Index); !slices.Equal(got, []int64{s.OutdatedID, s.ResolvedID}) {
		t.Fatalf("the web page shows comments %v outdated or resolved, want %d and %d", got, s.OutdatedID, s.ResolvedID)
	}
	return s
}

// reviewedRepo: main and feature, two files of 30 lines each changed in
// several lines by feature's first commit; feature is checked out.
func reviewedRepo(t testing.TB) (r *testrepo.Repo, mergeBase, feature string) {
	r = testrepo.New(t)
	r.Write("app/server.go", reviewedServerGo)
	r.Write("docs/guide.md", reviewedGuide)
	r.Write("README.md", "# reviewed\n")
	mergeBase = r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("app/server.go", featureServerGo(60))
	r.Write("docs/guide.md", withLines(reviewedGuide, map[int]string{
		5: "Run `server -addr :8080` to start it.", 12: "The server listens on the address it is given.", 20: "Stop it with Ctrl-C; it closes its listeners first.",
	}))
	feature = r.Commit("feature: logging and a longer timeout")
	return r, mergeBase, feature
}

// featureServerGo is app/server.go on feature: lines 4, 16, 21 and 27
// changed; the second push changes only the timeout on line 16.
func featureServerGo(timeout int) string {
	return withLines(reviewedServerGo, map[int]string{
		4:  "\t\"log\"",
		16: fmt.Sprintf("\treturn &Server{Addr: addr, Timeout: %d}", timeout),
		21: "\tlog.Printf(\"starting on %s\", s.Addr)",
		27: "\treturn nil // TODO: close the listeners",
	})
}

var reviewedServerGo = `package app

import (
	"fmt"
	"net/http"
)

// Server answers HTTP requests.
type Server struct {
	Addr    string
	Timeout int
}

// New makes a server on addr.
func New(addr string) *Server {
	return &Server{Addr: addr, Timeout: 30}
}

// Start listens on the server's address.
func (s *Server) Start() error {
	fmt.Println("starting on", s.Addr)
	return http.ListenAndServe(s.Addr, nil)
}

// Stop stops the server.
func (s *Server) Stop() error {
	return nil
}

// The end of server.go.
`

var reviewedGuide = func() string {
	var b strings.Builder
	b.WriteString("# Guide\n\n")
	for i := 3; i <= 30; i++ {
		fmt.Fprintf(&b, "Line %d of the guide says something about the server.\n", i)
	}
	return b.String()
}()

// withLines is text with some of its lines (1-based) replaced, so line
// numbers stay put.
func withLines(text string, repl map[int]string) string {
	lines := strings.SplitAfter(text, "\n")
	for n, l := range repl {
		lines[n-1] = l + "\n"
	}
	return strings.Join(lines, "")
}

// reviewer makes (or finds) a user with seedPassword and a fresh token.
func (g *giteaAPI) reviewer(login string) seedUser {
	g.t.Helper()
	no := false
	status, body := g.do("POST", "/api/v1/admin/users", jsonText(map[string]any{
		"username": login, "email": login + "@example.com", "password": seedPassword, "must_change_password": &no,
	}))
	if status == 422 && strings.Contains(body, "already exists") {
		g.send(g.token, "PATCH", "/api/v1/admin/users/"+login, map[string]any{
			"source_id": 0, "login_name": login, "password": seedPassword, "must_change_password": &no,
		}, 200, nil)
	} else if status != 201 {
		g.t.Fatalf("creating user %s: %d %s", login, status, body)
	}
	tokens := "/api/v1/users/" + login + "/tokens"
	g.basic(login, "DELETE", tokens+"/review-seed", "") // from an earlier seeding, if any
	status, body = g.basic(login, "POST", tokens, `{"name":"review-seed","scopes":["all"]}`)
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	if json.Unmarshal([]byte(body), &tok); status != 201 || tok.SHA1 == "" {
		g.t.Fatalf("a token for %s: %d %s", login, status, body)
	}
	return seedUser{Login: login, Token: tok.SHA1}
}

// basic is do with login's password instead of the token.
func (g *giteaAPI) basic(login, method, path, body string) (int, string) {
	g.t.Helper()
	return g.request(method, path, body, func(req *http.Request) { req.SetBasicAuth(login, seedPassword) })
}

// seedLine is an inline comment to make.
type seedLine struct {
	path, side string
	line       int
	body       string
}

// review submits a review by u at commit (the PR's head if ""), with
// inline comments, and returns it and its comments as reviewComments does.
func (g *giteaAPI) review(u seedUser, pulls, commit, event, body string, lines ...seedLine) (seedReview, map[string]*seedReviewComment) {
	g.t.Helper()
	comments := []map[string]any{}
	for _, l := range lines {
		c := map[string]any{"path": l.path, "body": l.body}
		if l.side == "old" {
			c["old_position"] = l.line
		} else {
			c["new_position"] = l.line
		}
		comments = append(comments, c)
	}
	var got struct {
		ID       int64  `json:"id"`
		State    string `json:"state"`
		CommitID string `json:"commit_id"`
	}
	g.send(u.Token, "POST", pulls+"/reviews", map[string]any{"event": event, "body": body, "commit_id": commit, "comments": comments}, 200, &got)
	if got.State != event {
		g.t.Fatalf("%s's review: state %q, want %q", u.Login, got.State, event)
	}
	made := g.reviewComments(pulls, got.ID, u.Login)
	for _, l := range lines {
		if c := made[fmt.Sprintf("%s %s %d", l.path, l.side, l.line)]; len(made) != len(lines) || c == nil || c.Body != l.body {
			g.t.Fatalf("%s's review %d: comments %v, want %+v", u.Login, got.ID, made, lines)
		}
	}
	return seedReview{ID: got.ID, User: u.Login, State: got.State, Body: body, CommitID: got.CommitID}, made
}

// giteaReviewComment is Gitea's PullReviewComment, the fields we check.
type giteaReviewComment struct {
	ID               int64  `json:"id"`
	ReviewID         int64  `json:"pull_request_review_id"`
	Body             string `json:"body"`
	Path             string `json:"path"`
	CommitID         string `json:"commit_id"`
	DiffHunk         string `json:"diff_hunk"`
	Position         int    `json:"position"`
	OriginalPosition int    `json:"original_position"`
	User             struct {
		Login string `json:"login"`
	} `json:"user"`
	Resolver *struct {
		Login string `json:"login"`
	} `json:"resolver"`
}

func (c giteaReviewComment) asSeed() seedReviewComment {
	s := seedReviewComment{ID: c.ID, ReviewID: c.ReviewID, User: c.User.Login, Path: c.Path, Side: "new", Line: c.Position, Body: c.Body, CommitID: c.CommitID, DiffHunk: c.DiffHunk}
	if c.OriginalPosition > 0 {
		s.Side, s.Line = "old", c.OriginalPosition
	}
	if c.Resolver != nil {
		s.Resolver = c.Resolver.Login
	}
	return s
}

// reviewComments are a review's inline comments keyed "path side line".
func (g *giteaAPI) reviewComments(pulls string, review int64, user string) map[string]*seedReviewComment {
	g.t.Helper()
	var got []giteaReviewComment
	g.getJSON(fmt.Sprintf("%s/reviews/%d/comments", pulls, review), &got)
	m := map[string]*seedReviewComment{}
	for _, c := range got {
		s := c.asSeed()
		if s.User != user {
			g.t.Fatalf("review %d: a comment by %s: %+v", review, s.User, c)
		}
		m[fmt.Sprintf("%s %s %d", s.Path, s.Side, s.Line)] = &s
	}
	return m
}

// seedDiscussion posts the five plain comments; the third starts a new
// second, so since=its created_at lists exactly the last three.
func (g *giteaAPI) seedDiscussion(s *reviewSeed, comments string) []seedIssueComment {
	g.t.Helper()
	var big strings.Builder
	for i := 1; big.Len() < 80_000; i++ {
		fmt.Fprintf(&big, "%04d %s: %s\n", i, []string{"checked", "todo", "note", "fixed"}[i%4], strings.Repeat("abcdefghij"[i%10:], 1+i%7))
	}
	bodies := []struct {
		by   seedUser
		body string
	}{
		{seedUser{s.Author, g.token}, "Ready for review: logging and a configurable timeout."},
		{s.Bob, "I will look at it today."},
		{s.Alice, "The timeout change needs a note in the changelog."},
		{s.Bob, big.String()},
		{s.Alice, "The file name reads \u202Egnp.exe in the listing; please check."},
	}
	var out []seedIssueComment
	for i, b := range bodies {
		if i == 2 {
			last, err := time.Parse(time.RFC3339, out[1].CreatedAt)
			if err != nil {
				g.t.Fatal(err)
			}
			time.Sleep(time.Until(last.Add(time.Second)) + 100*time.Millisecond)
		}
		var c struct {
			ID   int64 `json:"id"`
			User struct {
				Login string `json:"login"`
			} `json:"user"`
			CreatedAt string `json:"created_at"`
		}
		g.send(b.by.Token, "POST", comments, map[string]string{"body": b.body}, 201, &c)
		out = append(out, seedIssueComment{ID: c.ID, User: c.User.Login, Body: b.body, CreatedAt: c.CreatedAt})
	}
	return out
}

func (g *giteaAPI) status(repoAPI, sha, context, state, description, target string) seedStatus {
	g.t.Helper()
	var got struct {
		ID int64 `json:"id"`
	}
	g.send(g.token, "POST", repoAPI+"/statuses/"+sha, map[string]string{
		"context": context, "state": state, "description": description, "target_url": target,
	}, 201, &got)
	return seedStatus{ID: got.ID, Context: context, State: state, Description: description, TargetURL: target}
}

func (g *giteaAPI) prHead(pulls string) string {
	var pr struct {
		Head struct {
			SHA string `json:"sha"`
		} `json:"head"`
	}
	g.getJSON(pulls, &pr)
	return pr.Head.SHA
}

// outdatedOrResolved are the ids of the comments that head a thread shown
// outdated or resolved on the pull request's web page (Gitea's API does
// not say which comments are outdated; the page's "show outdated" button
// does, templates/repo/issue/view_content/conversation.tmpl).
func (g *giteaAPI) outdatedOrResolved(index int) []int64 {
	g.t.Helper()
	// A page asked for while Gitea works on a push can hang (seen with
	// v1.26.0 and SQLite): give up on it and ask again.
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(fmt.Sprintf("%s/acme/reviewed/pulls/%d", g.url, index))
	if err != nil {
		g.t.Logf("the web page: %v", err)
		return nil
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	var ids []int64
	for _, m := range regexp.MustCompile(`id="show-outdated-(\d+)"`).FindAllStringSubmatch(string(page), -1) {
		var id int64
		fmt.Sscan(m[1], &id)
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// waitFor polls done for up to 30 seconds.
func (g *giteaAPI) waitFor(what string, done func() bool) {
	g.t.Helper()
	for start := time.Now(); !done(); time.Sleep(200 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			g.t.Fatalf("waited 30s for %s", what)
		}
	}
}

// getJSON GETs path (which must answer 200) into v.
func (g *giteaAPI) getJSON(path string, v any) {
	g.t.Helper()
	if body := g.get(path); json.Unmarshal([]byte(body), v) != nil {
		g.t.Fatalf("GET %s: not the JSON expected: %.300s", path, body)
	}
}

// doAs is do with another user's token.
func (g *giteaAPI) doAs(token, method, path, body string) (int, string) {
	g.t.Helper()
	as := *g
	as.token = token
	return as.do(method, path, body)
}

// send is doAs with body as JSON, which must answer want; the answer
// goes into out unless it is nil.
func (g *giteaAPI) send(token, method, path string, body any, want int, out any) {
	g.t.Helper()
	in := ""
	if body != nil {
		in = jsonText(body)
	}
	status, resp := g.doAs(token, method, path, in)
	if status != want {
		g.t.Fatalf("%s %s: %d %.500s, want %d", method, path, status, resp, want)
	}
	if out != nil && json.Unmarshal([]byte(resp), out) != nil {
		g.t.Fatalf("%s %s: not the JSON expected: %.300s", method, path, resp)
	}
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestGiteaReviewSeed checks seedReviewPR against Gitea's own API: the
// fixture the review tools' tests trust is what it says it is.
func TestGiteaReviewSeed(t *testing.T) {
	g := needGitea(t)
	s := seedReviewPR(t, g)
	pulls := fmt.Sprintf("/api/v1/repos/acme/reviewed/pulls/%d", s.Index)

	t.Run("the pull request", func(t *testing.T) {
		var pr struct {
			User struct {
				Login string `json:"login"`
			} `json:"user"`
			Base, Head struct {
				Ref string `json:"ref"`
				SHA string `json:"sha"`
			}
			MergeBase    string `json:"merge_base"`
			ChangedFiles int    `json:"changed_files"`
		}
		g.getJSON(pulls, &pr)
		if pr.User.Login != s.Author || pr.Head.Ref != "feature" || pr.Base.Ref != "main" || pr.Head.SHA != s.Head || pr.MergeBase != s.MergeBase || pr.ChangedFiles != 2 || s.Head == s.FirstHead {
			t.Fatalf("%+v\nseed %+v", pr, s)
		}
	})
	t.Run("reviews", func(t *testing.T) {
		var got []struct {
			ID    int64  `json:"id"`
			State string `json:"state"`
			Body  string `json:"body"`
			User  struct {
				Login string `json:"login"`
			} `json:"user"`
			CommitID      string `json:"commit_id"`
			Stale         bool   `json:"stale"`
			Dismissed     bool   `json:"dismissed"`
			CommentsCount int    `json:"comments_count"`
		}
		g.getJSON(pulls+"/reviews", &got)
		want := []seedReview{
			{User: "alice", State: "APPROVED", Body: "Looks good to me", CommitID: s.FirstHead, Stale: true},
			{User: "bob", State: "REQUEST_CHANGES", Body: "Three things to fix before this goes in.", CommitID: s.FirstHead, Stale: true, CommentsCount: 3},
			{User: "alice", State: "COMMENT", CommitID: s.FirstHead, Stale: true, CommentsCount: 1},
		}
		if len(got) != len(want) || len(s.Reviews) != len(want) {
			t.Fatalf("%d reviews, seed %d, want %d: %+v", len(got), len(s.Reviews), len(want), got)
		}
		for i, r := range got {
			have := seedReview{ID: r.ID, User: r.User.Login, State: r.State, Body: r.Body, CommitID: r.CommitID, Stale: r.Stale, CommentsCount: r.CommentsCount}
			want[i].ID = s.Reviews[i].ID
			if have != want[i] || s.Reviews[i] != want[i] || r.Dismissed {
				t.Errorf("review %d: Gitea %+v\nseed %+v\nwant %+v", i, r, s.Reviews[i], want[i])
			}
		}
	})
	t.Run("inline comments", func(t *testing.T) {
		want := []seedReviewComment{
			{ReviewID: s.Reviews[1].ID, User: "bob", Path: "app/server.go", Side: "new", Line: 16, CommitID: s.FirstHead, Outdated: true},
			{ReviewID: s.Reviews[1].ID, User: "bob", Path: "app/server.go", Side: "old", Line: 21, CommitID: s.FirstHead},
			{ReviewID: s.Reviews[1].ID, User: "bob", Path: "docs/guide.md", Side: "new", Line: 12, CommitID: s.FirstHead, Resolver: s.Author},
			{ReviewID: s.Reviews[2].ID, User: "alice", Path: "app/server.go", Side: "old", Line: 21, CommitID: s.FirstHead},
		}
		var got []seedReviewComment
		for _, r := range s.Reviews {
			var cs []giteaReviewComment
			g.getJSON(fmt.Sprintf("%s/reviews/%d/comments", pulls, r.ID), &cs)
			for _, c := range cs {
				got = append(got, c.asSeed())
			}
		}
		slices.SortFunc(got, func(a, b seedReviewComment) int { return int(a.ID - b.ID) })
		if len(got) != len(want) || len(s.Comments) != len(want) {
			t.Fatalf("%d comments, seed %d, want %d: %+v", len(got), len(s.Comments), len(want), got)
		}
		// What each comment's diff_hunk ends with: the line as it was
		// reviewed, also for the outdated one.
		hunkEnds := []string{"\n+\treturn &Server{Addr: addr, Timeout: 60}", "\n-\tfmt.Println(\"starting on\", s.Addr)",
			"\n+The server listens on the address it is given.", "\n-\tfmt.Println(\"starting on\", s.Addr)"}
		for i := range want {
			want[i].ID, want[i].Body, want[i].DiffHunk = s.Comments[i].ID, s.Comments[i].Body, s.Comments[i].DiffHunk
			if h := got[i].DiffHunk; !strings.HasPrefix(h, "@@ -") || !strings.HasSuffix(h, hunkEnds[i]) {
				t.Errorf("comment %d's diff_hunk %q does not end with %q", i, h, hunkEnds[i])
			}
			outdated := got[i].ID == s.OutdatedID // the web page's word, checked below
			got[i].Outdated = outdated
			if got[i] != want[i] || s.Comments[i] != want[i] || want[i].Body == "" {
				t.Errorf("comment %d: Gitea %+v\nseed %+v\nwant %+v", i, got[i], s.Comments[i], want[i])
			}
		}
		if s.OutdatedID != want[0].ID || s.ReplyToID != want[1].ID || s.ResolvedID != want[2].ID || s.ReplyID != want[3].ID {
			t.Errorf("seed's ids: outdated %d, reply to %d, resolved %d, reply %d; comments %+v", s.OutdatedID, s.ReplyToID, s.ResolvedID, s.ReplyID, got)
		}
		if shown := g.outdatedOrResolved(s.Index); !slices.Equal(shown, []int64{s.OutdatedID, s.ResolvedID}) {
			t.Errorf("the web page shows %v outdated or resolved, want %d (outdated) and %d (resolved)", shown, s.OutdatedID, s.ResolvedID)
		}
	})
	t.Run("discussion", func(t *testing.T) {
		type comment struct {
			ID   int64 `json:"id"`
			Body string
			User struct {
				Login string `json:"login"`
			} `json:"user"`
			CreatedAt string `json:"created_at"`
		}
		list := func(query string) []seedIssueComment {
			var got []comment
			g.getJSON(fmt.Sprintf("/api/v1/repos/acme/reviewed/issues/%d/comments%s", s.Index, query), &got)
			var out []seedIssueComment
			for _, c := range got {
				out = append(out, seedIssueComment{ID: c.ID, User: c.User.Login, Body: c.Body, CreatedAt: c.CreatedAt})
			}
			return out
		}
		users := []string{s.Author, "bob", "alice", "bob", "alice"}
		all := list("")
		if len(all) != 5 || !slices.Equal(all, s.Discussion) {
			t.Fatalf("Gitea's discussion (%d comments) is not the seed's (%d)", len(all), len(s.Discussion))
		}
		for i, c := range all {
			if c.User != users[i] {
				t.Errorf("comment %d by %s, want %s", i, c.User, users[i])
			}
		}
		big, bidi := all[s.BigIndex].Body, all[s.BidiIndex].Body
		if len(big) < 80_000 || strings.Count(big, "\n") < 1000 || !strings.ContainsRune(bidi, '\u202E') || strings.HasPrefix(bidi, "\u202E") {
			t.Errorf("the big comment has %d bytes; the bidi one is %q", len(big), bidi)
		}
		if since := list("?since=" + url.QueryEscape(s.Since)); !slices.Equal(since, s.Discussion[2:]) {
			t.Errorf("since %s: %d comments, want the last 3: %+v", s.Since, len(since), since)
		}
		if all[1].CreatedAt >= s.Since {
			t.Errorf("the second comment at %s is not before since=%s", all[1].CreatedAt, s.Since)
		}
	})
	t.Run("commit statuses", func(t *testing.T) {
		var got struct {
			State      string `json:"state"`
			SHA        string `json:"sha"`
			TotalCount int    `json:"total_count"`
			Statuses   []struct {
				ID          int64  `json:"id"`
				Status      string `json:"status"`
				Context     string `json:"context"`
				Description string `json:"description"`
				TargetURL   string `json:"target_url"`
			} `json:"statuses"`
		}
		g.getJSON("/api/v1/repos/acme/reviewed/commits/"+s.Head+"/status", &got)
		if got.State != s.CombinedState || s.CombinedState != "failure" || got.SHA != s.Head || got.TotalCount != 2 || len(got.Statuses) != 2 || len(s.Statuses) != 2 {
			t.Fatalf("%+v\nseed %+v", got, s.Statuses)
		}
		byContext := map[string]seedStatus{}
		for _, st := range got.Statuses {
			byContext[st.Context] = seedStatus{ID: st.ID, Context: st.Context, State: st.Status, Description: st.Description, TargetURL: st.TargetURL}
		}
		for i, want := range []struct{ context, state string }{{"ci/build", "success"}, {"ci/test", "failure"}} {
			if seed := s.Statuses[i]; byContext[want.context] != seed || seed.State != want.state || seed.Description == "" || seed.TargetURL == "" {
				t.Errorf("%s: Gitea %+v, seed %+v, want state %s", want.context, byContext[want.context], seed, want.state)
			}
		}
	})
}
