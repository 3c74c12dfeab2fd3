package forge

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
)

// A pull request's reviews as Gitea and Forgejo give them (API v1): the
// reviews, each with its inline comments. The forge has no list of a pull
// request's comments at once, and no field that tells a reply or an
// outdated comment: a thread is the comments at one path and line, and
// only the line's history can tell whether it changed since.

// Review is one review of a pull request.
type Review struct {
	ID int64
	// User is the reviewer's login ("" for a request to a team).
	User string
	// State is the forge's: APPROVED, REQUEST_CHANGES, COMMENT, PENDING
	// (a review not yet submitted) or REQUEST_REVIEW (a review asked for).
	State string
	// Dismissed: an approval or a request for changes an admin dismissed
	// (its state is kept).
	Dismissed bool
	// Stale: given on a commit that is no longer the head.
	Stale    bool
	Official bool
	Body     string
	CommitID string
	// Comments counts its inline comments, outdated ones included.
	Comments  int
	Submitted string // RFC 3339, as the forge writes it
	URL       string
}

// ReviewComment is one inline comment of a review.
type ReviewComment struct {
	ID, ReviewID int64
	User         string
	Body         string
	Path         string
	// NewLine is the line of the new file it is on, OldLine of the old
	// one: exactly one is set.
	NewLine, OldLine int
	// CommitID is the commit the line was on when the comment was made.
	CommitID string
	// DiffHunk is the patch the forge kept around the line.
	DiffHunk string
	// Resolver is who resolved its thread ("": not resolved).
	Resolver         string
	Created, Updated string
	URL              string
}

type userJSON struct {
	Login string `json:"login"`
}

func login(u *userJSON) string {
	if u == nil {
		return ""
	}
	return u.Login
}

type reviewJSON struct {
	ID        int64     `json:"id"`
	User      *userJSON `json:"user"`
	State     string    `json:"state"`
	Body      string    `json:"body"`
	CommitID  string    `json:"commit_id"`
	Stale     bool      `json:"stale"`
	Official  bool      `json:"official"`
	Dismissed bool      `json:"dismissed"`
	Comments  int       `json:"comments_count"`
	Submitted string    `json:"submitted_at"`
	HTMLURL   string    `json:"html_url"`
}

type reviewCommentJSON struct {
	ID       int64     `json:"id"`
	ReviewID int64     `json:"pull_request_review_id"`
	User     *userJSON `json:"user"`
	Resolver *userJSON `json:"resolver"`
	Body     string    `json:"body"`
	Path     string    `json:"path"`
	CommitID string    `json:"commit_id"`
	DiffHunk string    `json:"diff_hunk"`
	Position int       `json:"position"`
	Original int       `json:"original_position"`
	Created  string    `json:"created_at"`
	Updated  string    `json:"updated_at"`
	HTMLURL  string    `json:"html_url"`
}

// reviewPage is how many reviews are asked for at once (the forge's most,
// MAX_RESPONSE_ITEMS). MaxReviews and maxReviewBytes bound the reviews of
// one pull request read, so that a hostile forge cannot make the server
// read forever: past them the listing says what it read, it is not
// refused (docs/security.md, review 3, item 7).
const (
	reviewPage     = 50
	MaxReviews     = 10000
	maxReviewBytes = 64 << 20
)

// PullReviews lists the reviews of pull request index, oldest first
// (GET /repos/{owner}/{repo}/pulls/{index}/reviews, page by page). A page
// can hold fewer than asked (the forge drops pending reviews of others
// after paging): the listing ends on an empty page, or at the total the
// forge counts. more: the forge has more than MaxReviews, or more than
// maxReviewBytes of them; those read come back.
func (c *Client) PullReviews(ctx context.Context, owner, repo string, index int) (_ []Review, more bool, err error) {
	defer c.secrets.clean(&err)
	path := repoPath(owner, repo) + "/pulls/" + strconv.Itoa(index) + "/reviews"
	read := 0
	out, more, err := readPages(ctx, c, path, nil, reviewPage, MaxReviews, func(data []byte, h http.Header) ([]Review, int, error) {
		if read += len(data); read > maxReviewBytes {
			return nil, 0, errEnough
		}
		var list []reviewJSON
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, 0, err
		}
		page := make([]Review, len(list))
		for i, r := range list {
			page[i] = Review{ID: r.ID, User: login(r.User), State: r.State, Dismissed: r.Dismissed, Stale: r.Stale,
				Official: r.Official, Body: r.Body, CommitID: r.CommitID, Comments: r.Comments, Submitted: r.Submitted, URL: r.HTMLURL}
		}
		return page, headerTotal(h), nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, more, nil
}

// ReviewComments lists the inline comments of one review (GET
// .../pulls/{index}/reviews/{id}/comments), in the order they were made:
// the forge gives them in no stable order.
func (c *Client) ReviewComments(ctx context.Context, owner, repo string, index int, review int64) (_ []ReviewComment, err error) {
	defer c.secrets.clean(&err)
	var list []reviewCommentJSON
	path := repoPath(owner, repo) + "/pulls/" + strconv.Itoa(index) + "/reviews/" + strconv.FormatInt(review, 10) + "/comments"
	if err := c.getJSON(ctx, path, nil, &list); err != nil {
		return nil, err
	}
	out := make([]ReviewComment, len(list))
	for i, r := range list {
		out[i] = ReviewComment{ID: r.ID, ReviewID: r.ReviewID, User: login(r.User), Body: r.Body, Path: r.Path,
			NewLine: r.Position, OldLine: r.Original, CommitID: r.CommitID, DiffHunk: r.DiffHunk,
			Resolver: login(r.Resolver), Created: r.Created, Updated: r.Updated, URL: r.HTMLURL}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created < out[j].Created
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}
