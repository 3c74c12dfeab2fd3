package forge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// listingForge lists n repositories "o/rNNNN", in pages of at most maxPage,
// and counts the requests.
func listingForge(t *testing.T, n, maxPage int, calls *atomic.Int32) *Client {
	t.Helper()
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/repos/search" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		page, limit = max(page, 1), min(max(limit, 1), maxPage)
		var data []map[string]any
		for i := (page - 1) * limit; i < min(page*limit, n); i++ {
			data = append(data, map[string]any{"name": fmt.Sprintf("r%04d", i), "owner": map[string]string{"login": "o"}})
		}
		w.Header().Set("X-Total-Count", strconv.Itoa(n))
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "data": data})
	})
	c, err := New(context.Background(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	c.SetListTTL(time.Hour)
	return c
}

// Finding 12 (issue 11): list_repositories limit=1 walked the whole listing,
// 100 API calls for 5,000 repositories, on every call.
func TestReposPageAsksOnlyForItsPages(t *testing.T) {
	var calls atomic.Int32
	c := listingForge(t, 5000, 50, &calls)
	ctx := context.Background()
	check := func(offset, limit, wantCalls int, first string, wantLen int) {
		t.Helper()
		calls.Store(0)
		repos, total, err := c.ReposPage(ctx, offset, limit)
		if err != nil || total != 5000 || len(repos) != wantLen || (wantLen > 0 && repos[0].Name != first) {
			t.Fatalf("offset %d limit %d: %d repositories from %v, total %d, %v", offset, limit, len(repos), repos[:min(1, len(repos))], total, err)
		}
		if n := int(calls.Load()); n != wantCalls {
			t.Fatalf("offset %d limit %d: %d API calls, want %d", offset, limit, n, wantCalls)
		}
	}
	check(0, 1, 1, "r0000", 1)
	check(0, 1, 0, "r0000", 1)      // cached for the TTL
	check(120, 5, 1, "r0120", 5)    // page 3 only
	check(148, 5, 1, "r0148", 5)    // pages 3 (cached) and 4
	check(4990, 50, 1, "r4990", 10) // the last page
	check(6000, 10, 1, "", 0)       // past the end: one page to learn the total
	check(0, 500, 7, "r0000", 500)  // ten pages, 1, 3 and 4 cached
	c.SetListTTL(0)                 // expired: asked again
	check(0, 1, 1, "r0000", 1)
}

// A forge configured with smaller pages than asked (MAX_RESPONSE_ITEMS)
// answers short pages that are not the last: they are noticed, not taken
// for the end of the listing.
func TestReposPageFollowsASmallerPageSize(t *testing.T) {
	var calls atomic.Int32
	c := listingForge(t, 100, 30, &calls)
	repos, total, err := c.ReposPage(context.Background(), 40, 25)
	if err != nil || total != 100 || len(repos) != 25 || repos[0].Name != "r0040" || repos[24].Name != "r0064" {
		t.Fatalf("%d repositories, total %d, %v", len(repos), total, err)
	}
	all, err := c.Repos(context.Background())
	if err != nil || len(all) != 100 || all[99].Name != "r0099" {
		t.Fatalf("whole listing: %d, %v", len(all), err)
	}
}
