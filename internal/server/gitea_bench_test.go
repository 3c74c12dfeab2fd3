package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
)

// BenchmarkGiteaFirstPage: what the first page of each review-context
// tool costs against the forge API calls it makes (issue 25: at most
// 1.2× on the seeded pull request; scripts/bench-forge runs it, and
// BENCHMARKS.md has the figures). A proxy in front of the real Gitea
// records the requests one warm call makes; then, round by round, the
// call through the whole server (in-memory MCP transport) and the same
// requests sent one after another by a plain HTTP client, each body read
// whole, are timed. Reported per tool: the medians and their ratio.
func BenchmarkGiteaFirstPage(b *testing.B) {
	g := needGitea(b)
	rs := seedReviewPR(b, g)
	as := seedActions(b, g)
	var testJob int64
	var runs listActionRunsOut
	h, _, _ := serveForgeWith(b, g.url, g.token, nil, 30*time.Second, time.Hour, forge.Limits{}, nil)
	h.structured("list_action_runs", args("owner", as.Owner, "repo", as.Repo, "index", as.Index), &runs)
	for _, r := range runs.Runs {
		for _, j := range r.Jobs {
			if j.Conclusion == "failure" && testJob == 0 {
				testJob = j.ID
			}
		}
	}
	review := func(kv ...any) map[string]any {
		return args(append([]any{"owner", rs.Owner, "repo", rs.Repo, "index", rs.Index}, kv...)...)
	}
	ci := func(kv ...any) map[string]any {
		return args(append([]any{"owner", as.Owner, "repo", as.Repo}, kv...)...)
	}
	cases := []struct {
		tool string
		args map[string]any
	}{
		{"get_pull_request", review()},
		{"list_pull_request_reviews", review()},
		{"list_pull_request_comments", review()},
		{"get_commit_status", review()},
		{"list_action_runs", ci("index", as.Index)},
		{"read_job_log", ci("jobId", testJob)},
	}
	for _, c := range cases {
		b.Run(c.tool, func(b *testing.B) {
			rec := newRecordingProxy(b, g.url)
			viaProxy, _, _ := serveForgeWith(b, rec.URL, g.token, nil, 30*time.Second, time.Hour, forge.Limits{}, nil)
			viaProxy.ok(c.tool, c.args) // warm: the mirror, the client's caches
			rec.reset()
			viaProxy.ok(c.tool, c.args)
			calls := rec.calls()
			// Text only, as the server runs by default.
			direct, _, _ := serveForgeWith(b, g.url, g.token, nil, 30*time.Second, time.Hour, forge.Limits{}, nil, func(c *Config) { c.Structured = false })
			direct.ok(c.tool, c.args)
			client := &http.Client{}
			var tool, api []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := direct.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil || res.IsError {
					b.Fatal(err, textOf(res))
				}
				tool = append(tool, time.Since(start))
				start = time.Now()
				for _, u := range calls {
					replay(b, client, g.url+u, g.token)
				}
				api = append(api, time.Since(start))
			}
			t, a := median(tool), median(api)
			b.ReportMetric(float64(len(calls)), "api-calls")
			b.ReportMetric(float64(t.Microseconds())/1000, "tool-ms")
			b.ReportMetric(float64(a.Microseconds())/1000, "api-ms")
			b.ReportMetric(float64(t)/float64(a), "tool/api")
		})
	}
}

// recordingProxy passes requests to the forge and keeps their paths and
// queries.
type recordingProxy struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecordingProxy(tb testing.TB, target string) *recordingProxy {
	u, err := url.Parse(target)
	if err != nil {
		tb.Fatal(err)
	}
	p := &recordingProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			p.mu.Lock()
			p.seen = append(p.seen, r.URL.RequestURI())
			p.mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	tb.Cleanup(p.Close)
	return p
}

func (p *recordingProxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = nil
}

func (p *recordingProxy) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

// replay sends one recorded API request and reads its answer whole.
func replay(b *testing.B, client *http.Client, u, token string) {
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+token)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
