package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// get_pull_request locally: what git knows of a pull request, and its commits:
// the first few with their whole messages, the others one line each.

// wholeMessagesRead is the most first commits a part shows with their
// whole messages: a few, to tell the pull request's story before its list
// (and what git log may hold at once: messages of up to 1 MiB each); when
// even those are too large for it, fewCommits.
const (
	wholeMessagesRead = 16
	fewCommits        = 4
)

// wholeShare is the share of a reply (1/wholeShare) that the first commits'
// messages may fill, shown whole; every later commit is one line (its
// subject and files changed), so that a pull request of hundreds of commits
// costs a call or two, not one per few dozen messages.
const wholeShare = 4

// oneLineBytes is about the fewest bytes a commit's line takes: a part
// reads at most a reply's worth of them.
const oneLineBytes = 40

// pullRequestDetails answers get_pull_request from git: the pull
// request's commits (pinned by a cursor), how many files and commits it
// has, the first commits' messages whole (as many as fill a share of the
// reply) and every other commit on one line, oldest first, as many as fit;
// the next part goes on with the lines.
// pullCountWait bounds what counting the patch may add to a local pull
// request's overview (the count stops at half of it): a 2.5 MB patch
// counts in about a tenth of a second.
const pullCountWait = 2 * time.Second

func (lb localBackend) pullRequestDetails(ctx context.Context, in getPullRequestIn, cur *paging.Cursor) (reply[getPullRequestOut], error) {
	var none reply[getPullRequestOut]
	s := lb.s
	if cur != nil {
		// Earlier servers paged the commits; the overview is one reply.
		return none, errcode.New(errcode.InvalidArgument, "a local pull request's overview comes in one reply and takes no cursor: leave it out; list_commits with index=%d lists all its commits", in.Index)
	}
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index, nil)
	if err != nil {
		return none, err
	}
	// The patch's size, counted beside the commits as
	// get_pull_request_diff counts it, says what reading the whole
	// diff costs; no size rather than a late one, for an overview:
	// the count gives up within half of pullCountWait.
	countCtx, cancel := context.WithTimeout(ctx, pullCountWait)
	defer cancel()
	counted, stop := s.diffs.StartCount(countCtx, paging.Request{Repo: r, Opts: opts, Hide: s.hiddenSection})
	defer stop()
	files, err := r.Git.EachChange(ctx, opts, func(int, git.Change) error { return nil })
	if err != nil {
		return none, err
	}
	total, err := r.Git.CountCommits(ctx, pr.MergeBase, pr.Head, nil)
	if err != nil {
		return none, err
	}
	// The base's ref, by repo.PullRequest's rule.
	baseRef, why := fmt.Sprintf("refs/pull/%d/merge^1", in.Index), "the first parent of its merge ref"
	if _, err := r.PullMergeBase(ctx, in.Index); errors.Is(err, git.ErrMissing) {
		if baseRef, why = r.Git.DefaultBranch(ctx), fmt.Sprintf("the checked-out branch: refs/pull/%d/merge is not fetched", in.Index); baseRef == "" {
			baseRef, why = "HEAD", "HEAD, detached"
		}
	} else if err != nil {
		return none, err
	}
	if pr.HeadRef == "" { // a later part: the cursor pinned the commits, not the ref
		pr.HeadRef = r.PullHeadRef(ctx, in.Index)
	}
	whole := -1 // how many of the first commits have their messages shown; pullCommits decides
	p := localPull{
		in: in, files: files, total: total, baseRef: baseRef, baseWhy: why,
		header: pullHeader(in.Owner, in.Repo, in.Index, files, pr.Base, pr.MergeBase, pr.Head),
		out: getPullRequestOut{
			Index: in.Index, Labels: []string{}, BaseRef: baseRef, HeadRef: pr.HeadRef,
			Base: pr.Base, Head: pr.Head, MergeBase: pr.MergeBase, ChangedFiles: ptr(files), CommitCount: ptr(total),
		},
	}
	if total == 0 {
		p.empty = whyEmpty(pr) + checkedOutBase(ctx, r, pr)
		return p.render(nil), nil
	}
	list, err := s.pullCommits(ctx, r.Git, pr, total, &whole)
	if err != nil {
		return none, err
	}
	p.whole = whole
	if t := counted(); t != nil {
		p.header = pullHeaderBytes(in.Owner, in.Repo, in.Index, files, &t.Bytes, pr.Base, pr.MergeBase, pr.Head) + "; " + s.wholeDiffParts(ctx, in.Owner, in.Repo, in.Index, []string{pr.Base, pr.MergeBase, pr.Head}, files, t.Bytes, t.Escaped)
	}
	res := paging.FitList(s.budget(ctx), len(list), func(n int) reply[getPullRequestOut] { return p.render(list[:n]) })
	if len(res.Out.Commits) == 0 && whole > 0 {
		// A whole message that does not fit a reply (one of control
		// characters, each escaped in six bytes): one line each.
		p.whole = 0
		for i := range list {
			list[i].whole = false
		}
		res = paging.FitList(s.budget(ctx), len(list), func(n int) reply[getPullRequestOut] { return p.render(list[:n]) })
	}
	return res, nil
}

// overviewLines is the most commits the overview lists one line each,
// after those it shows whole: the rest are list_commits', which pages
// them, so that a pull request of hundreds of commits is one reply.
const overviewLines = 20

// pullCommits reads the commits a part may show, from commit start on:
// the first *whole of the pull request with their messages, the later ones
// (as many as a reply could hold) with their subjects. In the first part
// (*whole < 0) it decides *whole: the longest run of first commits whose
// messages, as a part shows them, fill at most 1/wholeShare of a reply.
// Each commit's files are counted in the same git log (--name-only), not
// one git process per commit.
func (s *Server) pullCommits(ctx context.Context, g *git.Repo, pr *repo.PullRequest, total int, whole *int) ([]pullEntry, error) {
	var list []pullEntry
	const start = 0
	n := wholeMessagesRead
	o := git.LogOptions{From: pr.MergeBase, To: pr.Head, Reverse: true, Skip: start, Limit: min(total-start, n), WithBody: true, WithFileCount: true}
	read, err := g.Log(ctx, o)
	if err != nil && o.Limit > fewCommits && ctx.Err() == nil {
		// Messages too large to hold so many at once.
		o.Limit = fewCommits
		read, err = g.Log(ctx, o)
	}
	if err != nil {
		return nil, err
	}
	room, used := s.budget(ctx).MaxBytes/wholeShare, 0
	if s.cfg.Structured {
		room /= 2 // the messages are in the structured content too
	}
	for len(list) < len(read) {
		if used += s.budget(ctx).Len(wholeCommitText(read[len(list)], start+len(list)+1, total)); used > room {
			break
		}
		list = append(list, pullEntry{c: read[len(list)], whole: true})
	}
	*whole = len(list)
	from := start + len(list)
	if from >= total {
		return list, nil
	}
	lines, err := g.Log(ctx, git.LogOptions{From: pr.MergeBase, To: pr.Head, Reverse: true, Skip: from,
		Limit: min(total-from, overviewLines, max(1, s.budget(ctx).MaxBytes/oneLineBytes)), WithFileCount: true, MaxParents: 1})
	if err != nil {
		return nil, err
	}
	for _, c := range lines {
		list = append(list, pullEntry{c: c})
	}
	return list, nil
}

// localPull is what every rendering of a local pull request's part shares.
type localPull struct {
	in                       getPullRequestIn
	files, total             int
	whole                    int // the first commits shown with their messages
	header, baseRef, baseWhy string
	empty                    string // why there are no commits
	out                      getPullRequestOut
}

// pullEntry is a commit of a part: with its whole message, or one line.
type pullEntry struct {
	c     git.Commit
	whole bool
}

// pullCommitMessage is a commit's message as a part shows it: its subject
// line, then its body after a blank line.
func pullCommitMessage(c git.Commit) string {
	if c.Body == "" {
		return c.Subject + "\n"
	}
	return c.Subject + "\n\n" + c.Body
}

// wholeCommitText is commit n of total with its whole message, as a part
// shows it: a heading, the author and date, the message indented.
func wholeCommitText(c git.Commit, n, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ncommit %s (%d of %d)\n", c.SHA, n, total)
	fmt.Fprintf(&b, "Author: %s, %s; %s changed\n\n", text.Line(c.Author.Name), commitDate(c.Author.Date), text.Count(c.FilesChanged, "file"))
	subject := true
	for line := range strings.Lines(pullCommitMessage(c)) {
		if subject {
			// Written as every one-line field is; the body as it is, but
			// for a line that reads as ours, headers included (text.WithHeaders).
			body, nl := strings.CutSuffix(line, "\n")
			if line, subject = text.LineFramed(body), false; nl {
				line += "\n"
			}
		} else {
			line = text.WithHeaders.Frame(line)
		}
		if line != "\n" {
			b.WriteString("    ")
		}
		b.WriteString(line)
	}
	if !strings.HasSuffix(c.Body, "\n") && c.Body != "" {
		b.WriteString("\n") // a message that does not end its line
	}
	return b.String()
}

// oneLineCommit is a commit shown on one line, as list_commits lists it
// but with the author's date, which get_pull_request gives every commit.
func oneLineCommit(c git.Commit) histCommit {
	e := newHistCommit(c)
	e.Date = commitDate(c.Author.Date)
	return e
}

// render is the part holding list, the commits from p.start on.
func (p localPull) render(list []pullEntry) reply[getPullRequestOut] {
	var b strings.Builder
	out := p.out
	out.Commits = make([]prCommit, 0, len(list))
	b.WriteString(p.header + "\n")
	fmt.Fprintf(&b, "Base: %s at %s (%s)\n", text.Name(p.baseRef), out.Base, p.baseWhy)
	fmt.Fprintf(&b, "Head: %s at %s\n", out.HeadRef, out.Head)
	fmt.Fprintf(&b, "Merge base: %s\n", out.MergeBase)
	b.WriteString("A local pull request is only its refs: no title, description, state or labels. Its commits tell its story.\n")
	switch p.total {
	case 0:
		fmt.Fprintf(&b, "Commits: none: %s.\n", p.empty)
	default:
		fmt.Fprintf(&b, "Commits: %d from the merge base to the head, oldest first", p.total)
		if p.whole < p.total {
			fmt.Fprintf(&b, "; %s, then one line each (author date, author, subject, files changed; get_commit shows one whole)", wholeWords(p.whole))
		}
		if len(list) < p.total {
			b.WriteString("; shown: " + commitRange(0, len(list)))
		}
		b.WriteString(":\n")
	}
	var lines []histCommit
	for i, e := range list {
		n := i + 1
		pc := prCommit{SHA: e.c.SHA, Author: e.c.Author.Name, Date: commitDate(e.c.Author.Date), FilesChanged: e.c.FilesChanged}
		if !e.whole {
			if len(lines) == 0 {
				b.WriteString("\n")
			}
			h := oneLineCommit(e.c)
			lines = append(lines, h)
			b.WriteString(h.line())
			pc.Subject, pc.SubjectHidden = ptr(h.Subject), h.SubjectHidden
			out.Commits = append(out.Commits, pc)
			continue
		}
		b.WriteString(wholeCommitText(e.c, n, p.total))
		msg := pullCommitMessage(e.c)
		hidden := text.ScanText([]byte(msg), 1)
		if hidden.Found() {
			b.WriteString("[" + text.HiddenNote("the message of "+git.Short(e.c.SHA), hidden, text.Hidden{}, false) + "]\n")
		}
		b.WriteString(framedNote("the message of "+git.Short(e.c.SHA), histIndent(strings.TrimSuffix(msg, "\n")), 1))
		pc.Message, pc.MessageHidden = ptr(msg), text.NewHiddenChars(hidden, text.Hidden{})
		out.Commits = append(out.Commits, pc)
	}
	if rest := p.total - len(list); rest > 0 {
		more := listCommitsIn{Owner: p.in.Owner, Repo: p.in.Repo, Index: p.in.Index, Order: histOldest, Offset: len(list)}
		fmt.Fprintf(&b, "\n%s: list_commits with %s lists them, oldest first.\n", text.Count(rest, "more commit"), paging.PlainJSON(paging.Continue("list_commits", more).Arguments))
	}
	b.WriteString(subjectsNote(lines))
	out.Truncated = len(list) < p.total
	return reply[getPullRequestOut]{Text: b.String(), Out: out}
}

// wholeWords says how many first commits a part shows whole.
func wholeWords(n int) string {
	switch n {
	case 0:
		return "none with its message (too large for a share of a reply)"
	case 1:
		return "the first with its message"
	}
	return fmt.Sprintf("the first %d with their messages", n)
}

// commitRange says which commits a part holds: "commits 3–5", "commit 3".
func commitRange(from, n int) string {
	if n == 1 {
		return fmt.Sprintf("commit %d", from+1)
	}
	return fmt.Sprintf("commits %d–%d", from+1, from+n)
}

// commitDate is a commit's date in RFC 3339, in its own time zone ("" when
// git could not read it).
func commitDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}
