package server

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type getCommitStatusIn struct {
	Owner  string `json:"owner,omitempty"`
	Repo   string `json:"repo,omitempty"`
	Index  int    `json:"index,omitempty"`
	Ref    string `json:"ref,omitempty" jsonschema:"commit, branch or tag instead; neither: the default branch"`
	Offset int    `json:"offset,omitempty"`
	paging.ReplyLimit
}

type getCommitStatusOut struct {
	SHA   string `json:"sha" jsonschema:"the commit whose checks these are"`
	State string `json:"state" jsonschema:"the checks together: failure (one is error, failure or warning), success (all are success or skipped) or pending (one is pending, or none is set)"`
	Total int    `json:"total" jsonschema:"how many contexts set a status (of the first 500 read)"`
	More  bool   `json:"more,omitempty" jsonschema:"the commit has more contexts than the 500 read; state and the counts are those of the ones read"`
	// Failing counts the contexts whose state is error, failure or warning.
	Failing    int            `json:"failing"`
	Pending    int            `json:"pending"`
	Statuses   []commitStatus `json:"statuses" jsonschema:"this page's checks: the latest status of each context"`
	Offset     int            `json:"offset"`
	NextOffset *int           `json:"nextOffset,omitempty" jsonschema:"where the next page starts; absent on the last"`
	paging.Paged
}

type commitStatus struct {
	Context     string `json:"context"`
	State       string `json:"state" jsonschema:"pending, success, error, failure, warning or skipped"`
	Description string `json:"description"`
	TargetURL   string `json:"targetUrl" jsonschema:"the check's own page (a CI run), as the forge has it"`
	Creator     string `json:"creator" jsonschema:"login of who set it"`
	CreatedAt   string `json:"createdAt" jsonschema:"as the forge writes it (RFC 3339)"`
}

// getCommitStatusTool is get_commit_status's definition (registry.go).
var getCommitStatusTool = defineTool(toolSpec{
	Name:  "get_commit_status",
	Title: "Get commit status",
	Description: "Get the CI checks of a pull request's head (index) or a commit (ref) on the forge: combined state, failing count, each context's latest status, link and description, failing first. " +
		"get_pull_request only counts them; list_action_runs names Actions jobs, read_job_log reads a log." +
		partialNext,
	ForgeOnly: true,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "index", 0, 1, 1<<31-1)
		argcheck.SetInt(in, "offset", 0, 0, 1<<31-1)
	},
}, (*Server).getCommitStatus)

func (s *Server) getCommitStatus(ctx context.Context, in getCommitStatusIn) (reply[getCommitStatusOut], error) {
	const tool = "get_commit_status"
	ref, what, err := s.checksTarget(ctx, &in.Owner, &in.Repo, in.Index, in.Ref)
	if err != nil {
		return reply[getCommitStatusOut]{}, err
	}
	f := s.cfg.Forge
	cs, err := f.CombinedStatus(ctx, in.Owner, in.Repo, ref)
	if err != nil {
		return reply[getCommitStatusOut]{}, err
	}
	all := checksFirstFailing(cs.Statuses)
	out := getCommitStatusOut{SHA: cs.SHA, State: cs.State, Total: len(all), More: cs.More, Offset: in.Offset, Statuses: []commitStatus{}}
	out.Failing, out.Pending = cs.Count()
	if in.Offset > len(all) {
		return reply[getCommitStatusOut]{}, errcode.New(errcode.InvalidArgument, "offset %d is past the %s of %s", in.Offset, text.Count(len(all), "check"), what)
	}
	page := all[in.Offset:]
	render := func(n int) reply[getCommitStatusOut] {
		o := out
		o.Statuses = page[:n]
		var b strings.Builder
		fmt.Fprintf(&b, "%s/%s, %s (%s): checks %s", in.Owner, in.Repo, what, git.Short(cs.SHA), cs.State)
		switch {
		case len(all) == 0:
			b.WriteString(": no check has set a status\n")
		default:
			fmt.Fprintf(&b, ", %d failing, %d pending of %d", out.Failing, out.Pending, len(all))
			if cs.More {
				fmt.Fprintf(&b, " (the first %d contexts read: the forge has more)", forge.MaxStatuses)
			}
			if n < len(page) || in.Offset > 0 {
				b.WriteString("; " + paging.Shown(in.Offset, n, len(all), "check", "get_commit_status", in))
			}
			b.WriteString("\n")
		}
		var hidden text.Hidden // in the checks' own words
		for i, st := range o.Statuses {
			hidden.Add(i+1, []byte(st.Context+" "+st.Description), false)
			state := st.State
			if !forge.KnownState(state) {
				// The forge takes any state: an unknown one is quoted,
				// so that it cannot start a line of its own.
				state = strconv.Quote(state)
			}
			fmt.Fprintf(&b, "%-8s %s", state, text.Line(st.Context))
			if st.Description != "" {
				b.WriteString(": " + text.Line(st.Description))
			}
			if st.CreatedAt != "" {
				b.WriteString(" (" + text.Line(st.CreatedAt))
				if st.Creator != "" {
					b.WriteString(", by " + text.Name(st.Creator))
				}
				b.WriteString(")")
			}
			if st.TargetURL != "" {
				b.WriteString(" " + text.Name(st.TargetURL))
			}
			b.WriteString("\n")
		}
		if hidden.Found() {
			b.WriteString(text.PointsNote("the contexts and descriptions of these checks", hidden))
		}
		r := reply[getCommitStatusOut]{Text: b.String(), Out: o}
		if n < len(page) {
			next := in
			// The commit itself: a head that moves cannot shift the page.
			next.Index, next.Ref, next.Offset = 0, cs.SHA, in.Offset+n
			r.Out.NextOffset = ptr(next.Offset)
			r.Next = paging.Continue(tool, next)
		}
		return r
	}
	r := paging.FitList(s.budget(ctx), len(page), render)
	if len(r.Out.Statuses) == 0 && len(page) > 0 {
		return reply[getCommitStatusOut]{}, errcode.New(errcode.TooLarge, "the check at offset %d does not fit in one reply (%d bytes); %s", in.Offset, s.budget(ctx).MaxBytes, paging.NoNarrowing)
	}
	return r, nil
}

// checksFirstFailing orders a commit's checks as a reviewer reads them:
// failing, then pending, then the rest, each by context.
func checksFirstFailing(statuses []forge.Status) []commitStatus {
	rank := func(state string) int {
		switch {
		case forge.Failing(state):
			return 0
		case state == "pending":
			return 1
		}
		return 2
	}
	out := make([]commitStatus, len(statuses))
	for i, st := range statuses {
		// Capped as list_commits caps a commit's fields, so that one check
		// always fits a reply: only a hostile forge sends longer ones.
		out[i] = commitStatus{Context: histCap(st.Context, histMaxPerson), State: histCap(st.State, histMaxPerson), Description: histCap(st.Description, histMaxSubject),
			TargetURL: histCap(st.TargetURL, histMaxSubject), Creator: histCap(st.Creator, histMaxPerson), CreatedAt: histCap(st.Created, histMaxPerson)}
	}
	slices.SortStableFunc(out, func(a, b commitStatus) int {
		if d := rank(a.State) - rank(b.State); d != 0 {
			return d
		}
		return strings.Compare(a.Context, b.Context)
	})
	return out
}
