package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
)

// TestReviewContextVolumeCannotHide: 9 MiB of comments (Gitea sends a
// conversation as one unpaged list) and 1,001 reviews (paged by 50, with
// X-Total-Count) cannot hide the maintainer's comment and request for
// changes: the comments come in parts, the latest first with order newest,
// the reviews' summary names who requests changes first, and
// get_pull_request's Reviews line gives the counts and the calls that read
// them. Review 3's finding 06 (docs/security.md): each was TOO_LARGE or
// "not known".
func TestReviewContextVolumeCannotHide(t *testing.T) {
	f := forgetest.New(t)
	head := strings.TrimSpace(f.Repo.Git("rev-parse", "topic"))
	base := strings.TrimSpace(f.Repo.Git("rev-parse", "main"))
	user := func(login string) map[string]any { return map[string]any{"login": login} }
	var comments []any
	spam := strings.Repeat("spam line, again and again\n", 1<<16) // 1.7 MiB
	for i := 0; i < 6; i++ {
		comments = append(comments, map[string]any{"id": 100 + i, "user": user("spammer"), "body": spam, "created_at": fmt.Sprintf("2026-01-01T00:00:0%dZ", i)})
	}
	const maintainer = "Do not merge: this leaks the key."
	comments = append(comments, map[string]any{"id": 200, "user": user("maintainer"), "body": maintainer, "created_at": "2026-01-02T00:00:00Z"})
	conversation, err := json.Marshal(comments)
	if err != nil || len(conversation) < 9<<20 {
		t.Fatalf("the conversation is %d bytes, %v", len(conversation), err)
	}
	const reviews = 1001
	const p = "/api/v1/repos/acme/widgets"
	f.API = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case p + "/pulls/1":
			_ = json.NewEncoder(w).Encode(map[string]any{"number": 1, "title": "t", "state": "open", "user": user("m"), "changed_files": 1,
				"base": map[string]any{"ref": "main", "sha": base}, "head": map[string]any{"ref": "topic", "sha": head}, "merge_base": base})
		case p + "/issues/1/comments":
			_, _ = w.Write(conversation)
		case p + "/pulls/1/reviews":
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
			page, limit = max(page, 1), min(max(limit, 1), 50) // Gitea's MAX_RESPONSE_ITEMS
			items := []any{}
			for i := (page - 1) * limit; i < min(reviews, page*limit); i++ {
				state := "COMMENT"
				who := "spammer"
				if i == 0 {
					state, who = "REQUEST_CHANGES", "maintainer"
				}
				items = append(items, map[string]any{"id": 1000 + i, "user": user(who), "state": state, "body": "x", "commit_id": head, "submitted_at": "2026-01-01T00:00:00Z"})
			}
			w.Header().Set("X-Total-Count", strconv.Itoa(reviews))
			_ = json.NewEncoder(w).Encode(items)
		case p + "/commits/" + head + "/status":
			_ = json.NewEncoder(w).Encode(map[string]any{"sha": head, "state": "success", "statuses": []any{}})
		default:
			http.NotFound(w, r)
		}
	}
	h, _, _ := serveForgeWith(t, f.URL, "tok", f.Repo, 60*time.Second, time.Hour, forge.Limits{}, nil, withMaxBytes(1<<20))
	pr := func(kv ...any) map[string]any {
		return args(append([]any{"owner", "acme", "repo", "widgets", "index", 1}, kv...)...)
	}

	// Every comment, whole, in parts; the maintainer's too.
	bodies := map[int64]string{}
	a := pr()
	for part := 0; a != nil; part++ {
		if part > 40 {
			t.Fatal("more than 40 parts")
		}
		var out listPullRequestCommentsOut
		h.structured("list_pull_request_comments", a, &out)
		if out.Total != 7 {
			t.Fatalf("part %d: total %d, want 7", part, out.Total)
		}
		for _, c := range out.Comments {
			if c.BodyOffset != len(bodies[c.ID]) {
				t.Fatalf("part %d: comment %d resumes at %d, %d read", part, c.ID, c.BodyOffset, len(bodies[c.ID]))
			}
			bodies[c.ID] += c.Body
		}
		a = nil
		if out.Next != nil {
			a = out.Next.Arguments
		}
	}
	if len(bodies) != 7 || bodies[200] != maintainer || bodies[103] != spam {
		t.Fatalf("%d comments read back; the maintainer's: %q", len(bodies), bodies[200])
	}
	// The newest first, in one call.
	var newest listPullRequestCommentsOut
	h.structured("list_pull_request_comments", pr("order", "newest"), &newest)
	if len(newest.Comments) == 0 || newest.Comments[0].ID != 200 || newest.Comments[0].Body != maintainer || newest.Next == nil {
		t.Fatalf("order newest: the first part does not start with the maintainer's comment: %+v", newest.Comments)
	}

	// The reviews: the maintainer's request for changes leads the summary.
	var rv listPullRequestReviewsOut
	text := h.structured("list_pull_request_reviews", pr(), &rv)
	if rv.Summary.Reviews != reviews || rv.Summary.ChangesRequested != 1 || len(rv.Summary.ChangesRequestedBy) != 1 || rv.Summary.ChangesRequestedBy[0] != "maintainer" ||
		!strings.Contains(strings.SplitN(text, "\n", 2)[0], ": 1 changes requested (by maintainer)") {
		t.Fatalf("reviews: summary %+v, first line %q", rv.Summary, strings.SplitN(text, "\n", 2)[0])
	}
	h.structured("list_pull_request_reviews", pr("order", "newest"), &rv)
	if len(rv.Reviews) == 0 || rv.Reviews[0].ID != 1000+reviews-1 {
		t.Fatalf("order newest: the first review is not the latest: %+v", rv.Reviews[:min(1, len(rv.Reviews))])
	}

	// get_pull_request's Reviews line: the counts, and how to read them.
	got := h.ok("get_pull_request", pr())
	line := ""
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "Reviews: ") {
			line = l
		}
	}
	if !strings.HasPrefix(line, "Reviews: 1 changes requested (by maintainer)") || !strings.Contains(line, "1001 reviews") || !strings.Contains(line, `"order":"newest"`) {
		t.Fatalf("get_pull_request's Reviews line: %q", line)
	}
}
