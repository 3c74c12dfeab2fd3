package forge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
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

// MaxDiscussionBytes bounds how much of the forge's answer one listing of
// a conversation reads: the forge sends every comment at once (it takes no
// page), so the answer is read as a stream, a comment at a time, and what
// the caller keeps is its own to bound (docs/security.md, review 3, item 7).
const MaxDiscussionBytes = 256 << 20

// IssueComments reads the conversation of pull request index, oldest first
// (GET /repos/{owner}/{repo}/issues/{index}/comments), those updated at or
// after since (RFC 3339) when it is set, and calls visit with each comment
// in turn. No total size is refused: complete is false when the answer
// went past MaxDiscussionBytes, where reading stopped.
func (c *Client) IssueComments(ctx context.Context, owner, repo string, index int, since string, visit func(IssueComment)) (complete bool, err error) {
	defer c.secrets.clean(&err)
	var q url.Values
	if since != "" {
		q = url.Values{"since": {since}}
	}
	path := repoPath(owner, repo) + "/issues/" + strconv.Itoa(index) + "/comments"
	resp, err := c.get(ctx, path, q)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	body := &countingReader{r: io.LimitReader(resp.Body, MaxDiscussionBytes)}
	// The bound counts the answer's bytes as they come out of the
	// transport's gzip reader: what is decoded, not what was sent.
	dec := json.NewDecoder(&squeezer{r: body})
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return false, c.streamError(ctx, path, body, err, "not a list")
	}
	for dec.More() {
		var r issueCommentJSON
		if err := dec.Decode(&r); err != nil {
			return false, c.streamError(ctx, path, body, err, "")
		}
		visit(IssueComment{ID: r.ID, User: login(r.User), Body: r.Body, Created: r.Created, Updated: r.Updated, URL: r.HTMLURL})
	}
	if _, err := dec.Token(); err != nil {
		return false, c.streamError(ctx, path, body, err, "")
	}
	return true, nil
}

// streamError is what ended a streamed list early: nil when it was the
// read bound (the caller says what was read), else the call's end, a
// failed read, or an answer that is not the JSON expected.
func (c *Client) streamError(ctx context.Context, path string, body *countingReader, err error, what string) error {
	switch {
	case body.n >= MaxDiscussionBytes:
		return nil
	case context.Cause(ctx) != nil && ctx.Err() != nil:
		return context.Cause(ctx)
	case err == nil:
		err = errors.New(what)
	case errors.Is(err, io.ErrUnexpectedEOF), body.err != nil:
		return c.readError(ctx, path, err)
	}
	return jsonError(path, err)
}

// countingReader counts what it read, and keeps the read's error.
type countingReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}
