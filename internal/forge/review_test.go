package forge

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Reviews are read page by page to the total the forge counts, though a
// page holds fewer than asked (the forge drops others' pending reviews
// after paging); a review's comments come back in the order they were
// made, whatever order the forge gives.
func TestPullReviewsAndCommentsRead(t *testing.T) {
	const total = 53
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/repos/acme/widgets/pulls/1/reviews":
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			w.Header().Set("X-Total-Count", strconv.Itoa(total))
			var items []string
			for i := (page-1)*reviewPage + 1; i <= min(page*reviewPage, total); i++ {
				if i == 7 {
					continue // someone's pending review, dropped after paging
				}
				items = append(items, fmt.Sprintf(`{"id":%d,"user":{"login":"u%d"},"state":"COMMENT","comments_count":%d}`, i, i, i%2))
			}
			fmt.Fprintf(w, "[%s]", strings.Join(items, ","))
		case "/api/v1/repos/acme/widgets/pulls/1/reviews/3/comments":
			fmt.Fprint(w, `[{"id":9,"pull_request_review_id":3,"path":"b.go","position":4,"created_at":"2026-11-30T10:00:02Z","resolver":{"login":"admin"}},
				{"id":8,"pull_request_review_id":3,"path":"a.go","original_position":2,"created_at":"2026-11-30T10:00:01Z"}]`)
		default:
			http.NotFound(w, r)
		}
	})
	c, err := New(context.Background(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	reviews, err := c.PullReviews(context.Background(), "acme", "widgets", 1)
	if err != nil || len(reviews) != total-1 || reviews[0].User != "u1" || reviews[len(reviews)-1].ID != total {
		t.Fatalf("%d reviews, %v", len(reviews), err)
	}
	cs, err := c.ReviewComments(context.Background(), "acme", "widgets", 1, 3)
	if err != nil || len(cs) != 2 || cs[0].ID != 8 || cs[0].OldLine != 2 || cs[0].NewLine != 0 || cs[1].NewLine != 4 || cs[1].Resolver != "admin" || cs[0].Resolver != "" {
		t.Fatalf("%+v, %v", cs, err)
	}
}

// A commit's checks are summed up by the forge's rule over every page
// (the forge sums each page alone), from the field Gitea calls "status".
func TestCombinedStatusOverPages(t *testing.T) {
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/repos/acme/widgets/commits/abc/status" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Total-Count", strconv.Itoa(statusPage+1))
		state := "success"
		n := statusPage
		if r.URL.Query().Get("page") == "2" {
			state, n = "failure", 1
		}
		var items []string
		for i := range n {
			items = append(items, fmt.Sprintf(`{"context":"ci/%s%d","status":%q}`, state, i, state))
		}
		fmt.Fprintf(w, `{"sha":"abc","state":"success","statuses":[%s]}`, strings.Join(items, ","))
	})
	c, err := New(context.Background(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.CombinedStatus(context.Background(), "acme", "widgets", "abc")
	if err != nil || len(cs.Statuses) != statusPage+1 || cs.State != "failure" || cs.Statuses[statusPage].State != "failure" {
		t.Fatalf("%d statuses, state %q, %v", len(cs.Statuses), cs.State, err)
	}
	for statuses, want := range map[string]string{"": "pending", "success,skipped": "success", "success,pending": "pending", "pending,warning": "failure"} {
		var list []Status
		if statuses != "" {
			for _, s := range strings.Split(statuses, ",") {
				list = append(list, Status{State: s})
			}
		}
		if got := combinedState(list); got != want {
			t.Errorf("%q: %s, want %s", statuses, got, want)
		}
	}
}
