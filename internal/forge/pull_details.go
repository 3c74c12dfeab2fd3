package forge

import (
	"context"
	"strconv"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// PullDetails is what a reviewer reads first about a pull request: the
// forge's title, description and state, its branches and commits.
type PullDetails struct {
	Title string
	Body  string // the description, exactly as the forge keeps it
	// Author is the login of the user who opened it.
	Author string
	// State is "open", "closed" or "merged" (the forge says closed and
	// merged; merged wins).
	State string
	Draft bool
	// Mergeable is the forge's own verdict (false while it has not checked,
	// and for a pull request that is no longer open).
	Mergeable bool
	// Branches (refs) and their commits, and where the diff starts.
	BaseRef, BaseSHA string
	HeadRef, HeadSHA string
	MergeBase        string
	Labels           []string // names, in the forge's order
	URL              string   // the pull request's page
	// Created and Updated are the forge's dates as it writes them (RFC 3339).
	Created, Updated string
	// ChangedFiles is the number of files the diff changes; -1 when the
	// forge does not say (older versions, or its listing of pulls).
	ChangedFiles int
}

// pullJSON is the part of Gitea's (and Forgejo's) PullRequest that
// PullDetails reads.
type pullJSON struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	User  *struct {
		Login string `json:"login"`
	} `json:"user"`
	State     string `json:"state"`
	Draft     bool   `json:"draft"`
	Merged    bool   `json:"merged"`
	Mergeable bool   `json:"mergeable"`
	Base      *struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"base"`
	Head *struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
	MergeBase string `json:"merge_base"`
	Labels    []struct {
		Name string `json:"name"`
	} `json:"labels"`
	HTMLURL      string `json:"html_url"`
	CreatedAt    string `json:"created_at"`
	UpdatedAt    string `json:"updated_at"`
	ChangedFiles *int   `json:"changed_files"`
}

// PullDetails describes pull request index: GET
// /repos/{owner}/{repo}/pulls/{index}. A 404 is NOT_FOUND (the pull request,
// or the repository, does not exist, or the token cannot see it); like
// every method of Client, its errors leave scrubbed of the token.
func (c *Client) PullDetails(ctx context.Context, owner, repo string, index int) (_ *PullDetails, err error) {
	defer c.secrets.clean(&err)
	var p pullJSON
	if err := c.getJSON(ctx, repoPath(owner, repo)+"/pulls/"+strconv.Itoa(index), nil, &p); err != nil {
		return nil, err
	}
	d := &PullDetails{
		Title: p.Title, Body: p.Body, State: p.State, Draft: p.Draft, Mergeable: p.Mergeable,
		MergeBase: objectID(p.MergeBase), URL: p.HTMLURL, Created: p.CreatedAt, Updated: p.UpdatedAt,
		Labels: []string{}, ChangedFiles: -1,
	}
	if p.Merged {
		d.State = "merged"
	}
	if p.User != nil {
		d.Author = p.User.Login
	}
	if p.Base != nil {
		d.BaseRef, d.BaseSHA = p.Base.Ref, objectID(p.Base.SHA)
	}
	if p.Head != nil {
		d.HeadRef, d.HeadSHA = p.Head.Ref, objectID(p.Head.SHA)
	}
	for _, l := range p.Labels {
		d.Labels = append(d.Labels, l.Name)
	}
	if p.ChangedFiles != nil {
		d.ChangedFiles = *p.ChangedFiles
	}
	return d, nil
}

// objectID is a commit id the forge gave, or "" when it is not one (hex of
// an object id's length): the forge's text is never printed where a server
// line could start with it (docs/security.md, review 3, finding 10).
func objectID(s string) string {
	if git.IsObjectID(s) {
		return s
	}
	return ""
}
