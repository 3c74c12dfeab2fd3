package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type listActionRunsIn struct {
	Owner  string `json:"owner,omitempty"`
	Repo   string `json:"repo,omitempty"`
	Index  int    `json:"index,omitempty"`
	Ref    string `json:"ref,omitempty" jsonschema:"commit, branch or tag instead; neither: the default branch"`
	Offset int    `json:"offset,omitempty"`
	paging.ReplyLimit
}

type listActionRunsOut struct {
	SHA   string `json:"sha" jsonschema:"the commit whose runs these are"`
	Total int    `json:"total" jsonschema:"how many runs the commit has (at most 100 are read)"`
	// Failing counts the runs that ended in failure; Unfinished those not
	// completed yet (as the forge says of each run).
	Failing    int `json:"failing"`
	Unfinished int `json:"unfinished"`
	// FailedJobs counts the failed jobs of this page's runs: a run goes
	// on (its status unfinished) while a job of it has failed.
	FailedJobs int         `json:"failedJobs" jsonschema:"how many jobs of this page's runs failed (a run with a failed job can still be unfinished)"`
	Runs       []actionRun `json:"runs" jsonschema:"this page's runs, each with its jobs"`
	Offset     int         `json:"offset"`
	NextOffset *int        `json:"nextOffset,omitempty" jsonschema:"where the next page starts; absent on the last"`
	paging.Paged
}

type actionRun struct {
	ID         int64       `json:"id"`
	Number     int64       `json:"number" jsonschema:"the run's number in the repository, as its page shows it"`
	Workflow   string      `json:"workflow" jsonschema:"the workflow file"`
	Title      string      `json:"title"`
	Event      string      `json:"event" jsonschema:"what started it: push, pull_request, …"`
	Status     string      `json:"status" jsonschema:"queued, waiting, in_progress or completed"`
	Conclusion string      `json:"conclusion,omitempty" jsonschema:"when completed: success, failure, cancelled or skipped"`
	Started    string      `json:"startedAt,omitempty"`
	Completed  string      `json:"completedAt,omitempty"`
	URL        string      `json:"url"`
	Jobs       []actionJob `json:"jobs"`
	MoreJobs   bool        `json:"moreJobs,omitempty" jsonschema:"the run has more jobs than the 200 read"`
}

type actionJob struct {
	ID         int64  `json:"id" jsonschema:"read_job_log's jobId"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion,omitempty"`
	Runner     string `json:"runner,omitempty"`
	Started    string `json:"startedAt,omitempty"`
	Completed  string `json:"completedAt,omitempty"`
	URL        string `json:"url"`
}

// runsPerPage bounds the runs of one reply, so that one call asks the
// forge for at most that many job lists.
const runsPerPage = 10

// listActionRunsTool is list_action_runs' definition (registry.go).
var listActionRunsTool = defineTool(toolSpec{
	Name:  "list_action_runs",
	Title: "List Actions runs",
	Description: "List the Actions runs of a pull request's head (index) or a commit (ref) on the forge, failing first: workflow, event, conclusion, and jobs with id and conclusion. " +
		"read_job_log reads a failed job's log, get_commit_status all checks. A forge with Actions off says so." +
		partialNext,
	ForgeOnly: true,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "index", 0, 1, 1<<31-1)
		argcheck.SetInt(in, "offset", 0, 0, forge.MaxRuns)
	},
}, (*Server).listActionRuns)

func (s *Server) listActionRuns(ctx context.Context, in listActionRunsIn) (reply[listActionRunsOut], error) {
	const tool = "list_action_runs"
	ref, what, err := s.checksTarget(ctx, &in.Owner, &in.Repo, in.Index, in.Ref)
	if err != nil {
		return reply[listActionRunsOut]{}, err
	}
	f := s.cfg.Forge
	sha, err := f.CommitSHA(ctx, in.Owner, in.Repo, ref)
	if err != nil {
		return reply[listActionRunsOut]{}, err
	}
	runs, more, err := f.Runs(ctx, in.Owner, in.Repo, sha)
	// No runs, or no leave to list them: the repository may have Actions
	// off, which no run list tells but its own description does.
	noRuns := err == nil && len(runs) == 0 || errcode.Of(err) == errcode.PermissionDenied
	if errors.Is(err, forge.ErrNoActions) || noRuns && actionsOff(ctx, f, in.Owner, in.Repo) {
		return reply[listActionRunsOut]{}, errcode.New(errcode.NotFound, "%s/%s has no Actions on this forge (Actions are off for it, or the forge is older than Gitea 1.24); get_commit_status shows the checks other CI set", in.Owner, in.Repo)
	}
	if err != nil {
		return reply[listActionRunsOut]{}, err
	}
	runsFirstFailing(runs)
	out := listActionRunsOut{SHA: sha, Total: len(runs), Offset: in.Offset, Runs: []actionRun{}}
	for _, r := range runs {
		switch {
		case r.Conclusion == "failure":
			out.Failing++
		case r.Status != "completed":
			out.Unfinished++
		}
	}
	if in.Offset > len(runs) {
		return reply[listActionRunsOut]{}, errcode.New(errcode.InvalidArgument, "offset %d is past the %s of %s", in.Offset, text.Count(len(runs), "run"), what)
	}
	page := runs[in.Offset:min(len(runs), in.Offset+runsPerPage)]
	shown, err := s.runsWithJobs(ctx, in.Owner, in.Repo, page)
	if err != nil {
		return reply[listActionRunsOut]{}, err
	}
	render := func(n int) reply[listActionRunsOut] {
		o := out
		o.Runs = shown[:n]
		o.FailedJobs = failedJobs(o.Runs)
		var b strings.Builder
		fmt.Fprintf(&b, "%s/%s, %s (%s): ", in.Owner, in.Repo, what, git.Short(sha))
		switch {
		case len(runs) == 0:
			b.WriteString("no Actions run\n")
		default:
			fmt.Fprintf(&b, "%s, %d failing, %d unfinished", text.Count(len(runs), "Actions run"), out.Failing, out.Unfinished)
			if more {
				fmt.Fprintf(&b, " (the newest %d; the forge has more)", forge.MaxRuns)
			}
			if n < len(runs) || in.Offset > 0 {
				b.WriteString("; " + paging.Shown(in.Offset, n, len(runs), "run", "list_action_runs", in))
			}
			if o.FailedJobs > 0 {
				b.WriteString("; " + text.Count(o.FailedJobs, "failed job") + " in the runs shown")
			}
			b.WriteString("\n")
		}
		for _, r := range o.Runs {
			writeRun(&b, r)
		}
		if id, ok := firstFailedJob(o.Runs); ok {
			log := paging.PlainJSON(map[string]any{"owner": in.Owner, "repo": in.Repo, "jobId": id})
			fmt.Fprintf(&b, "A failed job's log, by line range: call read_job_log with %s (its first reply gives the line count; a failure is usually told at the end).\n", log)
		}
		rep := reply[listActionRunsOut]{Text: b.String(), Out: o}
		if in.Offset+n < len(runs) {
			next := in
			// The commit itself: a head that moves cannot shift the page.
			next.Index, next.Ref, next.Offset = 0, sha, in.Offset+n
			rep.Out.NextOffset = ptr(next.Offset)
			rep.Next = paging.Continue(tool, next)
		}
		return rep
	}
	rep := paging.FitList(s.budget(ctx), len(shown), render)
	if len(rep.Out.Runs) == 0 && len(shown) > 0 {
		return reply[listActionRunsOut]{}, errcode.New(errcode.TooLarge, "the run at offset %d does not fit in one reply (%d bytes); %s", in.Offset, s.budget(ctx).MaxBytes, paging.NoNarrowing)
	}
	return rep, nil
}

// actionsOff: the forge says the repository has Actions off.
func actionsOff(ctx context.Context, f *forge.Client, owner, repo string) bool {
	fr, err := f.Repo(ctx, owner, repo)
	return err == nil && fr.HasActions != nil && !*fr.HasActions
}

// runsWithJobs asks the forge for the jobs of each run, all at once (at
// most runsPerPage requests in flight).
func (s *Server) runsWithJobs(ctx context.Context, owner, repo string, runs []forge.Run) ([]actionRun, error) {
	out := make([]actionRun, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Go(func() {
			jobs, more, err := s.cfg.Forge.Jobs(ctx, owner, repo, r.ID)
			out[i], errs[i] = actionRunOf(r, jobs), err
			out[i].MoreJobs = more
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checksTarget is the commit whose checks a call asks for, and how to
// name it: a pull request's head (index), a ref, else the default branch.
func (s *Server) checksTarget(ctx context.Context, owner, name *string, index int, ref string) (target, what string, err error) {
	if err := s.servedNames(ctx, owner, name); err != nil {
		return "", "", err
	}
	if err := forgeRepo(*owner, *name); err != nil {
		return "", "", err
	}
	if index > 0 && ref != "" {
		return "", "", errcode.New(errcode.InvalidArgument, "give index (a pull request: the checks of its head) or ref (a commit, branch or tag), not both")
	}
	f := s.cfg.Forge
	switch {
	case index > 0:
		pr, err := f.Pull(ctx, *owner, *name, index)
		if err != nil {
			return "", "", pullNotFound(err, *owner, *name, index)
		}
		return pr.Head.SHA, fmt.Sprintf("pull request #%d's head", index), nil
	case ref == "":
		fr, err := f.Repo(ctx, *owner, *name)
		if err != nil {
			return "", "", err
		}
		return fr.DefaultBranch, text.Name(fr.DefaultBranch) + " (the default branch)", nil
	}
	return ref, text.Name(ref), nil
}

// runsFirstFailing orders runs as a reviewer reads them: failed, then
// unfinished, then the rest, each newest first as the forge lists them.
func runsFirstFailing(runs []forge.Run) {
	rank := func(r forge.Run) int {
		switch {
		case r.Conclusion == "failure":
			return 0
		case r.Status != "completed":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(runs, func(a, b forge.Run) int { return rank(a) - rank(b) })
}

func actionRunOf(r forge.Run, jobs []forge.Job) actionRun {
	out := actionRun{ID: r.ID, Number: r.Number, Workflow: r.Workflow, Title: r.Title, Event: r.Event, Status: r.Status,
		Conclusion: r.Conclusion, Started: r.Started, Completed: r.Completed, URL: r.URL, Jobs: make([]actionJob, len(jobs))}
	for i, j := range jobs {
		out.Jobs[i] = actionJob{ID: j.ID, Name: j.Name, Status: j.Status, Conclusion: j.Conclusion, Runner: j.Runner,
			Started: j.Started, Completed: j.Completed, URL: j.URL}
	}
	return out
}

// actionsWord is a status or conclusion as the forge gave it, quoted when
// it is not one the forge's API defines: a forge's word cannot start a
// line that passes for the server's.
func actionsWord(w string) string {
	switch w {
	case "queued", "waiting", "in_progress", "completed", "success", "failure", "cancelled", "skipped":
		return w
	}
	return strconv.Quote(w)
}

// writeRun writes one run and its jobs, a line each.
func writeRun(b *strings.Builder, r actionRun) {
	state := actionsWord(r.Status)
	if r.Conclusion != "" {
		state = actionsWord(r.Conclusion)
	}
	fmt.Fprintf(b, "run #%d (id %d) %s: %s on %s", r.Number, r.ID, state, text.Name(r.Workflow), text.Name(r.Event))
	if r.Title != "" {
		b.WriteString(", " + strconv.Quote(r.Title))
	}
	writeSpan(b, r.Started, r.Completed)
	if r.URL != "" {
		b.WriteString(" " + text.Name(r.URL))
	}
	b.WriteString("\n")
	for _, j := range r.Jobs {
		state := actionsWord(j.Status)
		if j.Conclusion != "" {
			state = actionsWord(j.Conclusion)
		}
		fmt.Fprintf(b, "  job %d %s: %s", j.ID, state, text.Name(j.Name))
		writeSpan(b, j.Started, j.Completed)
		b.WriteString("\n")
	}
	if r.MoreJobs {
		fmt.Fprintf(b, "  (the first %d jobs: the run has more)\n", forge.MaxJobs)
	}
}

// writeSpan writes when something ran, as far as it is known.
func writeSpan(b *strings.Builder, started, completed string) {
	switch {
	case started != "" && completed != "":
		b.WriteString(" (" + text.Line(started) + " – " + text.Line(completed) + ")")
	case started != "":
		b.WriteString(" (started " + text.Line(started) + ")")
	}
}

func failedJobs(runs []actionRun) int {
	n := 0
	for _, r := range runs {
		for _, j := range r.Jobs {
			if j.Conclusion == "failure" {
				n++
			}
		}
	}
	return n
}

// firstFailedJob is the id of the first job shown that failed.
func firstFailedJob(runs []actionRun) (int64, bool) {
	for _, r := range runs {
		for _, j := range r.Jobs {
			if j.Conclusion == "failure" {
				return j.ID, true
			}
		}
	}
	return 0, false
}
