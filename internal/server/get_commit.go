package server

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type getCommitIn struct {
	Owner    string `json:"owner,omitempty"`
	Repo     string `json:"repo,omitempty"`
	Ref      string `json:"ref" jsonschema:"commit SHA, branch or tag"`
	MaxBytes int    `json:"maxBytes,omitempty" jsonschema:"most patch bytes a part (0: as many as fit; raised to 256 if less)"`
	// ContextLines is always sent, 0 too: a next call that left 0 out
	// would get the default and no longer match its cursor.
	ContextLines int `json:"contextLines"`
	// IgnoreWhitespace is git's -w, in the patch and the line counts.
	IgnoreWhitespace bool `json:"ignoreWhitespace,omitempty"`
	// LineNumbers, CollapseRepeated and FunctionContext are get_diff's.
	LineNumbers      bool `json:"lineNumbers,omitempty" jsonschema:"as get_diff's"`
	CollapseRepeated bool `json:"collapseRepeated,omitempty" jsonschema:"as get_diff's"`
	FunctionContext  bool `json:"functionContext,omitempty" jsonschema:"as get_diff's"`
	// Patch is nil when left out, which means true: a next call then
	// carries it only when false.
	Patch  *bool  `json:"patch,omitempty"`
	Cursor string `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
}

type getCommitOut struct {
	SHA     string   `json:"sha"`
	Parents []string `json:"parents" jsonschema:"parent commits, the first parent first: none for a root commit, two or more for a merge. In the first part as many as fit (all when parentCount is as many), in a part that goes on with them the next ones from parentOffset, in the other parts at most the first 20"`
	// ParentCount and ParentOffset: a commit can have thousands of
	// parents, more than one reply holds.
	ParentCount  int        `json:"parentCount" jsonschema:"how many parents the commit has"`
	ParentOffset int        `json:"parentOffset" jsonschema:"the index of this part's first parent (0 but in a part that goes on with the parents)"`
	Author       histPerson `json:"author"`
	Committer    histPerson `json:"committer"`
	IsMerge      bool       `json:"isMerge"`
	DiffBase     string     `json:"diffBase" jsonschema:"what the files and the patch are against: the first parent, or for a root commit the empty tree"`
	Message      *string    `json:"message" jsonschema:"the message (its subject, the first paragraph on one line, then its body): in the first part as much as fits a third of a reply, in a part that goes on with it the next piece, from messageOffset; null in the other parts"`
	// MessageBytesLeftOut: how much of the message the next parts hold.
	MessageBytesLeftOut int `json:"messageBytesLeftOut" jsonschema:"bytes of the message after this part's piece, which the next parts hold (0: the message ends here, or a part without it)"`
	MessageOffset       int `json:"messageOffset" jsonschema:"the byte offset in the message of this part's piece (0 but in a part that goes on with the message)"`
	// MessageHidden: the bidi controls and invisible characters of message.
	MessageHidden *text.HiddenChars `json:"messageHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters this part's piece of message holds (lines of the whole message, the subject line 1), shown as they are; absent when none"`
	ChangedFiles  []changedFile     `json:"changedFiles" jsonschema:"in the first part, the first files the commit changes with their line counts (all of them when totalFiles is as many); empty in later parts"`
	TotalFiles    int               `json:"totalFiles" jsonschema:"files the commit changes against diffBase"`
	Files         []diffFile        `json:"files" jsonschema:"the files this part's patch holds, in git's order"`
	Truncated     bool              `json:"truncated" jsonschema:"true when the patch goes on in a next part"`
	// Folded: collapseRepeated's text (folded.go).
	Folded *string `json:"folded,omitempty" jsonschema:"with collapseRepeated: this part's share of the folded patch (files is then empty)"`
	paging.Paged
}

// getCommitTool is get_commit's definition (registry.go).
var getCommitTool = defineTool(toolSpec{
	Name:  "get_commit",
	Title: "Get commit",
	Description: "Get one commit by ref: message, author, parents, changed files and patch against its first parent (patch=false: none). " +
		"list_commits finds commits; get_diff diffs a range, get_pull_request_diff a pull request." +
		partEnds,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "maxBytes", 0, 0, 1<<31-1)
		argcheck.SetInt(in, "contextLines", defaultContextLines, 0, 10000)
		// A *bool would be null or boolean: patch is a boolean, true
		// when left out.
		argcheck.Prop(in, "patch").Types, argcheck.Prop(in, "patch").Type = nil, "boolean"
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
	n, counting := assumedParts(ctx)
	res, err := s.commitPart(ctx, in, n)
	if err == nil && in.Cursor == "" && res.Next != nil && !counting {
		// A commit in parts: counted, and its first part made again saying
		// how many (partcount.go). The first part pins the commit.
		var cur paging.Cursor
		if cur, err = s.cursors.Open(res.Next.Arguments["cursor"].(string), "get_commit"); err != nil {
			return res, err
		}
		key := fmt.Sprintf("get_commit %s %v", paging.PlainJSON(in), cur.Commits)
		if n = s.countParts(ctx, key, res.Out.TotalFiles, guessParts(s.budget(ctx), cur.Bytes), func(ctx context.Context, cursor string) (*paging.Call, error) {
			r, err := s.getCommit(ctx, getCommitWithCursor(in, cursor))
			return r.Next, err
		}); n > 0 {
			res, err = s.commitPart(ctx, in, n)
		}
	}
	return res, err
}

// commitPart is the part of get_commit the call asks for, the first part
// saying that the reply takes n parts (0: not counted).
func (s *Server) commitPart(ctx context.Context, in getCommitIn, n int) (reply[getCommitOut], error) {
	const tool = "get_commit"
	if in.CollapseRepeated && in.FunctionContext {
		return reply[getCommitOut]{}, errFunctionContextFolded()
	}
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return reply[getCommitOut]{}, err
	}
	digest := paging.ArgsDigest(in, "cursor")
	first := in.Cursor == ""
	var start paging.Pos
	var sha string
	var cur paging.Cursor
	var split paging.SplitPos
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
		if cur, err = s.cursors.Decode(tool, in.Cursor, digest); err != nil {
			return reply[getCommitOut]{}, err
		}
		pins, err := paging.CheckPins(ctx, r, &cur, 1)
		if err != nil {
			return reply[getCommitOut]{}, err
		}
		sha, start, split = pins[0], cur.Start(), paging.SplitOf(cur)
	}
	commits, err := r.Git.Log(ctx, git.LogOptions{To: sha, Limit: 1, WithBody: first || cur.Message > 0})
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
		diffBase, against = c.Parents[0], "its first parent "+git.Short(c.Parents[0])
	case len(c.Parents) == 1:
		diffBase, against = c.Parents[0], "its parent "+git.Short(c.Parents[0])
	}
	opts := git.DiffOptions{From: diffBase, To: sha, Context: in.ContextLines, IgnoreWhitespace: in.IgnoreWhitespace}
	out := getCommitOut{
		SHA: sha, Parents: c.Parents[:min(len(c.Parents), histListParents)], ParentCount: len(c.Parents),
		Author: newHistPerson(c.Author), Committer: newHistPerson(c.Committer),
		IsMerge: len(c.Parents) > 1, DiffBase: diffBase, ChangedFiles: []changedFile{}, Files: []diffFile{},
	}
	if out.Parents == nil {
		out.Parents = []string{}
	}
	// A commit's parents and message, longer than a part holds, go on in
	// the parts before its patch.
	place := placeOf(cur, first, n)
	stage := commitStage{s: s, b: s.budget(ctx), in: in, digest: digest, r: r, c: c, out: out, cur: cur, place: place}
	switch {
	case cur.Parent > 0:
		return stage.parentsPart()
	case cur.Message > 0:
		return stage.messagePart()
	case !first && !in.withPatch():
		return reply[getCommitOut]{}, paging.ErrCursor("points into a patch that patch=false leaves out")
	}
	nextProbe := paging.Continue(tool, getCommitWithCursor(in, paging.CursorProbe))
	// roomAfter is what a part that starts with preamble leaves for its
	// patch and notes.
	roomAfter := func(preamble string, out getCommitOut) int {
		probe := reply[getCommitOut]{Text: preamble + strings.Repeat("x", 300+len(r.FullName())), Out: out, Next: nextProbe}
		return s.budget(ctx).PayloadRoom(probe)
	}
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
		avail := s.budget(ctx).PayloadRoom(reply[getCommitOut]{Text: bare + strings.Repeat("x", 300+len(r.FullName())), Out: out, Next: nextProbe})
		// Parents past the first histListParents may take a quarter.
		out.Parents = c.Parents[:min(len(c.Parents), histListParents+max(0, avail/4/(len(sha)+4)))]
		shown, left := paging.CutText(histMessage(c), avail/3, indentedCost(s.budget(ctx)))
		out.Message, out.MessageBytesLeftOut = &shown, left
		out.MessageHidden = histHidden(shown, 1)
		files := make([]changedFile, len(page))
		for i, ch := range page {
			files[i] = s.changedFile(ch)
		}
		s.markGenerated(ctx, r, sha, files)
		used := 0
		for _, f := range files {
			if used += text.JSONLen(f.line()) + paging.LineSlack; used > avail/4 {
				break
			}
			out.ChangedFiles = append(out.ChangedFiles, f)
		}
		preamble = histPreamble(r.FullName(), c, out, against, total)
		if len(out.Parents) < len(c.Parents) || left > 0 {
			return stage.firstBeforePatch(preamble, against, out, total), nil
		}
		if !in.withPatch() {
			out.TotalFiles = total
			return reply[getCommitOut]{Text: preamble + noPatchLine, Out: out}, nil
		}
	}
	if in.CollapseRepeated {
		fv, err := s.foldGitDiff(ctx, r, opts)
		if err != nil {
			return reply[getCommitOut]{}, err
		}
		if fv.files > 0 { // else the plain reply says no file differs
			return s.commitFolded(ctx, in, digest, r, sha, against, preamble, out, fv, cur, place)
		}
	}
	room := roomAfter(preamble, out)
	patchBytes := cur.Bytes // the whole patch's, counted by the part it starts in
	firstRoom := 0
	wide := s.widening(in.FunctionContext)
	read := func(room int) (*paging.Part, error) {
		firstRoom = cmp.Or(firstRoom, room)
		part, err := wide.read(ctx, paging.Request{Repo: r, Opts: opts, Start: start, Room: room, Cost: s.budget(ctx).Cost(), Hide: s.hiddenSection, Split: split,
			CountRest: start == paging.Pos{} && patchBytes == 0, FirstRoom: firstRoom})
		if err == nil && part.Counted != nil {
			patchBytes = part.Counted.Bytes
		}
		return part, err
	}
	notes := func(p *paging.Part) string {
		s.flagGenerated(ctx, r, sha, p)
		return wide.note(p) + p.Notes(s.noteRules(sha))
	}
	// A first part that, fitted (fitPart), still leaves out a line or a
	// file's header lines puts its patch off: a later part, without the
	// preamble, has more room.
	build := func(part *paging.Part, partNotes string) reply[getCommitOut] {
		return commitReply(commitPart{s: s, in: in, digest: digest, sha: sha, against: against, preamble: preamble, first: first,
			deferred: first && paging.LostToRoom(part.Page), patchBytes: patchBytes, place: place}, r, out, part, partNotes)
	}
	patchBytesAsked(ctx, in.MaxBytes)
	return paging.FitPart(s.budget(ctx), room, in.MaxBytes, read, notes, build)
}

// commitFolded is a part of the commit's patch folded (collapseRepeated),
// the first after preamble.
func (s *Server) commitFolded(ctx context.Context, in getCommitIn, digest string, r *repo.Repository, sha, against, preamble string, out getCommitOut, fv *foldedView, cur paging.Cursor, place partPlace) (reply[getCommitOut], error) {
	const tool = "get_commit"
	title := fmt.Sprintf("%s: commit %s, patch against %s", r.FullName(), git.Short(sha), against)
	if preamble != "" {
		title = "Patch against " + against
	}
	fc := foldedCall{fv: fv, cur: cur, first: preamble != "", place: place, title: title, preamble: preamble, maxBytes: in.MaxBytes, hide: s.hiddenSection, lineNumbers: in.LineNumbers,
		countKey: fmt.Sprintf("get_commit %s %s", paging.PlainJSON(in), sha)}
	fc.next = func(c paging.Cursor) *paging.Call {
		c.Tool, c.Args, c.Commits = tool, digest, []string{sha}
		return paging.Continue(tool, getCommitWithCursor(in, s.cursors.Encode(c, r.FullName())))
	}
	fc.notes = func(p *paging.Part) string {
		s.flagGenerated(ctx, r, sha, p)
		return p.Notes(s.noteRules(sha))
	}
	// getCommit counts the parts, as it does a plain patch's.
	return foldedPart(ctx, s, fc, func(res textReply, payload string) reply[getCommitOut] {
		o := out
		o.TotalFiles, o.Truncated = fv.files, res.Next != nil
		if s.cfg.Structured {
			o.Folded = &payload
		}
		return reply[getCommitOut]{Text: res.Text, Out: o, Next: res.Next}
	})
}

// commitPart is what a get_commit part's reply is made of, besides the
// part itself.
type commitPart struct {
	s                              *Server
	in                             getCommitIn
	digest, sha, against, preamble string
	first, deferred                bool
	patchBytes                     int64 // the whole patch's (0: not counted)
	place                          partPlace
}

// commitReply is get_commit's reply for a part.
func commitReply(c commitPart, r *repo.Repository, out getCommitOut, part *paging.Part, partNotes string) reply[getCommitOut] {
	const tool = "get_commit"
	out.TotalFiles = part.Total
	var b strings.Builder
	b.WriteString(c.preamble)
	next := part.Next
	switch {
	case c.deferred:
		// A line (or a file's header lines) left out as longer than this
		// part's room, which the preamble shrank, could fit in a later
		// part's: the patch starts in the next part, so that every part
		// leaves out the same lines a get_diff part would.
		fmt.Fprintf(&b, "Patch against %s: %s; it starts in the next part, for want of room in this one (%s).\n", c.against, text.Count(part.Total, "file"), c.place)
		next = &paging.Pos{}
	case !c.first:
		fmt.Fprintf(&b, "%s: commit %s, patch against %s%s; %s: %s\n", r.FullName(), git.Short(c.sha), c.against, c.bytes(), c.place, part.Range())
	case part.Total == 0:
		fmt.Fprintf(&b, "Patch against %s: no file differs.\n", c.against)
	default:
		if next != nil {
			fmt.Fprintf(&b, "Patch against %s%s; %s: %s:\n", c.against, c.bytes(), c.place, part.Range())
		} else {
			fmt.Fprintf(&b, "Patch against %s%s; %s:\n", c.against, c.bytes(), part.Range())
		}
	}
	if !c.deferred {
		out.Files = c.s.partFiles(part)
		patch, note := shownPatch(c.in.LineNumbers, part)
		b.WriteString(patch + note + partNotes)
	}
	res := reply[getCommitOut]{Text: b.String(), Out: out}
	if next != nil {
		res.Out.Truncated = true
		cur := paging.Cursor{Tool: tool, Args: c.digest, Commits: []string{c.sha}, Bytes: c.patchBytes}
		c.place.carry(&cur)
		if c.deferred {
			cur.Bytes = 0 // the part the patch starts in counts it
		} else {
			part.CursorAt(&cur)
		}
		res.Next = paging.Continue(tool, getCommitWithCursor(c.in, c.s.cursors.Encode(cur, r.FullName())))
	}
	return res
}

// bytes is the whole patch's size, as the header says it.
func (c commitPart) bytes() string {
	if c.patchBytes == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d bytes of patch)", c.patchBytes)
}
