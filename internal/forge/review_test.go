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
	reviews, _, err := c.PullReviews(context.Background(), "acme", "widgets", 1)
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

// A list past the server's bound on it is cut at the bound and says so,
// never silently: a commit's contexts (MaxStatuses), a run's jobs
// (MaxJobs), a commit's runs (MaxRuns); the reviews of a pull request
// are read past the 1,000 that used to be refused.
func TestListsPastTheirBoundSaySo(t *testing.T) {
	const over = 1234
	page := func(r *http.Request, size int, item func(i int) string) string {
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		var items []string
		for i := (n-1)*size + 1; i <= min(n*size, over); i++ {
			items = append(items, item(i))
		}
		return strings.Join(items, ",")
	}
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Total-Count", strconv.Itoa(over))
		switch r.URL.Path {
		case "/api/v1/repos/acme/widgets/commits/abc/status":
			fmt.Fprintf(w, `{"sha":"abc","statuses":[%s]}`, page(r, statusPage, func(i int) string { return fmt.Sprintf(`{"context":"c%d","status":"success"}`, i) }))
		case "/api/v1/repos/acme/widgets/actions/runs/7/jobs":
			fmt.Fprintf(w, `{"total_count":%d,"jobs":[%s]}`, over, page(r, actionsPage, func(i int) string { return fmt.Sprintf(`{"id":%d,"name":"j%d"}`, i, i) }))
		case "/api/v1/repos/acme/widgets/actions/runs":
			fmt.Fprintf(w, `{"total_count":%d,"workflow_runs":[%s]}`, over, page(r, actionsPage, func(i int) string { return fmt.Sprintf(`{"id":%d}`, i) }))
		case "/api/v1/repos/acme/widgets/pulls/1/reviews":
			fmt.Fprintf(w, `[%s]`, page(r, reviewPage, func(i int) string { return fmt.Sprintf(`{"id":%d,"state":"COMMENT"}`, i) }))
		default:
			http.NotFound(w, r)
		}
	})
	c, err := New(context.Background(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if cs, err := c.CombinedStatus(ctx, "acme", "widgets", "abc"); err != nil || len(cs.Statuses) != MaxStatuses || !cs.More || cs.Statuses[MaxStatuses-1].Context != fmt.Sprintf("c%d", MaxStatuses) {
		t.Errorf("statuses: %v, more %v, %v", len(cs.Statuses), cs.More, err)
	}
	if jobs, more, err := c.Jobs(ctx, "acme", "widgets", 7); err != nil || len(jobs) != MaxJobs || !more {
		t.Errorf("jobs: %d, more %v, %v", len(jobs), more, err)
	}
	if runs, more, err := c.Runs(ctx, "acme", "widgets", "abc"); err != nil || len(runs) != MaxRuns || !more {
		t.Errorf("runs: %d, more %v, %v", len(runs), more, err)
	}
	// 1,234 reviews are read, not refused (review 3's finding 06).
	if reviews, more, err := c.PullReviews(ctx, "acme", "widgets", 1); err != nil || len(reviews) != over || more {
		t.Errorf("reviews: %d, more %v, %v", len(reviews), more, err)
	}
}
