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

// prCommit is one commit of a local pull request, with its message or,
// when the message is larger than a reply, this part's share of it.
type prCommit struct {
	SHA           string `json:"sha"`
	Author        string `json:"author" jsonschema:"the author's name"`
	Date          string `json:"date" jsonschema:"the author date, RFC 3339"`
	Message       string `json:"message" jsonschema:"the subject, then the body after a blank line (this part's share of it when partial or messageOffset is not 0)"`
	MessageOffset int    `json:"messageOffset" jsonschema:"where message starts in the whole message, in bytes"`
	Partial       bool   `json:"partial" jsonschema:"the message goes on in the next part"`
	// MessageHidden: the bidi controls and invisible characters of message.
	MessageHidden *hiddenChars `json:"messageHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters message holds (lines of the whole message, the subject line 1), shown as they are; absent when none"`
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

// commitsPerPart bounds the commits one part reads: a summary, and what
// git log may hold at once (commit messages of up to 1 MiB each); when
// even those are too large for it, fewCommits.
const (
	commitsPerPart = 64
	fewCommits     = 4
)

// pullRequestDetails answers get_pull_request from git: the pull
// request's commits (pinned by a cursor), how many files and commits it
// has, and its commits' messages, oldest first, as many as fit; a message
// larger than a reply goes on in the next part.
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
	start, offset := 0, 0
	if cur != nil {
		start, offset = cur.File, int(cur.Line)
		if start >= total {
			return none, errPullPosition()
		}
	}
	var list []git.Commit
	if total > 0 {
		o := git.LogOptions{From: pr.MergeBase, To: pr.Head, Reverse: true, Skip: start, Limit: min(total-start, commitsPerPart), WithBody: true}
		list, err = r.Git.Log(ctx, o)
		if err != nil && o.Limit > fewCommits && ctx.Err() == nil {
			// Messages too large to hold so many at once.
			o.Limit = fewCommits
			list, err = r.Git.Log(ctx, o)
		}
		if err != nil {
			return none, err
		}
		if len(list) == 0 || offset >= len(pullCommitMessage(list[0])) || !utf8.RuneStart(pullCommitMessage(list[0])[offset]) {
			return none, errPullPosition()
		}
	}
	p := localPull{
		in: in, files: files, total: total, start: start, offset: offset, baseRef: baseRef, baseWhy: why,
		seal:   func(c cursor) string { return s.cursors.encode(c, r.FullName()) },
		header: pullHeader(in.Owner, in.Repo, in.Index, files, pr.Base, pr.MergeBase, pr.Head),
		out: getPullRequestOut{
			Index: in.Index, Labels: []string{}, BaseRef: baseRef, HeadRef: fmt.Sprintf("refs/pull/%d/head", in.Index),
			Base: pr.Base, Head: pr.Head, MergeBase: pr.MergeBase, ChangedFiles: ptr(files), CommitCount: ptr(total),
		},
	}
	if total == 0 {
		p.empty = whyEmpty(pr)
	}
	fits := func(r reply[getPullRequestOut]) bool { return s.replySize(r) <= s.cfg.MaxBytes }
	shares := func(n int) []commitShare {
		out := make([]commitShare, n)
		for i := range out {
			out[i] = commitShare{c: list[i], from: 0, msg: pullCommitMessage(list[i])}
		}
		if n > 0 {
			out[0].from, out[0].msg = offset, out[0].msg[offset:]
		}
		return out
	}
	res := fitPage(s, len(list), func(n int) reply[getPullRequestOut] { return p.render(shares(n)) })
	if len(list) > 0 && len(res.out.Commits) == 0 {
		// Not one whole message fits: as much of the first as does.
		first := shares(1)[0]
		cut := fitText(first.msg, s.cfg.MaxBytes, func(m string) bool {
			return fits(p.render([]commitShare{{c: first.c, from: offset, msg: m, partial: len(m) < len(first.msg)}}))
		})
		res = p.render([]commitShare{{c: first.c, from: offset, msg: cut, partial: len(cut) < len(first.msg)}})
	}
	return res, nil
}

// localPull is what every rendering of a local pull request's part shares.
type localPull struct {
	in                       getPullRequestIn
	files, total             int
	start, offset            int // the part's first commit and where its message starts
	header, baseRef, baseWhy string
	empty                    string // why there are no commits
	out                      getPullRequestOut
	seal                     func(cursor) string // signs the next part's cursor
}

// commitShare is a commit of a part and the share of its message shown:
// msg, from byte from, followed by more when partial.
type commitShare struct {
	c       git.Commit
	from    int
	msg     string
	partial bool
}

// pullCommitMessage is a commit's message as a part shows it: its subject
// line, then its body after a blank line.
func pullCommitMessage(c git.Commit) string {
	if c.Body == "" {
		return c.Subject + "\n"
	}
	return c.Subject + "\n\n" + c.Body
}

// render is the part holding shares, the commits from p.start on.
func (p localPull) render(shares []commitShare) reply[getPullRequestOut] {
	var b strings.Builder
	out := p.out
	out.Commits = make([]prCommit, 0, len(shares))
	b.WriteString(p.header + "\n")
	first := p.start == 0 && p.offset == 0
	if first {
		fmt.Fprintf(&b, "Base: %s at %s (%s)\n", text.Name(p.baseRef), out.Base, p.baseWhy)
		fmt.Fprintf(&b, "Head: %s at %s\n", out.HeadRef, out.Head)
		fmt.Fprintf(&b, "Merge base: %s\n", out.MergeBase)
		b.WriteString("A local pull request is only its refs: no title, description, state or labels. Its commits tell its story.\n")
	}
	switch {
	case p.total == 0:
		fmt.Fprintf(&b, "Commits: none: %s.\n", p.empty)
	case len(shares) == p.total && first:
		fmt.Fprintf(&b, "Commits: %d from the merge base to the head, oldest first:\n", p.total)
	case len(shares) == 0:
		fmt.Fprintf(&b, "Commits: %d from the merge base to the head, oldest first; this part: none, the next part goes on from commit %d\n", p.total, p.start+1)
	default:
		fmt.Fprintf(&b, "Commits: %d from the merge base to the head, oldest first; this part: %s\n", p.total, commitRange(p.start, len(shares)))
	}
	for i, sh := range shares {
		b.WriteString("\n")
		n := p.start + i + 1
		if sh.from > 0 {
			fmt.Fprintf(&b, "commit %s (%d of %d), its message from byte %d:\n", sh.c.SHA, n, p.total, sh.from)
		} else {
			fmt.Fprintf(&b, "commit %s (%d of %d)\n", sh.c.SHA, n, p.total)
			fmt.Fprintf(&b, "Author: %s, %s\n\n", text.Line(sh.c.Author.Name), commitDate(sh.c.Author.Date))
		}
		subject := sh.from == 0
		for line := range strings.Lines(sh.msg) {
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
		if !strings.HasSuffix(sh.msg, "\n") {
			b.WriteString("\n")
		}
		full := pullCommitMessage(sh.c)
		hidden := text.ScanText([]byte(sh.msg), strings.Count(full[:sh.from], "\n")+1)
		if hidden.Found() {
			b.WriteString("[" + hiddenNote("the message of "+short(sh.c.SHA), hidden, text.Hidden{}, false) + "]\n")
		}
		if sh.partial {
			fmt.Fprintf(&b, "[the message goes on in the next part, from byte %d of %d]\n", sh.from+len(sh.msg), len(full))
		}
		out.Commits = append(out.Commits, prCommit{SHA: sh.c.SHA, Author: sh.c.Author.Name, Date: commitDate(sh.c.Author.Date),
			Message: sh.msg, MessageOffset: sh.from, Partial: sh.partial, MessageHidden: newHiddenChars(hidden, text.Hidden{})})
	}
	// Where the next part starts: the same commit's message further on, or
	// the commit after the last one shown.
	next, line := p.start+len(shares), 0
	if len(shares) > 0 && shares[len(shares)-1].partial {
		last := shares[len(shares)-1]
		next, line = p.start+len(shares)-1, last.from+len(last.msg)
	} else if len(shares) == 0 {
		line = p.offset
	}
	r := reply[getPullRequestOut]{text: b.String(), out: out}
	if next < p.total {
		r.out.Truncated = true
		n := p.in
		n.Cursor = p.seal(cursor{Tool: getPullRequestName, Args: argsDigest(p.in, "cursor"), Commits: []string{out.Base, out.MergeBase, out.Head},
			File: next, Line: int64(line), Files: p.files})
		r.next = continueWith(getPullRequestName, n)
	}
	return r
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
