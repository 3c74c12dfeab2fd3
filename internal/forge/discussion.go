package forge

import (
	"context"
	"net/url"
	"strconv"
)

// IssueComment is one comment of a pull request's conversation (not an
// inline comment of a review).
type IssueComment struct {
	ID               int64
	User             string
	Body             string
	Created, Updated string // RFC 3339, as the forge writes them
	URL              string
}

type issueCommentJSON struct {
	ID      int64     `json:"id"`
	User    *userJSON `json:"user"`
	Body    string    `json:"body"`
	Created string    `json:"created_at"`
	Updated string    `json:"updated_at"`
	HTMLURL string    `json:"html_url"`
}

// IssueComments lists the conversation of pull request index, oldest
// first (GET /repos/{owner}/{repo}/issues/{index}/comments), those updated
// at or after since (RFC 3339) when it is set. The forge answers with all
// of them at once (it takes no page); an answer over the client's bound
// is TOO_LARGE, and since narrows it.
func (c *Client) IssueComments(ctx context.Context, owner, repo string, index int, since string) (_ []IssueComment, err error) {
	defer c.secrets.clean(&err)
	var q url.Values
	if since != "" {
		q = url.Values{"since": {since}}
	}
	var list []issueCommentJSON
	if err := c.getJSON(ctx, repoPath(owner, repo)+"/issues/"+strconv.Itoa(index)+"/comments", q, &list); err != nil {
		return nil, err
	}
	out := make([]IssueComment, len(list))
	for i, r := range list {
		out[i] = IssueComment{ID: r.ID, User: login(r.User), Body: r.Body, Created: r.Created, Updated: r.Updated, URL: r.HTMLURL}
	}
	return out, nil
}
