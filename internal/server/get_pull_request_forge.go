package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"
)

// get_pull_request in forge mode: the forge's fields, and its description
// in parts when it is longer than a reply.

// describeSlice is the line that introduces a part's share of a text of
// total bytes: n bytes from byte from; noNewline when the share holds the
// text's end and the text does not end with a newline (the reply's text
// ends the line anyway).
func describeSlice(what string, from, n, total int, noNewline bool) string {
	end := ""
	if noNewline {
		end = ", no newline at its end"
	}
	if from == 0 && n == total {
		return fmt.Sprintf("%s (%s%s):\n", what, text.Count(total, "byte"), end)
	}
	var where []string
	if from > 0 {
		where = append(where, "goes on from the previous part")
	}
	if from+n < total {
		where = append(where, fmt.Sprintf("the next part goes on from byte %d", from+n))
	}
	return fmt.Sprintf("%s, bytes %d to %d of %d%s (%s):\n", what, from, from+n, total, end, strings.Join(where, "; "))
}

// writeShare writes a share of a text that may not end with a newline,
// ending the line; framed with the headers the reply writes.
func writeShare(b *strings.Builder, share string) {
	b.WriteString(text.WithHeaders.Frame(share))
	if share != "" && !strings.HasSuffix(share, "\n") {
		b.WriteString("\n")
	}
}

// pullRequestDetails answers get_pull_request from the forge: its own
// fields, and its description in parts when it is larger than a reply.
// The cursor pins the head: the forge shows the pull request as it is
// now, so a head that moved (or a description edited) between two parts
// is refused rather than mixed.
func (b forgeBackend) pullRequestDetails(ctx context.Context, in getPullRequestIn, cur *paging.Cursor) (reply[getPullRequestOut], error) {
	var none reply[getPullRequestOut]
	if err := forgeRepo(in.Owner, in.Repo); err != nil {
		return none, err
	}
	s, f := b.s, b.f
	d, err := f.PullDetails(ctx, in.Owner, in.Repo, in.Index)
	if err != nil {
		return none, pullNotFound(err, in.Owner, in.Repo, in.Index)
	}
	from := 0
	if cur != nil {
		if err := cur.MadeFor(forgeName(in.Owner, in.Repo)); err != nil {
			return none, err
		}
		if cur.Commits[2] != d.HeadSHA {
			return none, headMoved(in.Index, cur.Commits[2], d.HeadSHA)
		}
		if cur.Bytes != int64(len(d.Body)) {
			return none, errcode.New(errcode.InvalidArgument, "pull request #%d's description changed since the first part (%d bytes then, %d now); leave cursor out to start again", in.Index, cur.Bytes, len(d.Body))
		}
		if cur.Line <= 0 || cur.Line >= int64(len(d.Body)) || !utf8.RuneStart(d.Body[cur.Line]) {
			return none, errPullPosition()
		}
		from = int(cur.Line)
	}
	files := d.ChangedFiles
	if files < 0 { // an older forge: its file listing counts them
		if _, total, err := f.PullFiles(ctx, in.Owner, in.Repo, in.Index, 1, 1); err == nil {
			files = total
		} else {
			return none, pullNotFound(err, in.Owner, in.Repo, in.Index)
		}
	}
	out := getPullRequestOut{
		Index: in.Index, Title: ptr(d.Title), State: ptr(d.State), Draft: ptr(d.Draft), Mergeable: ptr(d.Mergeable),
		Author: ptr(d.Author), Labels: d.Labels, CreatedAt: ptr(d.Created), UpdatedAt: ptr(d.Updated), URL: ptr(d.URL),
		BaseRef: d.BaseRef, HeadRef: d.HeadRef, Base: d.BaseSHA, Head: d.HeadSHA, MergeBase: d.MergeBase,
		BodyOffset: from, BodyBytes: len(d.Body), Commits: []prCommit{},
	}
	if files >= 0 {
		out.ChangedFiles = ptr(files)
	}
	header := pullHeader(in.Owner, in.Repo, in.Index, files, d.BaseSHA, d.MergeBase, d.HeadSHA)
	var standing string // the review's and the checks' lines, in the first part
	if from == 0 {
		standing = s.reviewStanding(ctx, in, d.HeadSHA, &out)
		// What reading the whole diff costs, counted as locally; the
		// forge does not say the patch's size, so no estimate stands in
		// for a count not made.
		if parts := s.wholeDiffParts(ctx, in.Owner, in.Repo, in.Index, []string{d.BaseSHA, d.MergeBase, d.HeadSHA}, files, 0, 0); parts != "" {
			header += "; " + parts
		}
	}
	render := func(share string) reply[getPullRequestOut] {
		return s.forgePullReply(in, d, header, standing, out, from, share)
	}
	rest := d.Body[from:]
	share := paging.FitText(rest, s.budget(ctx).Cost().Span(s.budget(ctx).MaxBytes), func(share string) bool { return s.budget(ctx).ReplySize(render(share)) <= s.budget(ctx).MaxBytes })
	return render(share), nil
}

// forgePullReply renders a part: the pull request's fields (the first part
// all of them; later ones the header and title), then its share of the
// description from byte from.
func (s *Server) forgePullReply(in getPullRequestIn, d *forge.PullDetails, header, standing string, out getPullRequestOut, from int, share string) reply[getPullRequestOut] {
	var b strings.Builder
	b.WriteString(header + "\n")
	fmt.Fprintf(&b, "Title: %s\n", text.Line(d.Title))
	if from == 0 {
		state := d.State
		if d.Draft {
			state += " (draft)"
		}
		if d.State == "open" {
			if d.Mergeable {
				state += ", mergeable"
			} else {
				state += ", not mergeable (conflicts, or not checked yet)"
			}
		}
		fmt.Fprintf(&b, "State: %s\n", text.Line(state))
		fmt.Fprintf(&b, "Author: %s\n", text.Name(d.Author))
		fmt.Fprintf(&b, "Base: %s at %s\n", text.Name(d.BaseRef), commitOrUnknown(d.BaseSHA))
		fmt.Fprintf(&b, "Head: %s at %s\n", text.Name(d.HeadRef), commitOrUnknown(d.HeadSHA))
		fmt.Fprintf(&b, "Merge base: %s\n", commitOrUnknown(d.MergeBase))
		labels := "none"
		if len(d.Labels) > 0 {
			labels = strings.Join(text.Names(d.Labels), ", ")
		}
		fmt.Fprintf(&b, "Labels: %s\n", labels)
		fmt.Fprintf(&b, "Created: %s; updated: %s\n", text.Line(d.Created), text.Line(d.Updated))
		fmt.Fprintf(&b, "URL: %s\n", text.Line(d.URL))
		b.WriteString(standing)
	}
	end := from + len(share)
	if d.Body == "" {
		b.WriteString("Description: none\n")
	} else {
		b.WriteString(describeSlice("Description", from, len(share), len(d.Body), end == len(d.Body) && !strings.HasSuffix(d.Body, "\n")))
		writeShare(&b, share)
	}
	out.Body = ptr(share)
	if title := text.ScanText([]byte(d.Title), 2); title.Found() {
		out.TitleHidden = title.PointNames()
		b.WriteString(text.PointsNote("the title", title))
	}
	body := text.ScanShare(d.Body, from, from+len(share))
	if out.BodyHidden = text.NewHiddenChars(body, text.Hidden{}); body.Found() {
		b.WriteString("[" + text.HiddenNote("the description", body, text.Hidden{}, false) + "]\n")
	}
	b.WriteString(framedNote("the description", text.WithHeaders.Frame(share), lineAt(d.Body, from)))
	r := reply[getPullRequestOut]{Text: b.String(), Out: out}
	if end < len(d.Body) {
		r.Out.Truncated = true
		next := in
		next.Cursor = s.cursors.Encode(paging.Cursor{Tool: getPullRequestName, Args: paging.ArgsDigest(in, "cursor"), Commits: []string{d.BaseSHA, d.MergeBase, d.HeadSHA},
			Line: int64(end), Bytes: int64(len(d.Body))}, forgeName(in.Owner, in.Repo))
		r.Next = paging.Continue(getPullRequestName, next)
	}
	return r
}

// reviewStanding is where the review and the checks stand, a line each
// with the call that shows them, and the same in out. A forge that will
// not say (a token without the scope) leaves a line that says so: the
// rest of the pull request is still worth reading.
func (s *Server) reviewStanding(ctx context.Context, in getPullRequestIn, head string, out *getPullRequestOut) string {
	var b strings.Builder
	reviewsCall := paging.Continue("list_pull_request_reviews", listPullRequestReviewsIn{Owner: in.Owner, Repo: in.Repo, Index: in.Index, Unresolved: true})
	newestCall := paging.Continue("list_pull_request_reviews", listPullRequestReviewsIn{Owner: in.Owner, Repo: in.Repo, Index: in.Index, Order: histNewest})
	if all, comments, more, err := s.readReviews(ctx, in.Owner, in.Repo, in.Index, reviewsRead{}); err != nil {
		fmt.Fprintf(&b, "Reviews: not known (%s); list_pull_request_reviews %s may read them\n", toolcall.OneLine(errcode.Message(err)), paging.PlainJSON(newestCall.Arguments))
	} else {
		sum := summarize(all, threadsOf(comments, listPullRequestReviewsIn{}, s.bodyRoom(ctx)), more)
		out.Reviews = &sum
		fmt.Fprintf(&b, "Reviews: %s. Unresolved threads: list_pull_request_reviews %s; the latest first: list_pull_request_reviews %s\n",
			sum.standing(), paging.PlainJSON(reviewsCall.Arguments), paging.PlainJSON(newestCall.Arguments))
	}
	checksCall := paging.Continue("get_commit_status", getCommitStatusIn{Owner: in.Owner, Repo: in.Repo, Ref: head})
	if cs, err := s.cfg.Forge.CombinedStatus(ctx, in.Owner, in.Repo, head); err != nil {
		fmt.Fprintf(&b, "Checks: not known (%s)\n", toolcall.OneLine(errcode.Message(err)))
	} else {
		sum := checksSummary{State: cs.State, Total: len(cs.Statuses)}
		sum.Failing, _ = cs.Count()
		out.Checks = &sum
		if sum.Total == 0 {
			b.WriteString("Checks: none set a status on the head\n")
		} else {
			of := strconv.Itoa(sum.Total)
			if cs.More {
				of = fmt.Sprintf("the first %d read (the forge has more)", sum.Total)
			}
			fmt.Fprintf(&b, "Checks: %s, %d failing of %s: get_commit_status %s\n", sum.State, sum.Failing, of, paging.PlainJSON(checksCall.Arguments))
		}
	}
	return b.String()
}

// commitOrUnknown is a commit id the forge gave, or what stands for one it
// did not give (forge.PullDetails keeps only object ids).
func commitOrUnknown(id string) string {
	if id == "" {
		return "not known (the forge gave no commit id)"
	}
	return id
}
