package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type listPullRequestCommentsIn struct {
	Owner string `json:"owner,omitempty"`
	Repo  string `json:"repo,omitempty"`
	Index int    `json:"index"`
	Since string `json:"since,omitempty" jsonschema:"only comments updated since (RFC 3339)"`
	// From and BodyOffset are where a partial reply stopped: a comment by
	// its id (ids survive comments added or deleted before it), and a
	// byte of its body.
	From       int64  `json:"from,omitempty" jsonschema:"start at this comment id"`
	BodyOffset int    `json:"bodyOffset,omitempty" jsonschema:"bytes to skip in that comment's body"`
	Order      string `json:"order,omitempty" jsonschema:"oldest (default) or newest first"`
	paging.ReplyLimit
}

type listPullRequestCommentsOut struct {
	Total    int        `json:"total" jsonschema:"comments (updated since since, when given)"`
	Comments []prRemark `json:"comments" jsonschema:"this part's comments, oldest first (newest first with order newest)"`
	paging.Paged
}

// prRemark is one comment of a pull request's conversation, or the share
// of its body a part holds.
type prRemark struct {
	ID        int64  `json:"id"`
	Author    string `json:"author"`
	CreatedAt string `json:"createdAt" jsonschema:"as the forge writes it (RFC 3339)"`
	UpdatedAt string `json:"updatedAt"`
	URL       string `json:"url"`
	Body      string `json:"body" jsonschema:"this part's share of the comment's body, exactly"`
	// BodyOffset and BodyBytes say where the share is in the whole body.
	BodyOffset int               `json:"bodyOffset"`
	BodyBytes  int               `json:"bodyBytes"`
	Hidden     *text.HiddenChars `json:"bodyHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters this share holds (lines of the whole body), shown as they are; absent when none"`
}

// listPullRequestCommentsTool is list_pull_request_comments' definition
// (registry.go).
var listPullRequestCommentsTool = defineTool(toolSpec{
	Name:  "list_pull_request_comments",
	Title: "List pull request comments",
	Description: "List a pull request's conversation on the forge: comments in order with author, dates, link and body; since gives only what is new. " +
		"Inline comments on the diff are threads: list_pull_request_reviews." +
		partialNext,
	ForgeOnly: true,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "index", 0, 1, 1<<31-1)
		argcheck.SetInt(in, "bodyOffset", 0, 0, 1<<31-1)
		argcheck.SetDefault(in, "order", histOldest)
		argcheck.Prop(in, "order").Enum = []any{histOldest, histNewest}
	},
}, (*Server).listPullRequestComments)

func (s *Server) listPullRequestComments(ctx context.Context, in listPullRequestCommentsIn) (reply[listPullRequestCommentsOut], error) {
	const tool = "list_pull_request_comments"
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return reply[listPullRequestCommentsOut]{}, err
	}
	if err := forgeRepo(in.Owner, in.Repo); err != nil {
		return reply[listPullRequestCommentsOut]{}, err
	}
	if in.Since != "" && !isRFC3339(in.Since) {
		return reply[listPullRequestCommentsOut]{}, errcode.New(errcode.InvalidArgument, "since %q is not a time in RFC 3339 (e.g. 2026-12-01T09:00:00Z)", in.Since)
	}
	win, err := s.commentWindow(ctx, in)
	if err != nil {
		return reply[listPullRequestCommentsOut]{}, pullNotFound(err, in.Owner, in.Repo, in.Index)
	}
	if in.From != 0 && !win.found {
		return reply[listPullRequestCommentsOut]{}, errcode.New(errcode.NotFound, "comment %d, where this listing went on, is no longer in pull request #%d's conversation (deleted); leave from out to start again", in.From, in.Index)
	}
	if in.BodyOffset > 0 && (in.From == 0 || in.BodyOffset >= len(win.kept[0].Body)) {
		return reply[listPullRequestCommentsOut]{}, errcode.New(errcode.InvalidArgument, "bodyOffset %d is not inside the body of the comment from names; pass from and bodyOffset as the previous reply gave them", in.BodyOffset)
	}
	start, rest := win.start, win.kept
	// nextID is the comment a part of n whole comments stops before; 0:
	// none, the listing ends.
	nextID := func(n int) int64 {
		if n < len(rest) {
			return rest[n].ID
		}
		return win.after
	}
	name := fmt.Sprintf("%s/%s#%d", in.Owner, in.Repo, in.Index)
	header := func(n int) string {
		h := fmt.Sprintf("%s: %s", name, text.Count(win.total, "comment"))
		if in.Since != "" {
			h += " updated since " + text.Line(in.Since)
		}
		if in.Order == histNewest {
			h += ", newest first"
		}
		if n < win.total {
			h += "; this part: " + text.ShownRange(start, n-start, win.total, "comment")
		}
		return h + "\n"
	}
	base := listPullRequestCommentsOut{Total: win.total, Comments: []prRemark{}}
	// As many whole comments as fit, the first from bodyOffset on.
	render := func(n int) reply[listPullRequestCommentsOut] {
		out := base
		var b strings.Builder
		b.WriteString(header(start + n))
		for i, c := range rest[:n] {
			from := 0
			if i == 0 {
				from = in.BodyOffset
			}
			out.Comments = append(out.Comments, writeRemark(&b, c, from, len(c.Body)))
		}
		r := reply[listPullRequestCommentsOut]{Text: b.String(), Out: out}
		if id := nextID(n); id != 0 {
			r.Next = remarksNext(tool, in, id, 0)
		}
		return r
	}
	r := paging.FitList(s.budget(ctx), len(rest), render)
	if len(r.Out.Comments) > 0 || len(rest) == 0 {
		return r, nil
	}
	// The first comment alone does not fit: its body in parts.
	c := rest[0]
	body := c.Body[in.BodyOffset:]
	probe := reply[listPullRequestCommentsOut]{Text: header(start+1) + strings.Repeat("x", 300+len(c.User)+len(c.URL)), Out: base,
		Next: remarksNext(tool, in, c.ID, len(c.Body))}
	room := s.budget(ctx).PayloadRoom(probe)
	piece, _ := paging.CutText(body, room, indentedCost(s.budget(ctx)))
	out := base
	var b strings.Builder
	b.WriteString(header(start + 1))
	out.Comments = append(out.Comments, writeRemark(&b, c, in.BodyOffset, in.BodyOffset+len(piece)))
	r = reply[listPullRequestCommentsOut]{Text: b.String(), Out: out}
	switch end := in.BodyOffset + len(piece); {
	case end < len(c.Body):
		r.Next = remarksNext(tool, in, c.ID, end)
	case nextID(1) != 0:
		r.Next = remarksNext(tool, in, nextID(1), 0)
	}
	return r, nil
}

// writeRemark writes comment c's body from byte from to byte to, indented
// so that no line of it can pass for the server's, and returns its entry.
func writeRemark(b *strings.Builder, c forge.IssueComment, from, to int) prRemark {
	share := c.Body[from:to]
	fmt.Fprintf(b, "--- comment %d by %s, %s", c.ID, text.Name(c.User), text.Line(c.Created))
	if c.Updated != "" && c.Updated != c.Created {
		b.WriteString(" (edited " + text.Line(c.Updated) + ")")
	}
	if c.URL != "" {
		b.WriteString(" " + text.Name(c.URL))
	}
	b.WriteString("\n")
	if from > 0 || to < len(c.Body) {
		fmt.Fprintf(b, "[body bytes %d–%d of %d]\n", from+1, to, len(c.Body))
	}
	b.WriteString(histIndent(strings.TrimSuffix(share, "\n")))
	hidden := text.ScanShare(c.Body, from, to)
	if hidden.Found() {
		b.WriteString("[" + text.HiddenNote(fmt.Sprintf("comment %d", c.ID), hidden, text.Hidden{}, false) + "]\n")
	}
	b.WriteString(framedNote(fmt.Sprintf("comment %d", c.ID), histIndent(strings.TrimSuffix(share, "\n")), lineAt(c.Body, from)))
	return prRemark{ID: c.ID, Author: c.User, CreatedAt: c.Created, UpdatedAt: c.Updated, URL: c.URL,
		Body: share, BodyOffset: from, BodyBytes: len(c.Body), Hidden: text.NewHiddenChars(hidden, text.Hidden{})}
}

// remarksNext is the call that goes on at comment id, bodyOffset bytes
// into its body.
func remarksNext(tool string, in listPullRequestCommentsIn, id int64, bodyOffset int) *paging.Call {
	in.From, in.BodyOffset = id, bodyOffset
	return paging.Continue(tool, in)
}

// isRFC3339 tells a time the forge takes for since.
func isRFC3339(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}
