package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type getPullRequestIn struct {
	Owner  string `json:"owner,omitempty" jsonschema:"repository owner; optional when one repository is served"`
	Repo   string `json:"repo,omitempty" jsonschema:"repository name; optional when one repository is served"`
	Index  int    `json:"index" jsonschema:"pull request number"`
	Cursor string `json:"cursor,omitempty" jsonschema:"leave out for the first part; a partial reply's last line gives the exact call for the next part, this cursor included (also in the result's _meta mcp-repo-tools/next): make it as given, until a reply has none. It says where the description (forge) or the commits (local) go on, at the same head"`
}

// getPullRequestOut is what a reviewer reads first. In forge mode the
// forge's fields; locally what git knows (no title, description, state or
// labels: a local pull request is only its refs), with its commits.
type getPullRequestOut struct {
	Index        int        `json:"index"`
	Title        *string    `json:"title" jsonschema:"the forge's title; null for a local pull request"`
	State        *string    `json:"state" jsonschema:"open, closed or merged; null for a local pull request"`
	Draft        *bool      `json:"draft" jsonschema:"null for a local pull request"`
	Mergeable    *bool      `json:"mergeable" jsonschema:"the forge's verdict (false while it has not checked, and once closed or merged); null for a local pull request"`
	Author       *string    `json:"author" jsonschema:"login of the user who opened it; null for a local pull request"`
	Labels       []string   `json:"labels" jsonschema:"label names; empty for a local pull request"`
	CreatedAt    *string    `json:"createdAt" jsonschema:"as the forge writes it (RFC 3339); null for a local pull request"`
	UpdatedAt    *string    `json:"updatedAt" jsonschema:"as createdAt"`
	URL          *string    `json:"url" jsonschema:"the pull request's web page; null for a local pull request"`
	BaseRef      string     `json:"baseRef" jsonschema:"the base branch; locally the default branch, or refs/pull/N/merge^1 where that merge ref exists"`
	HeadRef      string     `json:"headRef" jsonschema:"the head branch; locally refs/pull/N/head"`
	Base         string     `json:"base" jsonschema:"the base commit"`
	Head         string     `json:"head" jsonschema:"the head commit"`
	MergeBase    string     `json:"mergeBase" jsonschema:"where the pull request's diff starts"`
	ChangedFiles *int       `json:"changedFiles" jsonschema:"files the diff changes; null when the forge does not say"`
	CommitCount  *int       `json:"commitCount" jsonschema:"commits from the merge base to the head; null in forge mode"`
	Body         *string    `json:"body" jsonschema:"this part's share of the forge's description, exactly; null for a local pull request"`
	BodyOffset   int        `json:"bodyOffset" jsonschema:"where body starts in the whole description, in bytes"`
	BodyBytes    int        `json:"bodyBytes" jsonschema:"size of the whole description in bytes"`
	Commits      []prCommit `json:"commits" jsonschema:"locally, this part's commits, oldest first; empty in forge mode"`
	Truncated    bool       `json:"truncated" jsonschema:"true when the description or the commits go on in a next part"`
	// TitleHidden and BodyHidden: the bidi controls and invisible
	// characters of title and body.
	TitleHidden []string     `json:"titleHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters title holds, by code point and name, shown as they are; absent when none"`
	BodyHidden  *hiddenChars `json:"bodyHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters body holds (lines of the whole description), shown as they are; absent when none"`
	paged
}

// prCommit is one commit of a local pull request: the first ones with
// their whole messages, the others as one line (subject and files).
type prCommit struct {
	SHA          string  `json:"sha"`
	Author       string  `json:"author" jsonschema:"the author's name"`
	Date         string  `json:"date" jsonschema:"the author date, RFC 3339"`
	FilesChanged int     `json:"filesChanged" jsonschema:"files it changes against its first parent (all its files for a root commit), renames found as in the diff"`
	Message      *string `json:"message,omitempty" jsonschema:"the whole message: the subject, then the body after a blank line; given for the first commits only (at most 16, as many as fill a quarter of a reply, an eighth with structured output), absent for the others, which have subject (get_commit shows any message)"`
	Subject      *string `json:"subject,omitempty" jsonschema:"the message's first paragraph on one line (past 500 bytes cut, marked), for a commit shown on one line; absent when message is given"`
	// MessageHidden and SubjectHidden: the bidi controls and invisible
	// characters of message or subject.
	MessageHidden *hiddenChars `json:"messageHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters message holds (lines of the message, the subject line 1), shown as they are; absent when none"`
	SubjectHidden []string     `json:"subjectHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters subject holds, by code point and name, shown as they are; absent when none"`
}

// getPullRequestTool is get_pull_request's definition (registry.go).
var getPullRequestTool = defineTool(toolSpec{
	Name:  "get_pull_request",
	Title: "Get pull request",
	Description: "Get a pull request's overview by number: base, head and merge base commits, branches and files changed; from a forge also title, description, author, state, labels, mergeability, dates and URL; for a local pull request (refs/pull/N/head) its commits and their messages, oldest first. " +
		"Call it first in a review, then list_pull_request_files for the files and get_pull_request_diff for the changes; list_commits with index lists the commits, get_commit shows one. " +
		"A description or commit list larger than one reply comes in parts: a partial reply ends with the call for the next part (see cursor).",
	Tune: func(in *jsonschema.Schema) {
		setInt(in, "index", 0, 1, 1<<31-1)
	},
}, (*Server).getPullRequest)

const getPullRequestName = "get_pull_request"

func (s *Server) getPullRequest(ctx context.Context, in getPullRequestIn) (reply[getPullRequestOut], error) {
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return reply[getPullRequestOut]{}, err
	}
	var cur *cursor
	if in.Cursor != "" {
		c, err := s.cursors.decode(getPullRequestName, in.Cursor, argsDigest(in, "cursor"))
		if err != nil {
			return reply[getPullRequestOut]{}, err
		}
		if len(c.Commits) != 3 {
			return reply[getPullRequestOut]{}, errPullPosition()
		}
		cur = &c
	}
	return s.backend.pullRequestDetails(ctx, in, cur)
}

// pullHeader is the first line of list_pull_request_files' and
// get_pull_request's replies: "owner/repo#N: K files changed (base X, merge
// base Y → head Z)"; files < 0 when the count is not known.
func pullHeader(owner, name string, index, files int, base, mergeBase, head string) string {
	n := count(files, "file")
	if files < 0 {
		n = "an unknown number of files"
	}
	return fmt.Sprintf("%s/%s#%d: %s changed (base %s, merge base %s → head %s)", owner, name, index, n, short(base), short(mergeBase), short(head))
}

func errPullPosition() error {
	return errcode.New(errcode.InvalidArgument, "cursor points past the end of the pull request's description or commits: it was damaged or made for other arguments; leave it out to start from the first part")
}

// fitText is the longest prefix of s (at most limit bytes) for which fits
// holds: cut after a line where at least one line fits, else inside the
// first line at a UTF-8 boundary. It is never empty when s is not, so
// every part moves on (the reply's backstop catches a part that still
// does not fit).
func fitText(s string, limit int, fits func(string) bool) string {
	if len(s) <= limit && fits(s) {
		return s
	}
	var ends []int // after each line that could fit by its size
	for i := 0; i < len(s) && i < limit; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 || i+j+1 > limit {
			break
		}
		i += j + 1
		ends = append(ends, i)
	}
	// The longest run of whole lines that fits: ends[lo-1] fits, ends[hi-1] does not.
	lo, hi := 0, len(ends)+1
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(s[:ends[mid-1]]) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo > 0 {
		return s[:ends[lo-1]]
	}
	// Not one whole line: as much of the first as fits.
	first := s
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		first = s[:j+1]
	}
	lo, hi = 0, min(len(first), limit)+1 // a cut at lo bytes fits, at hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if cut, _ := text.CutUTF8(first, mid); fits(cut) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if cut, _ := text.CutUTF8(first, lo); cut != "" {
		return cut
	}
	_, size := utf8.DecodeRuneInString(s)
	return s[:size]
}

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
		return fmt.Sprintf("%s (%s%s):\n", what, count(total, "byte"), end)
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
// ending the line.
func writeShare(b *strings.Builder, share string) {
	b.WriteString(share)
	if share != "" && !strings.HasSuffix(share, "\n") {
		b.WriteString("\n")
	}
}

// pullRequestDetails answers get_pull_request from the forge: its own
// fields, and its description in parts when it is larger than a reply.
// The cursor pins the head: the forge shows the pull request as it is
// now, so a head that moved (or a description edited) between two parts
// is refused rather than mixed.
func (b forgeBackend) pullRequestDetails(ctx context.Context, in getPullRequestIn, cur *cursor) (reply[getPullRequestOut], error) {
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
		if err := cur.madeFor(forgeName(in.Owner, in.Repo)); err != nil {
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
	render := func(share string) reply[getPullRequestOut] {
		return s.forgePullReply(in, d, header, out, from, share)
	}
	rest := d.Body[from:]
	share := fitText(rest, s.cfg.MaxBytes, func(share string) bool { return s.replySize(render(share)) <= s.cfg.MaxBytes })
	return render(share), nil
}

// forgePullReply renders a part: the pull request's fields (the first part
// all of them; later ones the header and title), then its share of the
// description from byte from.
func (s *Server) forgePullReply(in getPullRequestIn, d *forge.PullDetails, header string, out getPullRequestOut, from int, share string) reply[getPullRequestOut] {
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
		fmt.Fprintf(&b, "Base: %s at %s\n", text.Name(d.BaseRef), d.BaseSHA)
		fmt.Fprintf(&b, "Head: %s at %s\n", text.Name(d.HeadRef), d.HeadSHA)
		fmt.Fprintf(&b, "Merge base: %s\n", d.MergeBase)
		labels := "none"
		if len(d.Labels) > 0 {
			labels = strings.Join(text.Names(d.Labels), ", ")
		}
		fmt.Fprintf(&b, "Labels: %s\n", labels)
		fmt.Fprintf(&b, "Created: %s; updated: %s\n", text.Line(d.Created), text.Line(d.Updated))
		fmt.Fprintf(&b, "URL: %s\n", text.Line(d.URL))
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
		b.WriteString(pointsNote("the title", title))
	}
	body := text.ScanText([]byte(share), strings.Count(d.Body[:from], "\n")+1)
	if out.BodyHidden = newHiddenChars(body, text.Hidden{}); body.Found() {
		b.WriteString("[" + hiddenNote("the description", body, text.Hidden{}, false) + "]\n")
	}
	r := reply[getPullRequestOut]{text: b.String(), out: out}
	if end < len(d.Body) {
		r.out.Truncated = true
		next := in
		next.Cursor = s.cursors.encode(cursor{Tool: getPullRequestName, Args: argsDigest(in, "cursor"), Commits: []string{d.BaseSHA, d.MergeBase, d.HeadSHA},
			Line: int64(end), Bytes: int64(len(d.Body))}, forgeName(in.Owner, in.Repo))
		r.next = continueWith(getPullRequestName, next)
	}
	return r
}

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
func (lb localBackend) pullRequestDetails(ctx context.Context, in getPullRequestIn, cur *cursor) (reply[getPullRequestOut], error) {
	var none reply[getPullRequestOut]
	s := lb.s
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index, cur)
	if err != nil {
		return none, err
	}
	files := 0
	if cur != nil {
		files = cur.Files
	} else if files, err = r.Git.EachChange(ctx, opts, func(int, git.Change) error { return nil }); err != nil {
		return none, err
	}
	total, err := r.Git.CountCommits(ctx, pr.MergeBase, pr.Head, nil)
	if err != nil {
		return none, err
	}
	// The base's ref, by repo.PullRequest's rule.
	baseRef, why := fmt.Sprintf("refs/pull/%d/merge^1", in.Index), "the first parent of its merge ref"
	if _, err := r.Git.CommitID(ctx, fmt.Sprintf("refs/pull/%d/merge^1", in.Index)); errors.Is(err, git.ErrMissing) {
		if baseRef, why = r.Git.DefaultBranch(ctx), "the default branch"; baseRef == "" {
			baseRef, why = "HEAD", "HEAD, detached"
		}
	} else if err != nil {
		return none, err
	}
	start, whole := 0, -1 // whole: how many of the first commits have their messages shown; -1 until the first part decides
	if cur != nil {
		start, whole = cur.File, int(cur.Line)
		if start >= total || whole < 0 || whole > total {
			return none, errPullPosition()
		}
	}
	p := localPull{
		in: in, files: files, total: total, start: start, baseRef: baseRef, baseWhy: why,
		seal:   func(c cursor) string { return s.cursors.encode(c, r.FullName()) },
		header: pullHeader(in.Owner, in.Repo, in.Index, files, pr.Base, pr.MergeBase, pr.Head),
		out: getPullRequestOut{
			Index: in.Index, Labels: []string{}, BaseRef: baseRef, HeadRef: fmt.Sprintf("refs/pull/%d/head", in.Index),
			Base: pr.Base, Head: pr.Head, MergeBase: pr.MergeBase, ChangedFiles: ptr(files), CommitCount: ptr(total),
		},
	}
	if total == 0 {
		p.empty = whyEmpty(pr)
		return p.render(nil), nil
	}
	list, err := s.pullCommits(ctx, r.Git, pr, total, start, &whole)
	if err != nil {
		return none, err
	}
	p.whole = whole
	res := fitPage(s, len(list), func(n int) reply[getPullRequestOut] { return p.render(list[:n]) })
	if len(res.out.Commits) == 0 && start < whole {
		// A whole message that does not fit a part (one of control
		// characters, each escaped in six bytes): from it on, one line each.
		p.whole = start
		for i := range list {
			list[i].whole = false
		}
		res = fitPage(s, len(list), func(n int) reply[getPullRequestOut] { return p.render(list[:n]) })
	}
	return res, nil
}

// pullCommits reads the commits a part may show, from commit start on:
// the first *whole of the pull request with their messages, the later ones
// (as many as a reply could hold) with their subjects. In the first part
// (*whole < 0) it decides *whole: the longest run of first commits whose
// messages, as a part shows them, fill at most 1/wholeShare of a reply.
// Each commit's files are counted in the same git log (--name-only), not
// one git process per commit.
func (s *Server) pullCommits(ctx context.Context, g *git.Repo, pr *repo.PullRequest, total, start int, whole *int) ([]pullEntry, error) {
	var list []pullEntry
	if *whole < 0 || start < *whole {
		n := wholeMessagesRead
		if *whole >= 0 {
			n = *whole - start
		}
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
		if *whole < 0 {
			room, used := s.cfg.MaxBytes/wholeShare, 0
			if s.cfg.Structured {
				room /= 2 // the messages are in the structured content too
			}
			for len(list) < len(read) {
				if used += text.JSONLen(wholeCommitText(read[len(list)], start+len(list)+1, total)); used > room {
					break
				}
				list = append(list, pullEntry{c: read[len(list)], whole: true})
			}
			*whole = len(list)
		} else {
			for _, c := range read {
				list = append(list, pullEntry{c: c, whole: true})
			}
		}
	}
	from := start + len(list)
	if from < *whole || from >= total {
		return list, nil // a part of whole messages, or the last commits
	}
	lines, err := g.Log(ctx, git.LogOptions{From: pr.MergeBase, To: pr.Head, Reverse: true, Skip: from,
		Limit: min(total-from, max(1, s.cfg.MaxBytes/oneLineBytes)), WithFileCount: true, MaxParents: 1})
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
	start                    int // the part's first commit
	whole                    int // the first commits shown with their messages
	header, baseRef, baseWhy string
	empty                    string // why there are no commits
	out                      getPullRequestOut
	seal                     func(cursor) string // signs the next part's cursor
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
	fmt.Fprintf(&b, "Author: %s, %s; %s changed\n\n", text.Line(c.Author.Name), commitDate(c.Author.Date), count(c.FilesChanged, "file"))
	subject := true
	for line := range strings.Lines(pullCommitMessage(c)) {
		if subject {
			// Written as every one-line field is; the body as it is.
			body, nl := strings.CutSuffix(line, "\n")
			if line, subject = text.Line(body), false; nl {
				line += "\n"
			}
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
	first := p.start == 0
	if first {
		fmt.Fprintf(&b, "Base: %s at %s (%s)\n", text.Name(p.baseRef), out.Base, p.baseWhy)
		fmt.Fprintf(&b, "Head: %s at %s\n", out.HeadRef, out.Head)
		fmt.Fprintf(&b, "Merge base: %s\n", out.MergeBase)
		b.WriteString("A local pull request is only its refs: no title, description, state or labels. Its commits tell its story.\n")
	}
	switch p.total {
	case 0:
		fmt.Fprintf(&b, "Commits: none: %s.\n", p.empty)
	default:
		fmt.Fprintf(&b, "Commits: %d from the merge base to the head, oldest first", p.total)
		if p.whole < p.total {
			fmt.Fprintf(&b, "; %s, then one line each (author date, author, subject, files changed; get_commit shows one whole)", wholeWords(p.whole))
		}
		if len(list) < p.total {
			b.WriteString("; this part: " + commitRange(p.start, len(list)))
		}
		b.WriteString(":\n")
	}
	var lines []histCommit
	for i, e := range list {
		n := p.start + i + 1
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
			b.WriteString("[" + hiddenNote("the message of "+short(e.c.SHA), hidden, text.Hidden{}, false) + "]\n")
		}
		pc.Message, pc.MessageHidden = ptr(msg), newHiddenChars(hidden, text.Hidden{})
		out.Commits = append(out.Commits, pc)
	}
	b.WriteString(subjectsNote(lines))
	r := reply[getPullRequestOut]{text: b.String(), out: out}
	if next := p.start + len(list); next < p.total {
		r.out.Truncated = true
		n := p.in
		n.Cursor = p.seal(cursor{Tool: getPullRequestName, Args: argsDigest(p.in, "cursor"), Commits: []string{out.Base, out.MergeBase, out.Head},
			File: next, Line: int64(p.whole), Files: p.files})
		r.next = continueWith(getPullRequestName, n)
	}
	return r
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
