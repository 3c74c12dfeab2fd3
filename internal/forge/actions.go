package forge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// A commit's Actions runs as Gitea and Forgejo give them (API v1, Gitea
// 1.24 and later): the runs of the workflows a push or a pull request
// started, each with its jobs, and a job's log as plain text. A forge with
// Actions off, or older, has none of these paths (404).

// Run is one workflow run.
type Run struct {
	ID       int64
	Number   int64  // the run's number in the repository, as its page shows it
	Title    string // the commit's or pull request's title
	Workflow string // the workflow file, e.g. .gitea/workflows/ci.yml
	Event    string // push, pull_request, …
	// Status is queued, waiting, in_progress or completed; Conclusion, set
	// when completed, is success, failure, cancelled or skipped.
	Status, Conclusion string
	HeadSHA            string
	Started, Completed string // RFC 3339; "" when not yet
	URL                string
}

// Job is one job of a run.
type Job struct {
	ID, RunID          int64
	Name               string
	Status, Conclusion string // as Run's
	Runner             string
	Started, Completed string // RFC 3339; "" when not yet
	URL                string
	// No steps: Gitea 1.26 gives every step of a job the job's own status
	// and conclusion (services/convert.ToActionWorkflowJob), so they
	// cannot tell which step failed; the log does.
}

type runJSON struct {
	ID         int64  `json:"id"`
	Number     int64  `json:"run_number"`
	Title      string `json:"display_title"`
	Path       string `json:"path"`
	Event      string `json:"event"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	HeadSHA    string `json:"head_sha"`
	Started    string `json:"started_at"`
	Completed  string `json:"completed_at"`
	HTMLURL    string `json:"html_url"`
}

type jobJSON struct {
	ID         int64  `json:"id"`
	RunID      int64  `json:"run_id"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	Runner     string `json:"runner_name"`
	Started    string `json:"started_at"`
	Completed  string `json:"completed_at"`
	HTMLURL    string `json:"html_url"`
}

// ErrNoActions: the forge has no Actions for the repository (off, or a
// forge too old to list runs).
var ErrNoActions = errors.New("the forge has no Actions for this repository")

// actionsPage is how many runs or jobs are asked for at once; MaxRuns
// bounds the runs of one commit read, MaxJobs the jobs of one run.
const (
	actionsPage = 50
	MaxRuns     = 100
	MaxJobs     = 200
)

// Runs lists the Actions runs of commit sha, newest first (GET
// /repos/{owner}/{repo}/actions/runs?head_sha=), at most MaxRuns; more
// tells there were more. ErrNoActions when the forge has none here.
func (c *Client) Runs(ctx context.Context, owner, repo, sha string) (runs []Run, more bool, err error) {
	defer c.secrets.clean(&err)
	q := url.Values{"head_sha": {sha}}
	runs, more, err = readPages(ctx, c, repoPath(owner, repo)+"/actions/runs", q, actionsPage, MaxRuns, func(data []byte, _ http.Header) ([]Run, int, error) {
		var resp struct {
			Runs  []runJSON `json:"workflow_runs"`
			Total int       `json:"total_count"`
		}
		if err := json.Unmarshal(data, &resp); err != nil {
			return nil, 0, err
		}
		page := make([]Run, len(resp.Runs))
		for i, r := range resp.Runs {
			page[i] = Run{ID: r.ID, Number: r.Number, Title: r.Title, Workflow: r.Path, Event: r.Event,
				Status: r.Status, Conclusion: r.Conclusion, HeadSHA: r.HeadSHA,
				Started: setTime(r.Started), Completed: setTime(r.Completed), URL: r.HTMLURL}
		}
		return page, resp.Total, nil
	})
	if errcode.Of(err) == errcode.NotFound {
		return nil, false, ErrNoActions
	}
	return runs, more, err
}

// Jobs lists the jobs of run id (GET
// /repos/{owner}/{repo}/actions/runs/{run}/jobs), at most MaxJobs; more
// tells there were more.
func (c *Client) Jobs(ctx context.Context, owner, repo string, run int64) (jobs []Job, more bool, err error) {
	defer c.secrets.clean(&err)
	jobs, more, err = readPages(ctx, c, repoPath(owner, repo)+"/actions/runs/"+strconv.FormatInt(run, 10)+"/jobs", nil, actionsPage, MaxJobs, func(data []byte, _ http.Header) ([]Job, int, error) {
		var resp struct {
			Jobs  []jobJSON `json:"jobs"`
			Total int       `json:"total_count"`
		}
		if err := json.Unmarshal(data, &resp); err != nil {
			return nil, 0, err
		}
		page := make([]Job, len(resp.Jobs))
		for i, j := range resp.Jobs {
			page[i] = jobFrom(j)
		}
		return page, resp.Total, nil
	})
	return jobs, more, err
}

// Job is one job (GET /repos/{owner}/{repo}/actions/jobs/{id}).
func (c *Client) Job(ctx context.Context, owner, repo string, id int64) (_ *Job, err error) {
	defer c.secrets.clean(&err)
	var j jobJSON
	if err := c.getJSON(ctx, repoPath(owner, repo)+"/actions/jobs/"+strconv.FormatInt(id, 10), nil, &j); err != nil {
		return nil, err
	}
	job := jobFrom(j)
	return &job, nil
}

func jobFrom(j jobJSON) Job {
	return Job{ID: j.ID, RunID: j.RunID, Name: j.Name, Status: j.Status, Conclusion: j.Conclusion, Runner: j.Runner,
		Started: setTime(j.Started), Completed: setTime(j.Completed), URL: j.HTMLURL}
}

// setTime is t, or "" for a time not yet reached, which the forge writes
// as Go's zero time or as the Unix epoch.
func setTime(t string) string {
	if strings.HasPrefix(t, "0001-01-01T00:00:00") || strings.HasPrefix(t, "1970-01-01T00:00:00") {
		return ""
	}
	return t
}

// JobLog opens the log of job id, plain text with a time at the start of
// each line (GET /repos/{owner}/{repo}/actions/jobs/{id}/logs), and gives
// its size in bytes (-1 when the forge does not say). The caller reads as
// much as it needs and closes it: the log is never held whole.
func (c *Client) JobLog(ctx context.Context, owner, repo string, id int64) (_ io.ReadCloser, size int64, err error) {
	defer c.secrets.clean(&err)
	resp, err := c.get(ctx, repoPath(owner, repo)+"/actions/jobs/"+strconv.FormatInt(id, 10)+"/logs", nil)
	if err != nil {
		return nil, 0, err
	}
	return resp.Body, resp.ContentLength, nil
}

// CommitSHA is the commit ref names (a full SHA is taken as it is): GET
// /repos/{owner}/{repo}/commits?sha={ref}&limit=1.
func (c *Client) CommitSHA(ctx context.Context, owner, repo, ref string) (_ string, err error) {
	defer c.secrets.clean(&err)
	if isFullSHA(ref) {
		return ref, nil
	}
	q := url.Values{"sha": {ref}, "limit": {"1"}, "stat": {"false"}, "verification": {"false"}, "files": {"false"}}
	var list []struct {
		SHA string `json:"sha"`
	}
	if err := c.getJSON(ctx, repoPath(owner, repo)+"/commits", q, &list); err != nil {
		if errcode.Of(err) == errcode.NotFound {
			return "", errcode.New(errcode.NotFound, "%s/%s has no commit, branch or tag %q", owner, repo, ref)
		}
		return "", err
	}
	if len(list) == 0 || !isFullSHA(list[0].SHA) {
		return "", errcode.New(errcode.NotFound, "%s/%s has no commit, branch or tag %q", owner, repo, ref)
	}
	return list[0].SHA, nil
}

// isFullSHA: s is a whole SHA-1 or SHA-256 object id in hex.
func isFullSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
