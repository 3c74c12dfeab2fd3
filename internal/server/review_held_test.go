package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
)

// TestReviewCommentsHeldBounded: 40 reviews of one 4 MiB inline comment
// each (160 MiB) are not all held by one list_pull_request_reviews call:
// past maxReviewHeld the comments of the reviews left are not read, a note
// names them, reviewer reads that reviewer's first, and bodyOf reads a
// comment whatever the bound. Review 4, finding 11 (docs/security.md):
// 100 reviews of 8 MiB held 1.1 GiB for one call.
func TestReviewCommentsHeldBounded(t *testing.T) {
	f := forgetest.New(t)
	head := strings.TrimSpace(f.Repo.Git("rev-parse", "topic"))
	base := strings.TrimSpace(f.Repo.Git("rev-parse", "main"))
	user := func(login string) map[string]any { return map[string]any{"login": login} }
	const reviews = 40
	const p = "/api/v1/repos/acme/widgets"
	big := strings.Repeat("spam, again and again\n", 4<<20/22)
	var commentCalls atomic.Int32
	f.API = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch path := r.URL.Path; {
		case path == p+"/pulls/1":
			_ = json.NewEncoder(w).Encode(map[string]any{"number": 1, "title": "t", "state": "open", "user": user("m"), "changed_files": 1,
				"base": map[string]any{"ref": "main", "sha": base}, "head": map[string]any{"ref": "topic", "sha": head}, "merge_base": base})
		case path == p+"/pulls/1/reviews":
			items := []any{}
			if r.URL.Query().Get("page") == "1" {
				for i := range reviews {
					who := "spammer"
					if i == reviews-1 {
						who = "maintainer"
					}
					items = append(items, map[string]any{"id": 1000 + i, "user": user(who), "state": "COMMENT", "body": "x", "commit_id": head,
						"comments_count": 1, "submitted_at": "2026-01-01T00:00:00Z"})
				}
			}
			w.Header().Set("X-Total-Count", strconv.Itoa(reviews))
			_ = json.NewEncoder(w).Encode(items)
		case strings.HasPrefix(path, p+"/pulls/1/reviews/") && strings.HasSuffix(path, "/comments"):
			commentCalls.Add(1)
			id, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, p+"/pulls/1/reviews/"), "/comments"))
			who, body := "spammer", big
			if id == 1000+reviews-1 {
				who, body = "maintainer", "BLOCKER: this leaks the key."
			}
			_ = json.NewEncoder(w).Encode([]any{map[string]any{"id": 5000 + id, "pull_request_review_id": id, "user": user(who), "body": body,
				"path": fmt.Sprintf("gone-%d.txt", id), "position": 1, "commit_id": head, "created_at": "2026-01-01T00:00:00Z"}})
		default:
			http.NotFound(w, r)
		}
	}
	h, _, _ := serveForgeWith(t, f.URL, "tok", f.Repo, 60*time.Second, time.Hour, forge.Limits{}, nil, withMaxBytes(1<<20))
	pr := func(kv ...any) map[string]any {
		return args(append([]any{"owner", "acme", "repo", "widgets", "index", 1}, kv...)...)
	}

	var out listPullRequestReviewsOut
	text := h.structured("list_pull_request_reviews", pr(), &out)
	if n, most := int(commentCalls.Load()), maxReviewHeld/len(big)+1; n > most {
		t.Fatalf("one call read the inline comments of %d reviews of 4 MiB, more than the %d the bound allows", n, most)
	}
	if !strings.Contains(text, "were not read") || !strings.Contains(text, "reviewer") || !strings.Contains(text, strconv.Itoa(1000+reviews-1)) {
		t.Fatalf("no note names the reviews whose comments were not read:\n%.2000s", text)
	}

	// A narrower call: the maintainer's review's comments read first.
	commentCalls.Store(0)
	text = h.structured("list_pull_request_reviews", pr("reviewer", "maintainer"), &out)
	if len(out.Threads) != 1 || len(out.Threads[0].Comments) != 1 || !strings.HasPrefix(out.Threads[0].Comments[0].Body, "BLOCKER") {
		t.Fatalf("reviewer maintainer: threads %+v\n%.2000s", out.Threads, text)
	}

	// bodyOf reads one comment whatever the bound: the first review's,
	// and the last's, whose comments the listing did not read.
	for id, want := range map[int]string{6000: big, 6000 + reviews - 1: "BLOCKER"} {
		var body listPullRequestReviewsOut
		h.structured("list_pull_request_reviews", pr("bodyOf", id), &body)
		if len(body.Reviews) != 1 || len(body.Reviews[0].Body) == 0 || !strings.HasPrefix(want, body.Reviews[0].Body[:min(7, len(body.Reviews[0].Body))]) {
			t.Fatalf("bodyOf %d: %+v", id, body.Reviews)
		}
	}
}
