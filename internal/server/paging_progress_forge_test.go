package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
)

// TestEveryForgeNextCallMakesProgress is TestEveryNextCallMakesProgress for
// the tools that page what a forge says: a pull request's description,
// reviews and their inline comments, its conversation, commit statuses,
// Actions runs and a job's log, every field drawn from the same hostile
// characters, from empty to longer than a reply. No next call repeats an
// earlier one (comments go on by id, newest first too, so positions are
// not ordered), and every drain ends.
func TestEveryForgeNextCallMakesProgress(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 39))
	f := forgetest.New(t)
	head := strings.TrimSpace(f.Repo.Git("rev-parse", "topic"))
	base := strings.TrimSpace(f.Repo.Git("rev-parse", "main"))
	field := func() string { return hostileText(rnd, hostileLength(rnd), false) }
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			size := hostileLength(rnd)
			if i == 1 {
				size = 20_000 // longer than a small client's reply
			}
			b.WriteString(hostileText(rnd, size, false) + "\n")
		}
		return b.String()
	}
	user := func() map[string]any { return map[string]any{"login": hostileText(rnd, rnd.IntN(60), true)} }
	lists := map[string][]any{}
	const p = "/api/v1/repos/acme/widgets"
	var reviews []any
	for i := range 12 {
		id := i + 1
		var comments []any
		for j := range rnd.IntN(4) {
			comments = append(comments, map[string]any{"id": 1000*id + j, "pull_request_review_id": id, "user": user(), "body": lines(1 + rnd.IntN(3)),
				"path": "topic.txt", "position": 1, "created_at": "2026-11-30T10:02:00Z"})
		}
		lists[fmt.Sprintf("%s/pulls/1/reviews/%d/comments", p, id)] = comments
		reviews = append(reviews, map[string]any{"id": id, "user": user(), "state": "COMMENT", "body": lines(1 + rnd.IntN(4)), "commit_id": head,
			"comments_count": len(comments), "submitted_at": "2026-11-30T10:01:00Z"})
	}
	lists[p+"/pulls/1/reviews"] = reviews
	var conversation []any
	for i := range 25 {
		conversation = append(conversation, map[string]any{"id": 100 + i, "user": user(), "body": lines(1 + rnd.IntN(5)),
			"created_at": "2026-11-30T09:00:00Z", "updated_at": "2026-11-30T09:00:00Z"})
	}
	lists[p+"/issues/1/comments"] = conversation
	lists[p+"/pulls/1/files"] = []any{map[string]any{"filename": "topic.txt", "status": "added", "additions": 1, "deletions": 0, "changes": 1}}
	var statuses, runs []any
	for i := range 30 {
		statuses = append(statuses, map[string]any{"id": i + 1, "context": field(), "status": "failure", "description": field(), "target_url": field(),
			"creator": user(), "created_at": "2026-11-30T10:10:00Z"})
		runs = append(runs, map[string]any{"id": 7 + i, "run_number": i + 1, "display_title": field(), "path": "ci.yml", "event": "pull_request",
			"status": "completed", "conclusion": "failure", "head_sha": head, "started_at": "2026-11-30T10:05:00Z", "completed_at": "2026-11-30T10:09:00Z"})
	}
	job := map[string]any{"id": 71, "run_id": 7, "name": field(), "status": "completed", "conclusion": "failure", "head_sha": head,
		"started_at": "2026-11-30T10:05:10Z", "completed_at": "2026-11-30T10:09:00Z"}
	answers := map[string]any{}
	for i := range runs {
		answers[fmt.Sprintf("%s/actions/runs/%d/jobs", p, 7+i)] = map[string]any{"total_count": 1, "jobs": []any{job}}
	}
	for k, v := range map[string]any{
		p + "/pulls/1": map[string]any{"number": 1, "title": field(), "state": "open", "user": user(), "body": lines(30), "changed_files": 1,
			"base": map[string]any{"ref": "main", "sha": base}, "head": map[string]any{"ref": "topic", "sha": head}, "merge_base": base},
		p + "/commits/" + head + "/status": map[string]any{"sha": head, "state": "failure", "total_count": len(statuses), "statuses": statuses},
		p + "/actions/jobs/71":             job,
	} {
		answers[k] = v
	}
	jobLog := lines(60)
	f.API = func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		page, _ := strconv.Atoi(q.Get("page"))
		limit, _ := strconv.Atoi(q.Get("limit"))
		window := func(all []any) []any { // the page asked for, as Gitea pages
			if limit <= 0 {
				return all
			}
			from := min(max(page-1, 0)*limit, len(all))
			return all[from:min(from+limit, len(all))]
		}
		var v any
		switch path := r.URL.Path; {
		case path == p+"/pulls/1.diff":
			_, _ = w.Write([]byte(f.Repo.Git("diff", "-M", base, head)))
			return
		case path == p+"/actions/jobs/71/logs":
			_, _ = w.Write([]byte(jobLog))
			return
		case path == p+"/actions/runs":
			w.Header().Set("X-Total-Count", strconv.Itoa(len(runs)))
			v = map[string]any{"total_count": len(runs), "workflow_runs": window(runs)}
		case lists[path] != nil || strings.HasSuffix(path, "/comments"):
			w.Header().Set("X-Total-Count", strconv.Itoa(len(lists[path])))
			page := window(lists[path])
			if page == nil {
				page = []any{} // an empty list, not null
			}
			v = page
		case answers[path] != nil:
			v = answers[path]
		default:
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(v)
	}
	pr := args("owner", "acme", "repo", "widgets", "index", 1)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_pull_request", pr},
		{"get_pull_request_diff", pr},
		{"list_pull_request_files", pr},
		{"list_pull_request_reviews", pr},
		{"list_pull_request_reviews", with(pr, "order", "newest")},
		{"list_pull_request_comments", pr},
		{"list_pull_request_comments", with(pr, "order", "newest")},
		{"get_commit_status", args("owner", "acme", "repo", "widgets", "ref", head)},
		{"list_action_runs", args("owner", "acme", "repo", "widgets", "ref", head)},
		{"read_job_log", args("owner", "acme", "repo", "widgets", "jobId", 71)},
	}
	for _, client := range []string{"a client nobody knows", "Visual Studio Code", "claude-code"} {
		h := serveForgeAs(t, f, client)
		for _, c := range calls {
			drainMakingProgress(t, h, nil, client, c.tool, c.args, 2000)
			if client == "a client nobody knows" && c.tool != "get_pull_request" {
				drainMakingProgress(t, h, nil, client, c.tool, with(c.args, "maxBytes", 1), 4000)
			}
		}
	}
}

// serveForgeAs serves f in forge mode to a client called name, sized as
// the command sizes it.
func serveForgeAs(t *testing.T, f *forgetest.Forge, name string) *harness {
	t.Helper()
	sized := func(c *Config) { c.Clients = clients.NewTable(c.MaxBytes, nil) }
	h, _, _ := serveForgeTo(t, name, f.URL, "tok", f.Repo, 30*time.Second, time.Hour, forge.Limits{}, nil, withTextOnly(), sized)
	return h
}
