package forge

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// CombinedStatus is a commit's checks as the forge sums them up: the
// latest status of each context, and their state together (failure when
// any is error, failure or warning; success when all are success or
// skipped; else pending, as with none).
type CombinedStatus struct {
	SHA      string
	State    string
	Statuses []Status
	// More: the commit has more contexts than the MaxStatuses read (State
	// and Statuses are those of the ones read).
	More bool
}

// Status is the latest status a context (a CI job, say) set on a commit.
type Status struct {
	Context     string
	State       string // pending, success, error, failure, warning or skipped
	Description string
	TargetURL   string
	Creator     string
	Created     string // RFC 3339
}

type combinedJSON struct {
	SHA      string `json:"sha"`
	State    string `json:"state"`
	Statuses []struct {
		Context     string    `json:"context"`
		Status      string    `json:"status"` // Gitea's name for the state
		Description string    `json:"description"`
		TargetURL   string    `json:"target_url"`
		Creator     *userJSON `json:"creator"`
		Created     string    `json:"created_at"`
	} `json:"statuses"`
}

// statusPage is how many contexts are asked for at once; MaxStatuses
// bounds the contexts read.
const (
	statusPage  = 50
	MaxStatuses = 500
)

// CombinedStatus is the checks of ref (a commit id, branch or tag): GET
// /repos/{owner}/{repo}/commits/{ref}/status, page by page over the
// contexts. The state is worked out again over every page (the forge sums
// up each page alone).
func (c *Client) CombinedStatus(ctx context.Context, owner, repo, ref string) (_ *CombinedStatus, err error) {
	defer c.secrets.clean(&err)
	if err := checkSegments("ref", ref); err != nil {
		return nil, err
	}
	out := &CombinedStatus{}
	out.Statuses, out.More, err = readPages(ctx, c, repoPath(owner, repo)+"/commits/"+url.PathEscape(ref)+"/status", nil, statusPage, MaxStatuses,
		func(data []byte, h http.Header) ([]Status, int, error) {
			var cs combinedJSON
			if err := json.Unmarshal(data, &cs); err != nil {
				return nil, 0, err
			}
			out.SHA = objectID(cs.SHA)
			page := make([]Status, len(cs.Statuses))
			for i, s := range cs.Statuses {
				page[i] = Status{Context: s.Context, State: s.Status, Description: s.Description,
					TargetURL: s.TargetURL, Creator: login(s.Creator), Created: s.Created}
			}
			return page, headerTotal(h), nil
		})
	if err != nil {
		return nil, err
	}
	out.State = combinedState(out.Statuses)
	return out, nil
}

// combinedState is the forge's rule for a commit's checks together.
func combinedState(statuses []Status) string {
	if len(statuses) == 0 {
		return "pending"
	}
	success := true
	for _, s := range statuses {
		switch {
		case Failing(s.State):
			return "failure"
		case s.State != "success" && s.State != "skipped":
			success = false
		}
	}
	if success {
		return "success"
	}
	return "pending"
}

// Failing: a check in this state fails the commit.
func Failing(state string) bool {
	return state == "error" || state == "failure" || state == "warning"
}

// Count is how many of the checks fail, and how many are pending.
func (cs *CombinedStatus) Count() (failing, pending int) {
	for _, s := range cs.Statuses {
		switch {
		case Failing(s.State):
			failing++
		case s.State == "pending":
			pending++
		}
	}
	return failing, pending
}

// knownStates are the states a check can be in.
var knownStates = map[string]bool{"pending": true, "success": true, "error": true, "failure": true, "warning": true, "skipped": true}

// KnownState: state is one a check can be in (the forge takes any).
func KnownState(state string) bool { return knownStates[state] }
