package server

import (
	"cmp"
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
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type listPullRequestReviewsIn struct {
	Owner      string `json:"owner,omitempty"`
	Repo       string `json:"repo,omitempty"`
	Index      int    `json:"index"`
	Path       string `json:"path,omitempty" jsonschema:"only threads on this file"`
	Unresolved bool   `json:"unresolved,omitempty" jsonschema:"only unresolved threads"`
	Reviewer   string `json:"reviewer,omitempty" jsonschema:"only this login's reviews and threads"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	// BodyOf and BodyOffset read one body whole, in parts: the listing
	// shows a long one cut, and names this call.
	BodyOf     int64  `json:"bodyOf,omitempty" jsonschema:"read this review's or comment's whole body instead"`
	BodyOffset int    `json:"bodyOffset,omitempty" jsonschema:"with bodyOf: bytes to skip"`
	Order      string `json:"order,omitempty" jsonschema:"oldest (default) or newest first"`
	paging.ReplyLimit
}

type listPullRequestReviewsOut struct {
	Head    string         `json:"head" jsonschema:"the head commit the threads were checked against"`
	Summary reviewSummary  `json:"summary"`
	Reviews []prReview     `json:"reviews" jsonschema:"this part's reviews, oldest first (newest first with order newest; pending ones, not yet submitted, are not shown); with bodyOf, the one review or inline comment whose body this part holds"`
	Threads []reviewThread `json:"threads" jsonschema:"this part's threads of inline comments, in the order of their first comments (reversed with order newest)"`
	paging.Paged
}

// reviewSummary is where the review stands, over every review and thread
// (whatever the filters).
type reviewSummary struct {
	ChangesRequested   int      `json:"changesRequested" jsonschema:"reviewers whose latest verdict (not dismissed) requests changes"`
	ChangesRequestedBy []string `json:"changesRequestedBy" jsonschema:"who they are"`
	Approved           int      `json:"approved" jsonschema:"reviewers whose latest verdict (not dismissed) approves"`
	Requested          []string `json:"requested" jsonschema:"reviewers asked for a review who have not given one"`
	Threads            int      `json:"threads"`
	Unresolved         int      `json:"unresolvedThreads"`
	// Reviews counts the submitted reviews read; More says the forge has
	// more than the server reads (forge.MaxReviews), which the counts
	// leave out.
	Reviews int  `json:"reviews" jsonschema:"submitted reviews read"`
	More    bool `json:"more,omitempty" jsonschema:"the forge has more reviews than the 10000 read; the counts are of those read"`
}

type prReview struct {
	ID          int64  `json:"id"`
	Reviewer    string `json:"reviewer"`
	State       string `json:"state" jsonschema:"approved, changes_requested, commented or review_requested"`
	Dismissed   bool   `json:"dismissed" jsonschema:"an admin dismissed this verdict"`
	Stale       bool   `json:"stale" jsonschema:"given on a commit that is no longer the head"`
	SubmittedAt string `json:"submittedAt"`
	CommitID    string `json:"commitId"`
	Comments    int    `json:"inlineComments"`
	URL         string `json:"url"`
	longBody
}

// longBody is a body from the forge, cut in a listing when long: the
// listing stays within a reply, and WholeBody is the call that reads it.
type longBody struct {
	Body       string       `json:"body" jsonschema:"the body, or its start when it is long (bodyBytes says how long): wholeBody reads the rest"`
	BodyOffset int          `json:"bodyOffset,omitempty" jsonschema:"where body starts in the whole body, in bytes (with bodyOf)"`
	BodyBytes  int          `json:"bodyBytes" jsonschema:"the whole body's size in bytes"`
	WholeBody  *paging.Call `json:"wholeBody,omitempty" jsonschema:"the call that reads the whole body in parts; absent when body is whole"`
	// BodyHidden names the bidi controls and invisible characters of body.
	BodyHidden []string `json:"bodyHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters body holds, by code point and name, shown as they are; absent when none"`
}

// maxListedBody is the most of one body a listing shows, and at most an
// eighth of the reply limit (a body is sent twice with --structured, and
// an entry holds a few).
const maxListedBody = 4096

// bodyRoom is the most of one body a listing shows at this server's limit.
func (s *Server) bodyRoom(ctx context.Context) int {
	return min(maxListedBody, s.budget(ctx).MaxBytes/8)
}

// listed is body as a listing shows it: whole, or cut after a line (inside
// one only when the first is longer) at room bytes, with the call that
// reads it whole.
func listed(body string, in listPullRequestReviewsIn, id int64, room int) longBody {
	lb := longBody{Body: body, BodyBytes: len(body)}
	if len(body) > room {
		lb.Body = paging.FitText(body, room, func(s string) bool { return len(s) <= room })
		whole := listPullRequestReviewsIn{Owner: in.Owner, Repo: in.Repo, Index: in.Index, BodyOf: id}
		lb.WholeBody = paging.Continue("list_pull_request_reviews", whole)
	}
	lb.BodyHidden = hiddenPoints(lb.Body)
	return lb
}

// listPullRequestReviewsTool is list_pull_request_reviews' definition
// (registry.go).
var listPullRequestReviewsTool = defineTool(toolSpec{
	Name:  "list_pull_request_reviews",
	Title: "List pull request reviews",
	Description: "List what reviewers said of a pull request on the forge: reviews (reviewer, verdict, body) and inline threads by file and line, resolved or outdated or not, with replies; filter by path, unresolved or reviewer. " +
		"Read unresolved threads first; a resolved one is settled. The conversation: list_pull_request_comments; a thread's file: get_pull_request_diff.",
	ForgeOnly: true,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "index", 0, 1, 1<<31-1)
		argcheck.SetDefault(in, "order", histOldest)
		argcheck.Prop(in, "order").Enum = []any{histOldest, histNewest}
	},
}, (*Server).listPullRequestReviews)

func (s *Server) listPullRequestReviews(ctx context.Context, in listPullRequestReviewsIn) (reply[listPullRequestReviewsOut], error) {
	const tool = "list_pull_request_reviews"
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return reply[listPullRequestReviewsOut]{}, err
	}
	if err := forgeRepo(in.Owner, in.Repo); err != nil {
		return reply[listPullRequestReviewsOut]{}, err
	}
	digest := paging.ArgsDigest(in, "cursor")
	var cur paging.Cursor
	if in.Cursor != "" {
		var err error
		if cur, err = s.cursors.Decode(tool, in.Cursor, digest); err != nil {
			return reply[listPullRequestReviewsOut]{}, err
		}
		if err := cur.MadeFor(forgeName(in.Owner, in.Repo)); err != nil {
			return reply[listPullRequestReviewsOut]{}, err
		}
		if len(cur.Commits) != 1 {
			return reply[listPullRequestReviewsOut]{}, paging.ErrBadPosition()
		}
	}
	if in.BodyOf != 0 {
		return s.reviewBody(ctx, in)
	}
	if in.BodyOffset != 0 {
		return reply[listPullRequestReviewsOut]{}, errcode.New(errcode.InvalidArgument, "bodyOffset goes with bodyOf, the review or comment whose body to read")
	}
	r, err := s.served.Get(ctx, in.Owner, in.Repo, true)
	if err != nil {
		return reply[listPullRequestReviewsOut]{}, err
	}
	pr, err := s.backend.pullRequest(ctx, r, in.Index)
	if err != nil {
		return reply[listPullRequestReviewsOut]{}, err
	}
	if in.Cursor != "" && cur.Commits[0] != pr.Head {
		return reply[listPullRequestReviewsOut]{}, headMoved(in.Index, cur.Commits[0], pr.Head)
	}
	reviews, threads, summary, err := s.reviewContext(ctx, r, pr, in)
	if err != nil {
		return reply[listPullRequestReviewsOut]{}, err
	}
	// One list of entries, reviews then threads, paged by its offset.
	total, from := len(reviews)+len(threads), cur.File
	if from > total {
		return reply[listPullRequestReviewsOut]{}, paging.ErrBadPosition()
	}
	render := func(n int) reply[listPullRequestReviewsOut] {
		out := listPullRequestReviewsOut{Head: pr.Head, Summary: summary, Reviews: []prReview{}, Threads: []reviewThread{}}
		for i := from; i < from+n; i++ {
			if i < len(reviews) {
				out.Reviews = append(out.Reviews, reviews[i])
			} else {
				out.Threads = append(out.Threads, threads[i-len(reviews)])
			}
		}
		r := reply[listPullRequestReviewsOut]{Text: reviewsText(in, pr, out, from, n, total), Out: out}
		if from+n < total {
			c := paging.Cursor{Tool: tool, Args: digest, Commits: []string{pr.Head}, File: from + n}
			next := in
			next.Cursor = s.cursors.Encode(c, forgeName(in.Owner, in.Repo))
			r.Next = paging.Continue(tool, next)
		}
		return r
	}
	res := paging.FitList(s.budget(ctx), total-from, render)
	if n := len(res.Out.Reviews) + len(res.Out.Threads); n == 0 && total > from {
		return reply[listPullRequestReviewsOut]{}, errcode.New(errcode.TooLarge, "the review or thread at offset %d does not fit in one reply (%d bytes); %s", from, s.budget(ctx).MaxBytes, paging.NoNarrowing)
	}
	return res, nil
}

// reviewContext reads the reviews and their inline comments, and makes
// the summary (over all of them) and the entries the filters keep.
func (s *Server) reviewContext(ctx context.Context, r *repo.Repository, pr *repo.PullRequest, in listPullRequestReviewsIn) ([]prReview, []reviewThread, reviewSummary, error) {
	all, comments, more, err := s.readReviews(ctx, in.Owner, in.Repo, in.Index, reviewsRead{reviewer: in.Reviewer})
	if err != nil {
		return nil, nil, reviewSummary{}, err
	}
	var reviews []prReview
	for _, rv := range all {
		if in.Reviewer == "" || rv.User == in.Reviewer {
			reviews = append(reviews, prReview{ID: rv.ID, Reviewer: rv.User, State: reviewState(rv.State), Dismissed: rv.Dismissed, Stale: rv.Stale,
				SubmittedAt: rv.Submitted, CommitID: rv.CommitID, Comments: rv.Comments, URL: rv.URL, longBody: listed(rv.Body, in, rv.ID, s.bodyRoom(ctx))})
		}
	}
	threads := threadsOf(comments, in, s.bodyRoom(ctx))
	sum := summarize(all, threads, more)
	var kept []reviewThread
	for _, t := range threads {
		if (in.Path == "" || t.Path == in.Path) && (!in.Unresolved || !t.Resolved) && (in.Reviewer == "" || commentedIn(t, in.Reviewer)) {
			kept = append(kept, t)
		}
	}
	if err := s.checkThreads(ctx, r, pr, in, kept); err != nil {
		return nil, nil, reviewSummary{}, err
	}
	if err := s.locateThreadParts(ctx, in, kept); err != nil {
		return nil, nil, reviewSummary{}, err
	}
	if in.Order == histNewest {
		slices.Reverse(reviews)
		slices.Reverse(kept)
	}
	return reviews, kept, sum, nil
}

// maxReviewHeld bounds what one call holds of a pull request's reviews
// and inline comments read from the forge, in bytes (reviewHeld,
// commentHeld: their strings and an item's share): past it, the inline
// comments of the reviews left are not read, and a note says which
// (docs/security.md, review 4, finding 11). The forge answers each
// review's comments whole (up to 8 MiB), so without a total 100 reviews of
// 8 MiB held 1.1 GiB for one call. What is over the bound is at most one
// answer's.
const maxReviewHeld = 64 << 20

// itemHeld is what an item counts for beyond its strings.
const itemHeld = 256

func reviewHeld(rv forge.Review) int {
	return len(rv.User) + len(rv.State) + len(rv.Body) + len(rv.CommitID) + len(rv.Submitted) + len(rv.URL) + itemHeld
}

func commentHeld(c forge.ReviewComment) int {
	return len(c.User) + len(c.Body) + len(c.Path) + len(c.CommitID) + len(c.DiffHunk) + len(c.Resolver) + len(c.Created) + len(c.Updated) + len(c.URL) + itemHeld
}

// reviewsRead is what a call wants of the reviews' comments: a reviewer's
// are read first (past the bound, theirs are those read); with bodyOf,
// only that comment is kept, so that one body is read whatever the bound.
type reviewsRead struct {
	reviewer string
	bodyOf   int64
}

// readReviews reads a pull request's submitted reviews (pending ones,
// not yet submitted, left out) and the inline comments of each; more: the
// forge has more reviews than it reads (forge.MaxReviews). Past
// maxReviewHeld, the comments of the reviews left are not read: a note
// names them.
func (s *Server) readReviews(ctx context.Context, owner, name string, index int, want reviewsRead) ([]forge.Review, []forge.ReviewComment, bool, error) {
	f := s.cfg.Forge
	all, more, err := f.PullReviews(ctx, owner, name, index)
	if err != nil {
		return nil, nil, false, pullNotFound(err, owner, name, index)
	}
	var submitted, withComments []forge.Review
	held := 0
	for _, rv := range all {
		if reviewState(rv.State) == "" {
			continue
		}
		submitted = append(submitted, rv)
		held += reviewHeld(rv)
		if rv.Comments > 0 {
			withComments = append(withComments, rv)
		}
	}
	if want.reviewer != "" {
		slices.SortStableFunc(withComments, func(a, b forge.Review) int {
			return cmp.Compare(boolInt(a.User != want.reviewer), boolInt(b.User != want.reviewer))
		})
	}
	var comments []forge.ReviewComment
	var unread []int64
	for _, rv := range withComments {
		if held > maxReviewHeld {
			unread = append(unread, rv.ID)
			continue
		}
		cs, err := f.ReviewComments(ctx, owner, name, index, rv.ID)
		if err != nil {
			return nil, nil, false, err
		}
		for _, c := range cs {
			if want.bodyOf == 0 || c.ID == want.bodyOf {
				comments = append(comments, c)
				held += commentHeld(c)
			}
		}
	}
	if len(unread) > 0 {
		slices.Sort(unread)
		ids := make([]string, 0, 11)
		for i, id := range unread {
			if i == 10 {
				ids = append(ids, "…")
				break
			}
			ids = append(ids, strconv.FormatInt(id, 10))
		}
		how := "reviewer (a login) reads that reviewer's first"
		if want.reviewer != "" {
			how = "with reviewer, that reviewer's were read first"
		}
		notes.Add(ctx, fmt.Sprintf("the reviews and their inline comments are more than one call reads from the forge (%d MiB): the inline comments of %s (ids %s) were not read, and the threads and their counts leave them out; %s",
			maxReviewHeld>>20, text.Count(len(unread), "review"), strings.Join(ids, ", "), how))
	}
	return submitted, comments, more, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// summarize is where the review stands: each reviewer's latest verdict
// not dismissed (who requests changes by name), the reviewers asked who
// gave none, and the threads.
func summarize(reviews []forge.Review, threads []reviewThread, more bool) reviewSummary {
	verdicts := map[string]string{}
	var requested []string
	for _, rv := range reviews {
		switch state := reviewState(rv.State); state {
		case "approved", "changes_requested":
			if !rv.Dismissed {
				verdicts[rv.User] = state
			}
		case "review_requested":
			requested = append(requested, rv.User)
		}
	}
	sum := reviewSummary{Requested: []string{}, ChangesRequestedBy: []string{}, Threads: len(threads), Reviews: len(reviews), More: more}
	for who, v := range verdicts {
		if v == "approved" {
			sum.Approved++
		} else {
			sum.ChangesRequested++
			sum.ChangesRequestedBy = append(sum.ChangesRequestedBy, who)
		}
	}
	slices.Sort(sum.ChangesRequestedBy)
	for _, u := range requested {
		if _, gave := verdicts[u]; !gave && u != "" && !slices.Contains(sum.Requested, u) {
			sum.Requested = append(sum.Requested, u)
		}
	}
	for _, t := range threads {
		if !t.Resolved {
			sum.Unresolved++
		}
	}
	return sum
}

// reviewState is the contract's word for the forge's state of a review;
// "" for one not submitted (pending), which is not shown.
func reviewState(s string) string {
	switch s {
	case "APPROVED":
		return "approved"
	case "REQUEST_CHANGES":
		return "changes_requested"
	case "COMMENT":
		return "commented"
	case "REQUEST_REVIEW":
		return "review_requested"
	}
	return ""
}

func commentedIn(t reviewThread, user string) bool {
	for _, c := range t.Comments {
		if c.Author == user {
			return true
		}
	}
	return false
}

// reviewsText is the reply's text: the summary, then this part's reviews
// and threads, every body indented so that no line of it can pass for the
// server's.
func reviewsText(in listPullRequestReviewsIn, pr *repo.PullRequest, out listPullRequestReviewsOut, from, n, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s#%d at head %s: %s", in.Owner, in.Repo, in.Index, git.Short(pr.Head), out.Summary.standing())
	if in.Order == histNewest {
		b.WriteString("; newest first")
	}
	if n < total || from > 0 {
		b.WriteString("; this part: " + text.ShownRange(from, n, total, "entry"))
	}
	b.WriteString("\n")
	for _, rv := range out.Reviews {
		fmt.Fprintf(&b, "\n--- review %d by %s: %s", rv.ID, text.Name(rv.Reviewer), strings.ReplaceAll(rv.State, "_", " "))
		if rv.Dismissed {
			b.WriteString(" (dismissed)")
		}
		if rv.Stale {
			b.WriteString(" (on an earlier head)")
		}
		if rv.SubmittedAt != "" {
			b.WriteString(", " + text.Line(rv.SubmittedAt))
		}
		if rv.Comments > 0 {
			b.WriteString(", " + text.Count(rv.Comments, "inline comment"))
		}
		b.WriteString("\n")
		writeBody(&b, fmt.Sprintf("review %d", rv.ID), rv.longBody)
	}
	for _, t := range out.Threads {
		state := "unresolved"
		if t.Resolved {
			state = "resolved by " + text.Name(t.ResolvedBy)
		}
		if t.Outdated != nil && *t.Outdated {
			state += ", outdated (the line changed since)"
		}
		fmt.Fprintf(&b, "\n--- thread on %s, %s line %d: %s\n", text.Name(t.Path), t.Side, t.Line, state)
		for _, c := range t.Comments {
			fmt.Fprintf(&b, "  comment %d by %s, %s:\n", c.ID, text.Name(c.Author), text.Line(c.CreatedAt))
			writeBody(&b, fmt.Sprintf("comment %d", c.ID), c.longBody)
		}
		switch {
		case t.ShowIn != nil && t.Part > 0:
			fmt.Fprintf(&b, "  the line, in part %d of the file's patch: get_pull_request_diff %s\n", t.Part, paging.PlainJSON(t.ShowIn.Arguments))
		case t.ShowIn != nil:
			b.WriteString("  the file's patch: get_pull_request_diff " + paging.PlainJSON(t.ShowIn.Arguments) + "\n")
		default:
			b.WriteString("  the file is no longer in the pull request's diff\n")
		}
	}
	return b.String()
}

// writeBody writes a body from the forge indented, so that no line of it
// can pass for the server's, and notes its hidden characters.
func writeBody(b *strings.Builder, what string, lb longBody) {
	if lb.Body == "" {
		return
	}
	b.WriteString(histIndent(strings.TrimSuffix(lb.Body, "\n")))
	if h := text.ScanText([]byte(lb.Body), 1); h.Found() {
		b.WriteString("[" + text.HiddenNote(what, h, text.Hidden{}, false) + "]\n")
	}
	b.WriteString(framedNote(what, histIndent(strings.TrimSuffix(lb.Body, "\n")), 1))
	if lb.WholeBody != nil {
		fmt.Fprintf(b, "[body cut: %s's body is %d bytes, shown to byte %d; list_pull_request_reviews %s reads it whole]\n", what, lb.BodyBytes, len(lb.Body), paging.PlainJSON(lb.WholeBody.Arguments))
	}
}

// hiddenPoints names the hidden characters of a one-piece text, for the
// structured output; nil when none.
func hiddenPoints(s string) []string {
	h := text.ScanText([]byte(s), 1)
	if !h.Found() {
		return nil
	}
	return h.PointNames()
}

// standing says where the review stands, what blocks it first: changes
// requested (and by whom), unresolved threads, then approvals, reviews
// asked for, and how many reviews were read.
func (sum reviewSummary) standing() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d changes requested", sum.ChangesRequested)
	if len(sum.ChangesRequestedBy) > 0 {
		fmt.Fprintf(&b, " (by %s)", strings.Join(text.Names(sum.ChangesRequestedBy), ", "))
	}
	fmt.Fprintf(&b, ", %d unresolved of %s; %d approved", sum.Unresolved, text.Count(sum.Threads, "thread"), sum.Approved)
	if len(sum.Requested) > 0 {
		fmt.Fprintf(&b, ", review asked of %s", strings.Join(text.Names(sum.Requested), ", "))
	}
	fmt.Fprintf(&b, "; %s", text.Count(sum.Reviews, "review"))
	if sum.More {
		fmt.Fprintf(&b, " read, the first %d: the forge has more, which these counts leave out", forge.MaxReviews)
	}
	return b.String()
}
