package server

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
)

// TestCommentIDsAdvance: whatever ids a forge gives its conversation's
// comments (repeated, zero, negative, out of order), every next call of
// list_pull_request_comments makes progress (its comment id, or its
// bodyOffset in the same comment, strictly advances in the order shown),
// a drain ends, and it reads every comment with a positive id once,
// whole (a repeated id: its first comment), in order of id. Review 4,
// finding 14 (docs/security.md): ids 5, 6, 5, 9 looped 5 → 6 → 5, and an
// id 0 ended the listing after one comment.
func TestCommentIDsAdvance(t *testing.T) {
	f := forgetest.New(t)
	var conversation atomic.Value
	f.API = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/repos/acme/widgets/issues/1/comments" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(conversation.Load().([]byte))
			return
		}
		http.NotFound(w, r)
	}
	h, _, _ := serveForgeWith(t, f.URL, "tok", f.Repo, 60*time.Second, time.Hour, forge.Limits{}, nil, withMaxBytes(6000))
	type comment struct {
		ID   int64  `json:"id"`
		Body string `json:"body"`
	}
	cases := [][]int64{{5, 6, 5, 9}, {0, 7, 8}, {7, 0, 8}, {3, -1, 3, 3, 2, 1}}
	rng := rand.New(rand.NewSource(14))
	for range 40 {
		var ids []int64
		for range 1 + rng.Intn(12) {
			ids = append(ids, int64(rng.Intn(12))-2)
		}
		cases = append(cases, ids)
	}
	for ci, ids := range cases {
		var list []comment
		want := map[int64]string{}
		for i, id := range ids {
			body := fmt.Sprintf("comment %d of case %d\n", i, ci)
			if rng.Intn(3) == 0 {
				body += strings.Repeat("long line <&> \n", rng.Intn(2000))
			}
			if i == len(ids)-1 {
				body = "BLOCKER: " + body
			}
			list = append(list, comment{ID: id, Body: body})
			if _, seen := want[id]; id > 0 && !seen {
				want[id] = body
			}
		}
		data, _ := json.Marshal(list)
		conversation.Store(data)
		for _, newest := range []bool{false, true} {
			a := args("owner", "acme", "repo", "widgets", "index", 1)
			if newest {
				a["order"] = "newest"
			}
			got := map[int64]string{}
			var shown []int64
			prevID, prevOffset := int64(0), -1
			for part := 0; a != nil; part++ {
				if part > 200 {
					t.Fatalf("case %v, newest %v: no end after 200 parts", ids, newest)
				}
				var out listPullRequestCommentsOut
				h.structured("list_pull_request_comments", a, &out)
				if out.Total != len(want) {
					t.Fatalf("case %v: total %d, want %d", ids, out.Total, len(want))
				}
				for _, c := range out.Comments {
					if c.BodyOffset != len(got[c.ID]) {
						t.Fatalf("case %v: comment %d resumes at %d, %d read", ids, c.ID, c.BodyOffset, len(got[c.ID]))
					}
					if c.BodyOffset == 0 {
						shown = append(shown, c.ID)
					}
					got[c.ID] += c.Body
				}
				if out.Next == nil {
					break
				}
				a = out.Next.Arguments
				id, _ := a["from"].(float64)
				offset, _ := a["bodyOffset"].(float64)
				forward := int64(id) > prevID
				if newest {
					forward = prevID == 0 || int64(id) < prevID
				}
				if !(forward || int64(id) == prevID && int(offset) > prevOffset) || id <= 0 {
					t.Fatalf("case %v, newest %v: part %d's next call (from %v, bodyOffset %v) does not advance past (from %d, bodyOffset %d)", ids, newest, part, id, offset, prevID, prevOffset)
				}
				prevID, prevOffset = int64(id), int(offset)
			}
			if len(got) != len(want) {
				t.Fatalf("case %v, newest %v: read %d comments, want %d", ids, newest, len(got), len(want))
			}
			for id, body := range want {
				if got[id] != body {
					t.Fatalf("case %v, newest %v: comment %d read as %d bytes, want %d", ids, newest, id, len(got[id]), len(body))
				}
			}
			for i := 1; i < len(shown); i++ {
				if newest == (shown[i] > shown[i-1]) {
					t.Fatalf("case %v, newest %v: shown in the order %v", ids, newest, shown)
				}
			}
		}
	}
}
