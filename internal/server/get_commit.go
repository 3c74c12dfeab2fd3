package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type getCommitIn struct {
	Owner    string `json:"owner,omitempty" jsonschema:"repository owner; optional when one repository is served"`
	Repo     string `json:"repo,omitempty" jsonschema:"repository name; optional when one repository is served"`
	Ref      string `json:"ref" jsonschema:"the commit: a SHA, a branch or a tag"`
	MaxBytes int    `json:"maxBytes,omitempty" jsonschema:"most patch bytes in one part; can't exceed what the server's reply limit leaves (larger values are clamped)"`
	// ContextLines is always sent, 0 too: a next call that left 0 out
	// would get the default and no longer match its cursor.
	ContextLines int    `json:"contextLines" jsonschema:"lines of context around each change of the patch"`
	Cursor       string `json:"cursor,omitempty" jsonschema:"from the next call of a partial reply: where the next part of the patch starts, at the same commit; leave out for the first part"`
}

type getCommitOut struct {
	SHA       string     `json:"sha"`
	Parents   []string   `json:"parents" jsonschema:"parent commits, the first parent first: none for a root commit, two or more for a merge"`
	Author    histPerson `json:"author"`
	Committer histPerson `json:"committer"`
	IsMerge   bool       `json:"isMerge"`
	DiffBase  string     `json:"diffBase" jsonschema:"what the files and the patch are against: the first parent, or for a root commit the empty tree"`
	Message   *string    `json:"message" jsonschema:"the message (its subject, the first paragraph on one line, then its body) in the first part, cut when longer than a third of a reply; null in later parts"`
	// MessageBytesLeftOut: how much of the message a cut left out.
	MessageBytesLeftOut int           `json:"messageBytesLeftOut" jsonschema:"bytes at the end of the message a cut left out (0: message is whole, or a later part)"`
	ChangedFiles        []changedFile `json:"changedFiles" jsonschema:"in the first part, the first files the commit changes with their line counts (all of them when totalFiles is as many); empty in later parts"`
	TotalFiles          int           `json:"totalFiles" jsonschema:"files the commit changes against diffBase"`
	Files               []diffFile    `json:"files" jsonschema:"the files this part's patch holds, in git's order"`
	Truncated           bool          `json:"truncated" jsonschema:"true when the patch goes on in a next part"`
	paged
}

// getCommitTool is get_commit's definition (registry.go).
var getCommitTool = defineTool(toolSpec{
	Name:  "get_commit",
	Title: "Get commit",
	Description: "Get one commit: its message, author, committer, parents, the files it changes and its patch against its first parent (a merge is diffed against its first parent; a root commit against the empty tree), as git diff prints it. " +
		"The first part holds the message (cut, and said so, when longer than a third of a reply) and the first files; a patch larger than one reply comes in parts, as get_diff's: " +
		"a partial reply ends with the exact call that returns the next part (same commit), also in _meta \"" + MetaKeyNext + "\". list_commits finds commits, with index those of a pull request.",
	Tune: func(in *jsonschema.Schema) {
		setInt(in, "maxBytes", 0, 0, 1<<31-1)
		setInt(in, "contextLines", 3, 0, 10000)
		in.Required = slices.DeleteFunc(in.Required, func(p string) bool { return p == "contextLines" })
	},
}, (*Server).getCommit)

// histMaxFiles is the most files the first part of get_commit lists (as
// many as fit a quarter of the reply).
const histMaxFiles = 50

// histEmptyTree is the id of the empty tree in a repository whose commits have
// ids like commit: what a root commit is diffed against. git knows it
// whether or not the repository stores it.
func histEmptyTree(commit string) string {
	if len(commit) == 64 {
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
}

func (s *Server) getCommit(ctx context.Context, in getCommitIn) (reply[getCommitOut], error) {
	const tool = "get_commit"
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return reply[getCommitOut]{}, err
	}
	digest := argsDigest(in, "cursor")
	first := in.Cursor == ""
	var start partPos
	var sha string
	if first {
		if in.Ref == "" {
			return reply[getCommitOut]{}, errcode.New(errcode.InvalidArgument, "ref is required: a commit SHA, a branch or a tag")
		}
		if err := histOneCommit("ref", in.Ref); err != nil {
			return reply[getCommitOut]{}, err
		}
		if sha, err = r.ResolveCommit(ctx, in.Ref); err != nil {
			return reply[getCommitOut]{}, err
		}
	} else {
		cur, err := s.cursors.decode(tool, in.Cursor, digest)
		if err != nil {
			return reply[getCommitOut]{}, err
		}
		pins, err := checkPins(ctx, r, &cur, 1)
		if err != nil {
			return reply[getCommitOut]{}, err
		}
		sha, start = pins[0], partPos{change: cur.File, section: cur.Section, line: cur.Line}
	}
	commits, err := r.Git.Log(ctx, git.LogOptions{To: sha, Limit: 1, WithBody: first})
	if err != nil {
		return reply[getCommitOut]{}, err
	}
	if len(commits) != 1 || commits[0].SHA != sha {
		return reply[getCommitOut]{}, fmt.Errorf("git log did not list commit %s", sha)
	}
	c := commits[0]
	diffBase, against := histEmptyTree(sha), "the empty tree"
	switch {
	case len(c.Parents) > 1:
		diffBase, against = c.Parents[0], "its first parent "+short(c.Parents[0])
	case len(c.Parents) == 1:
		diffBase, against = c.Parents[0], "its parent "+short(c.Parents[0])
	}
	opts := git.DiffOptions{From: diffBase, To: sha, Context: in.ContextLines}
	out := getCommitOut{
		SHA: sha, Parents: c.Parents, Author: newHistPerson(c.Author), Committer: newHistPerson(c.Committer),
		IsMerge: len(c.Parents) > 1, DiffBase: diffBase, ChangedFiles: []changedFile{}, Files: []diffFile{},
	}
	if out.Parents == nil {
		out.Parents = []string{}
	}
	nextProbe := continueWith(tool, getCommitWithCursor(in, strings.Repeat("x", 400)))
	// roomAfter is what a part that starts with preamble leaves for its
	// patch and notes.
	roomAfter := func(preamble string, out getCommitOut) int {
		probe := reply[getCommitOut]{text: preamble + strings.Repeat("x", 300+len(r.FullName())), out: out, next: nextProbe}
		return s.payloadRoom(probe)
	}
	laterRoom := roomAfter("", out) // the room of every part but the first
	var preamble string
	if first {
		page, total, err := r.Git.ChangedFilesPage(ctx, opts, 0, histMaxFiles)
		if err != nil {
			return reply[getCommitOut]{}, err
		}
		// The message may take a third of what a reply leaves beside the
		// rest of this part's preamble, the file list a quarter; the patch
		// has the rest.
		out.Message = new(string)
		bare := histPreamble(r.FullName(), c, out, against, total)
		avail := s.payloadRoom(reply[getCommitOut]{text: bare + strings.Repeat("x", 300+len(r.FullName())), out: out, next: nextProbe})
		shown, left := histCutMessage(histMessage(c), avail/3)
		out.Message, out.MessageBytesLeftOut = &shown, left
		files := make([]changedFile, len(page))
		for i, ch := range page {
			files[i] = s.changedFile(ch)
		}
		s.markGenerated(ctx, r, sha, files)
		used := 0
		for _, f := range files {
			if used += text.JSONLen(f.line()) + lineSlack; used > avail/4 {
				break
			}
			out.ChangedFiles = append(out.ChangedFiles, f)
		}
		preamble = histPreamble(r.FullName(), c, out, against, total)
	}
	room := roomAfter(preamble, out)
	read := func(room int) (*diffPart, error) {
		return s.readPart(ctx, partRequest{repo: r, opts: opts, start: start, room: room, hide: s.hiddenSection})
	}
	notes := func(p *diffPart) string {
		s.flagGenerated(ctx, r, sha, p)
		return s.partNotes(p, sha)
	}
	// With --structured each file's fields are sent too, beside its patch:
	// a reply that comes out over the limit is cut again with less room.
	for attempt := 0; ; attempt++ {
		part, partNotes, err := partWithNotes(room, in.MaxBytes, read, notes)
		if err != nil {
			return reply[getCommitOut]{}, err
		}
		res := commitReply(commitPart{s: s, in: in, digest: digest, sha: sha, against: against, preamble: preamble, first: first,
			deferred: first && patchRoom(room, in.MaxBytes) < patchRoom(laterRoom, in.MaxBytes) && histLostLines(part)}, r, out, part, partNotes)
		if over := s.replySize(res) - s.cfg.MaxBytes; over > 0 && attempt < 3 {
			room -= over
			continue
		}
		return res, nil
	}
}

// commitPart is what a get_commit part's reply is made of, besides the
// part itself.
type commitPart struct {
	s                              *Server
	in                             getCommitIn
	digest, sha, against, preamble string
	first, deferred                bool
}

// commitReply is get_commit's reply for a part.
func commitReply(c commitPart, r *repo.Repository, out getCommitOut, part *diffPart, partNotes string) reply[getCommitOut] {
	const tool = "get_commit"
	out.TotalFiles = part.total
	var b strings.Builder
	b.WriteString(c.preamble)
	next := part.next
	switch {
	case c.deferred:
		// A line (or a file's header lines) left out as longer than this
		// part's room, which the preamble shrank, could fit in a later
		// part's: the patch starts in the next part, so that every part
		// leaves out the same lines a get_diff part would.
		fmt.Fprintf(&b, "Patch against %s: %s; it starts in the next part, for want of room in this one.\n", c.against, count(part.total, "file"))
		next = &partPos{}
	case !c.first:
		fmt.Fprintf(&b, "%s: commit %s, patch against %s; this part: %s\n", r.FullName(), short(c.sha), c.against, partRange(part))
	case part.total == 0:
		fmt.Fprintf(&b, "Patch against %s: no file differs.\n", c.against)
	default:
		fmt.Fprintf(&b, "Patch against %s; %s:\n", c.against, partRange(part))
	}
	if !c.deferred {
		out.Files = c.s.partFiles(part)
		b.Write(part.page.Text)
		b.WriteString(partNotes)
	}
	res := reply[getCommitOut]{text: b.String(), out: out}
	if next != nil {
		res.out.Truncated = true
		cur := cursor{Tool: tool, Args: c.digest, Commits: []string{c.sha}, File: next.change, Section: next.section, Line: next.line}
		res.next = continueWith(tool, getCommitWithCursor(c.in, c.s.cursors.encode(cur, r.FullName())))
	}
	return res
}

// histLostLines: the part left out lines, or a file's header lines, as
// longer than its room.
func histLostLines(p *diffPart) bool {
	for _, f := range p.page.Files {
		if f.Omitted || len(f.LongLines) > 0 {
			return true
		}
	}
	return false
}

func getCommitWithCursor(in getCommitIn, c string) getCommitIn {
	in.Cursor = c
	return in
}

// histMessage is the message as git log gives it: the subject (the first
// paragraph on one line), a blank line and the body.
func histMessage(c git.Commit) string {
	body := strings.TrimRight(c.Body, "\n")
	if body == "" {
		return c.Subject
	}
	return c.Subject + "\n\n" + body
}

// histIndent indents a message's lines as git show does.
func histIndent(m string) string {
	var b strings.Builder
	for _, line := range strings.Split(m, "\n") {
		if line != "" {
			b.WriteString("    " + line)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// histCutMessage keeps the longest start of m that, indented, takes at most
// room bytes of JSON, and says how many bytes it left out.
func histCutMessage(m string, room int) (string, int) {
	if text.JSONLen(histIndent(m)) <= room {
		return m, 0
	}
	lo, hi := 0, len(m) // a cut at lo fits, at hi it does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		cut, _ := text.CutUTF8(m, mid)
		if text.JSONLen(histIndent(cut)) <= room {
			lo = mid
		} else {
			hi = mid
		}
	}
	cut, _ := text.CutUTF8(m, lo)
	return cut, len(m) - len(cut)
}

// histPreamble is the start of get_commit's first part: the commit, its
// parents, author, committer, message and files.
func histPreamble(name string, c git.Commit, out getCommitOut, against string, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: commit %s\n", name, c.SHA)
	switch len(c.Parents) {
	case 0:
		b.WriteString("Parents:   none (a root commit: its files and patch are against the empty tree)\n")
	case 1:
		fmt.Fprintf(&b, "Parent:    %s\n", c.Parents[0])
	default:
		fmt.Fprintf(&b, "Parents:   %s (a merge: its files and patch are against its first parent)\n", strings.Join(c.Parents, " "))
	}
	person := func(p histPerson) string {
		return strings.TrimSpace(fmt.Sprintf("%s <%s> %s", p.Name, p.Email, p.Date))
	}
	fmt.Fprintf(&b, "Author:    %s\nCommitter: %s\n\n", person(out.Author), person(out.Committer))
	b.WriteString(histIndent(*out.Message))
	if out.MessageBytesLeftOut > 0 {
		fmt.Fprintf(&b, "[message cut: its last %d bytes are left out, as it is longer than a third of a reply]\n", out.MessageBytesLeftOut)
	}
	if c.Truncated {
		b.WriteString("[a field of this commit (its message, a name) is longer than the server reads and was cut]\n")
	}
	b.WriteString("\n")
	if total == 0 {
		fmt.Fprintf(&b, "No file changed against %s.\n\n", against)
		return b.String()
	}
	fmt.Fprintf(&b, "%s changed against %s:\n", count(total, "file"), against)
	for _, f := range out.ChangedFiles {
		b.WriteString(f.line())
	}
	if more := total - len(out.ChangedFiles); more > 0 {
		what := fmt.Sprintf("and %d more", more)
		if len(out.ChangedFiles) == 0 {
			what = "none listed here, for want of room"
		}
		if len(c.Parents) == 0 {
			fmt.Fprintf(&b, "%s: all are added, and the patch shows them all\n", what)
		} else {
			fmt.Fprintf(&b, "%s: list_changed_files base=%s head=%s mode=direct lists them all\n", what, c.Parents[0], c.SHA)
		}
	}
	b.WriteString("\n")
	return b.String()
}
