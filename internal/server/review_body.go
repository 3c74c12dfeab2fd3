package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// reviewBody is list_pull_request_reviews with bodyOf: the whole body of
// one review or inline comment, in parts, that a listing showed cut.
func (s *Server) reviewBody(ctx context.Context, in listPullRequestReviewsIn) (reply[listPullRequestReviewsOut], error) {
	const tool = "list_pull_request_reviews"
	reviews, comments, _, err := s.readReviews(ctx, in.Owner, in.Repo, in.Index, reviewsRead{bodyOf: in.BodyOf})
	if err != nil {
		return reply[listPullRequestReviewsOut]{}, err
	}
	what, author, body, found := "", "", "", false
	for _, rv := range reviews {
		if rv.ID == in.BodyOf {
			what, author, body, found = fmt.Sprintf("review %d", rv.ID), rv.User, rv.Body, true
		}
	}
	for _, c := range comments {
		if c.ID == in.BodyOf {
			what, author, body, found = fmt.Sprintf("comment %d on %s", c.ID, text.Name(c.Path)), c.User, c.Body, true
		}
	}
	switch {
	case !found:
		return reply[listPullRequestReviewsOut]{}, errcode.New(errcode.NotFound, "pull request #%d has no review or inline comment %d (list_pull_request_reviews lists them)", in.Index, in.BodyOf)
	case in.BodyOffset > 0 && in.BodyOffset >= len(body):
		return reply[listPullRequestReviewsOut]{}, errcode.New(errcode.InvalidArgument, "bodyOffset %d is past the end of %s's body (%d bytes)", in.BodyOffset, what, len(body))
	}
	header := fmt.Sprintf("%s/%s#%d: the body of %s by %s, %d bytes", in.Owner, in.Repo, in.Index, what, text.Name(author), len(body))
	out := listPullRequestReviewsOut{Reviews: []prReview{}, Threads: []reviewThread{}}
	probe := reply[listPullRequestReviewsOut]{Text: header + strings.Repeat("x", 100), Out: out, Next: paging.Continue(tool, in)}
	piece, _ := paging.CutText(body[in.BodyOffset:], s.budget(ctx).PayloadRoom(probe), indentedCost(s.budget(ctx)))
	end := in.BodyOffset + len(piece)
	var b strings.Builder
	fmt.Fprintf(&b, "%s; bytes %d–%d\n", header, in.BodyOffset+1, end)
	b.WriteString(histIndent(strings.TrimSuffix(piece, "\n")))
	hidden := text.ScanShare(body, in.BodyOffset, end)
	if hidden.Found() {
		b.WriteString("[" + text.HiddenNote(what, hidden, text.Hidden{}, false) + "]\n")
	}
	b.WriteString(framedNote(what, histIndent(strings.TrimSuffix(piece, "\n")), lineAt(body, in.BodyOffset)))
	out.Reviews = append(out.Reviews, prReview{ID: in.BodyOf, Reviewer: author,
		longBody: longBody{Body: piece, BodyOffset: in.BodyOffset, BodyBytes: len(body), BodyHidden: hiddenPoints(piece)}})
	r := reply[listPullRequestReviewsOut]{Text: b.String(), Out: out}
	if end < len(body) {
		next := in
		next.BodyOffset = end
		r.Next = paging.Continue(tool, next)
	}
	return r, nil
}
