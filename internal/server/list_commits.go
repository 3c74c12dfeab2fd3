package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type listCommitsIn struct {
	Owner  string   `json:"owner,omitempty"`
	Repo   string   `json:"repo,omitempty"`
	Ref    string   `json:"ref,omitempty" jsonschema:"commit, branch, tag or refs/pull/N/head; omit for HEAD"`
	Base   string   `json:"base,omitempty"`
	Head   string   `json:"head,omitempty"`
	Mode   string   `json:"mode,omitempty"`
	Index  int      `json:"index,omitempty" jsonschema:"pull request number"`
	Paths  []string `json:"paths,omitempty" jsonschema:"only commits touching these paths"`
	Follow bool     `json:"follow,omitempty"`
	Order  string   `json:"order,omitempty"`
	Offset int      `json:"offset,omitempty"`
	Limit  int      `json:"limit,omitempty"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	paging.ReplyLimit
}

// histPerson is who wrote or committed a commit, as the commit records
// it (no mailmap).
type histPerson struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date" jsonschema:"ISO 8601, in the commit's own time zone; empty when git could not read it"`
}

// histCommit is one commit of a listing.
type histCommit struct {
	SHA          string     `json:"sha"`
	Parents      []string   `json:"parents" jsonschema:"parent commits, the first parent first: none for a root commit, two or more for a merge; at most the first 20 (parentCount counts them all, get_commit lists them all)"`
	ParentCount  int        `json:"parentCount" jsonschema:"how many parents the commit has"`
	Author       histPerson `json:"author"`
	Date         string     `json:"date" jsonschema:"when it was committed (the committer's date), ISO 8601"`
	Subject      string     `json:"subject" jsonschema:"the message's first paragraph on one line"`
	FilesChanged int        `json:"filesChanged" jsonschema:"files it changes against its first parent (all its files for a root commit), whatever paths selects"`
	IsMerge      bool       `json:"isMerge"`
	// SubjectHidden names the bidi controls and invisible characters of
	// subject.
	SubjectHidden []string `json:"subjectHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters subject holds, by code point and name, shown as they are; absent when none"`
}

type listCommitsOut struct {
	Head         string       `json:"head" jsonschema:"the commit the listing starts from: ref's, head's, or the pull request's head"`
	Base         *string      `json:"base" jsonschema:"the range's or pull request's base commit; null for a ref"`
	MergeBase    *string      `json:"mergeBase" jsonschema:"where the commits start in merge-base mode and for a pull request; else null"`
	Order        string       `json:"order"`
	Commits      []histCommit `json:"commits"`
	TotalCommits int          `json:"totalCommits" jsonschema:"commits in the whole selection"`
	NextOffset   *int         `json:"nextOffset" jsonschema:"offset of the next page, null at the end"`
	// RenameStop says where the history of the one path asked for stops.
	RenameStop *histRenameStop `json:"renameStop,omitempty" jsonschema:"with one path and no follow: the oldest commit of its history renamed it from oldPath, and follow=true goes on from there; absent otherwise"`

	// MergedBy and Since: a pull request whose head is already merged.
	MergedBy *string `json:"mergedBy,omitempty" jsonschema:"for a pull request whose head is already merged into its base (index): the merge commit on the base's first-parent line that brought it in; absent otherwise"`
	Since    *string `json:"since,omitempty" jsonschema:"with mergedBy: its first parent, the base before the merge; the commits listed are the head's not reachable from it"`
	paging.Paged
}

// histRenameStop is the commit where a path's history stops at a rename.
type histRenameStop struct {
	SHA     string `json:"sha"`
	OldPath string `json:"oldPath" jsonschema:"the path's name before that commit"`
}

// Orders of list_commits.
const (
	histNewest = "newest"
	histOldest = "oldest"
)

// listCommitsTool is list_commits's definition (registry.go).
var listCommitsTool = defineTool(toolSpec{
	Name:  "list_commits",
	Title: "List commits",
	Description: "List commits (SHA, date, author, subject, files): a ref's history, a range (base, head) or a pull request's (index); paths filters, follow=true follows one file's renames. " +
		"get_commit: a commit's patch; blame: who changed lines.",
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetDefault(in, "mode", modeMergeBase)
		argcheck.Prop(in, "mode").Enum = []any{modeMergeBase, modeDirect}
		argcheck.SetDefault(in, "order", histNewest)
		argcheck.Prop(in, "order").Enum = []any{histNewest, histOldest}
		argcheck.SetInt(in, "index", 0, 1, 1<<31-1)
		argcheck.Prop(in, "paths").MaxItems = ptr(maxDiffPaths)
		argcheck.SetInt(in, "offset", 0, 0, 1<<31-1)
		argcheck.SetInt(in, "limit", 50, 1, 500)
	},
}, (*Server).listCommits)

// histSelection is what list_commits lists: the commits reachable from
// to and not from from (all of to's history when from is "").
type histSelection struct {
	repo      *repo.Repository
	from, to  string
	base      *string
	mergeBase *string
	pinned    []string // what a cursor pins to list the same commits again
	what      string   // the header's words for the selection
	// A merged pull request's: the merge and its first parent, or why its
	// commits cannot be told (a line after the header).
	mergedBy, since *string
	note            string
}

func (s *Server) listCommits(ctx context.Context, in listCommitsIn) (reply[listCommitsOut], error) {
	const tool = "list_commits"
	digest := paging.ArgsDigest(in, "cursor", "offset")
	var pinned *paging.Cursor
	if in.Cursor != "" {
		cur, err := s.cursors.Decode(tool, in.Cursor, digest)
		if err != nil {
			return reply[listCommitsOut]{}, err
		}
		pinned = &cur
	}
	paths, err := repo.CleanPaths("paths", in.Paths)
	if err != nil {
		return reply[listCommitsOut]{}, err
	}
	for _, p := range paths { // a hidden file has no history here, as blame has none of it
		if _, err := s.cfg.Policy.Check(p); err != nil {
			return reply[listCommitsOut]{}, err
		}
	}
	if in.Follow && len(paths) != 1 {
		return reply[listCommitsOut]{}, errcode.New(errcode.InvalidArgument, "follow follows one file through its renames: give exactly one path in paths (%d given)", len(paths))
	}
	sel, err := s.histSelect(ctx, in, pinned)
	if err != nil {
		return reply[listCommitsOut]{}, err
	}
	g := sel.repo.Git
	opts := git.LogOptions{From: sel.from, To: sel.to, Paths: paths, Follow: in.Follow, Reverse: in.Order == histOldest,
		Skip: in.Offset, Limit: in.Limit, WithFileCount: true, MaxParents: histListParents}
	total, err := g.CountLog(ctx, opts)
	if err != nil {
		return reply[listCommitsOut]{}, err
	}
	var page []git.Commit
	if in.Offset < total {
		if page, err = g.Log(ctx, opts); err != nil {
			return reply[listCommitsOut]{}, err
		}
	}
	stop, err := histRenameStopOf(ctx, g, opts, total)
	if err != nil {
		return reply[listCommitsOut]{}, err
	}
	entries := make([]histCommit, len(page))
	for i, c := range page {
		entries[i] = newHistCommit(c)
	}
	from := min(in.Offset, total)
	out := listCommitsOut{Head: sel.to, Base: sel.base, MergeBase: sel.mergeBase, Order: in.Order, TotalCommits: total, RenameStop: stop,
		MergedBy: sel.mergedBy, Since: sel.since}
	order := "newest first"
	if in.Order == histOldest {
		order = "oldest first"
	}
	render := func(n int) reply[listCommitsOut] {
		out.Commits = entries[:n]
		out.NextOffset = nil
		if next := from + n; next < total {
			out.NextOffset = &next
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s %s", sel.repo.FullName(), text.Count(total, "commit"), sel.what)
		if len(paths) > 0 {
			b.WriteString(" touching " + histPaths(text.Names(paths)))
		}
		if in.Follow {
			b.WriteString(" and its older names")
		}
		b.WriteString(", " + order)
		if n < total {
			b.WriteString("; " + paging.Shown(in.Offset, n, total, "commit", "list_commits", in))
		}
		b.WriteString("\n" + sel.note)
		if total == 0 {
			b.WriteString("No commit.\n")
		}
		for _, e := range out.Commits {
			b.WriteString(e.line())
		}
		if stop != nil {
			fmt.Fprintf(&b, "The history of %s stops at %s, where it was renamed from %s; follow: true goes on.\n", text.Name(paths[0]), git.Short(stop.SHA), text.Name(stop.OldPath))
		}
		b.WriteString(subjectsNote(out.Commits))
		r := reply[listCommitsOut]{Text: b.String(), Out: out}
		if out.NextOffset != nil {
			next := in
			next.Offset = *out.NextOffset
			next.Cursor = s.cursors.Encode(paging.Cursor{Tool: tool, Args: digest, Commits: sel.pinned}, sel.repo.FullName())
			r.Next = paging.Continue(tool, next)
		}
		return r
	}
	r := paging.FitList(s.budget(ctx), len(entries), render)
	if len(r.Out.Commits) == 0 && len(entries) > 0 {
		return reply[listCommitsOut]{}, histTooLarge(entries[0].SHA, len(paths) > 0, s.budget(ctx).MaxBytes)
	}
	return r, nil
}

// histRenameStopOf is where the history of the one path o lists, not
// followed, stops at a rename; nil when it does not (or o lists more
// paths, or follows).
func histRenameStopOf(ctx context.Context, g *git.Repo, o git.LogOptions, total int) (*histRenameStop, error) {
	if len(o.Paths) != 1 || o.Follow || total == 0 {
		return nil, nil
	}
	sha, old, err := g.RenameStop(ctx, o.From, o.To, o.Paths[0])
	if err != nil || sha == "" {
		return nil, err
	}
	return &histRenameStop{SHA: sha, OldPath: old}, nil
}

// histTooLarge is list_commits' error for a commit that does not fit a
// reply. Its entry is capped (subject, names, parents), so only the call's
// own paths, which the header and the next call repeat, can make it so;
// without paths, nothing the agent can pass would help.
func histTooLarge(sha string, withPaths bool, limit int) error {
	if withPaths {
		return errcode.New(errcode.TooLarge, "commit %s does not fit in one reply of %d bytes beside the paths this call gives; list fewer paths", git.Short(sha), limit)
	}
	return errcode.New(errcode.TooLarge, "commit %s does not fit in one reply of %d bytes; %s", git.Short(sha), limit, paging.NoNarrowing)
}

// histSelect resolves what in selects, once (pinned, a cursor, pins the
// commits its first page resolved).
func (s *Server) histSelect(ctx context.Context, in listCommitsIn, pinned *paging.Cursor) (*histSelection, error) {
	switch {
	case in.Index > 0 && (in.Ref != "" || in.Base != "" || in.Head != ""):
		return nil, errcode.New(errcode.InvalidArgument, "index selects a pull request's commits: leave out ref, base and head")
	case in.Ref != "" && (in.Base != "" || in.Head != ""):
		return nil, errcode.New(errcode.InvalidArgument, "give either ref (the history of one commit) or base and head (the commits of a range), not both")
	case in.Head != "" && in.Base == "":
		return nil, errcode.New(errcode.InvalidArgument, "head needs base: give base and head for the commits of a range, or ref alone for the history of one commit")
	}
	for _, p := range [][2]string{{"ref", in.Ref}, {"base", in.Base}, {"head", in.Head}} {
		if err := histOneCommit(p[0], p[1]); err != nil {
			return nil, err
		}
	}
	switch {
	case in.Index > 0:
		return s.histPullRequest(ctx, in, pinned)
	case in.Base != "":
		return s.histRange(ctx, in, pinned)
	}
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return nil, err
	}
	ref := in.Ref
	if ref == "" {
		ref = "HEAD"
	}
	var to string
	if pinned != nil {
		pins, err := paging.CheckPins(ctx, r, pinned, 1)
		if err != nil {
			return nil, err
		}
		to = pins[0]
	} else if to, err = r.ResolveCommit(ctx, ref); err != nil {
		return nil, err
	}
	return &histSelection{repo: r, to: to, pinned: []string{to},
		what: fmt.Sprintf("reachable from %s (%s)", text.Name(ref), git.Short(to))}, nil
}

// histRange selects the commits of base..head: in merge-base mode those
// since their merge base, as get_diff's merge-base mode diffs from it.
func (s *Server) histRange(ctx context.Context, in listCommitsIn, pinned *paging.Cursor) (*histSelection, error) {
	head := in.Head
	if head == "" {
		head = "HEAD"
	}
	sel, err := s.selectDiff(ctx, diffRequest{owner: in.Owner, name: in.Repo, base: in.Base, head: head, mode: in.Mode, cur: pinned})
	if err != nil {
		return nil, err
	}
	c := &histSelection{repo: sel.repo, from: sel.base, to: sel.head, base: ptr(sel.base), pinned: []string{sel.base, sel.head}}
	if sel.mergeBase != nil {
		c.from, c.mergeBase = *sel.mergeBase, sel.mergeBase
		c.what = fmt.Sprintf("on %s (%s) since it branched off %s (%s) at their merge base %s", text.Name(head), git.Short(sel.head), text.Name(in.Base), git.Short(sel.base), git.Short(*sel.mergeBase))
	} else {
		c.what = fmt.Sprintf("reachable from %s (%s) and not from %s (%s)", text.Name(head), git.Short(sel.head), text.Name(in.Base), git.Short(sel.base))
	}
	return c, nil
}

// histPullRequest selects a pull request's commits: from its merge base
// to its head.
func (s *Server) histPullRequest(ctx context.Context, in listCommitsIn, pinned *paging.Cursor) (*histSelection, error) {
	owner, name := in.Owner, in.Repo
	if owner == "" && name == "" {
		// The one repository served needs no name here either.
		r, err := s.served.Get(ctx, "", "", false)
		if err != nil {
			return nil, err
		}
		owner, name = r.Owner, r.Name
	}
	r, pr, _, err := s.pullRequest(ctx, owner, name, in.Index, pinned)
	if err != nil {
		return nil, err
	}
	sel := &histSelection{repo: r, from: pr.MergeBase, to: pr.Head, base: ptr(pr.Base), mergeBase: ptr(pr.MergeBase),
		pinned: []string{pr.Base, pr.MergeBase, pr.Head},
		what:   fmt.Sprintf("of pull request #%d, head %s since its merge base %s with its base %s", pr.Index, git.Short(pr.Head), git.Short(pr.MergeBase), git.Short(pr.Base))}
	merged, err := r.MergedPull(ctx, pr)
	switch {
	case err != nil:
		return nil, err
	case merged == nil:
	case merged.OnLine:
		sel.note = fmt.Sprintf("Its head %s is already on its base %s's first-parent line (fast-forwarded or rebased onto it, or the base's own commit): its own commits cannot be told from the base's; list_commits ref=%s lists the head's history.\n",
			git.Short(pr.Head), git.Short(pr.Base), pr.Head)
	default:
		// The commits the merge brought in: the head's, not the base's
		// before the merge.
		sel.from, sel.mergedBy, sel.since = merged.Since, ptr(merged.Merge), ptr(merged.Since)
		sel.what = fmt.Sprintf("of pull request #%d, already merged into its base %s by merge commit %s: head %s since %s, that merge's first parent (the base before the merge)",
			pr.Index, git.Short(pr.Base), git.Short(merged.Merge), git.Short(pr.Head), git.Short(merged.Since))
	}
	return sel, nil
}

// histOneCommit refuses, in a parameter that names one commit, what could
// be read as an option and a range ("a..b", "a...b"), which would resolve
// to nothing or mislead.
func histOneCommit(param, rev string) error {
	if rev == "" {
		return nil
	}
	if err := repo.CheckRev(rev); err != nil {
		return err
	}
	if strings.Contains(rev, "..") && !strings.Contains(rev, "^{/") {
		return errcode.New(errcode.InvalidArgument, "%s %q is a range, but %s names one commit: for the commits between two, call list_commits with base and head (mode=direct for base..head)", param, rev, param)
	}
	return nil
}

// Caps of what a listing shows of one commit, so that one commit always
// fits a reply: only a hostile commit has fields this long, or more
// parents (git's own history has an octopus of 66; get_commit lists them
// all, in parts).
const (
	histMaxPerson   = 200
	histMaxSubject  = 500
	histListParents = 20
)

func newHistCommit(c git.Commit) histCommit {
	e := histCommit{
		SHA: c.SHA, Parents: c.Parents, ParentCount: c.ParentCount, Author: newHistPerson(c.Author), Date: histDate(c.Committer.Date),
		Subject: histCap(c.Subject, histMaxSubject), FilesChanged: c.FilesChanged, IsMerge: c.ParentCount > 1,
	}
	if len(e.Parents) > histListParents {
		e.Parents = e.Parents[:histListParents]
	}
	if e.Parents == nil {
		e.Parents = []string{}
	}
	if h := text.ScanText([]byte(e.Subject), 1); h.Found() {
		e.SubjectHidden = h.PointNames()
	}
	return e
}

func newHistPerson(p git.Person) histPerson {
	return histPerson{Name: histCap(p.Name, histMaxPerson), Email: histCap(p.Email, histMaxPerson), Date: histDate(p.Date)}
}

// histCap cuts s to at most n bytes, on a UTF-8 boundary, marking the cut.
func histCap(s string, n int) string {
	if cut, ok := text.CutUTF8(s, n); ok {
		return cut + "…[cut]"
	}
	return s
}

func histDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// line is the commit's line in a listing:
// "0123456789ab 2026-01-02 Ann Author Fix the thing (3 files)".
func (e histCommit) line() string {
	day := "????-??-??"
	if len(e.Date) >= 10 {
		day = e.Date[:10]
	}
	who := e.Author.Name
	if who == "" {
		who = "<" + e.Author.Email + ">"
	}
	files := text.Count(e.FilesChanged, "file")
	switch {
	case e.ParentCount > 2: // an octopus: how many, since parents are not shown
		files = fmt.Sprintf("merge of %d parents, %s against its first parent", e.ParentCount, files)
	case e.IsMerge:
		files = "merge, " + files + " against its first parent"
	}
	return fmt.Sprintf("%s %s %s %s (%s)\n", git.Short(e.SHA), day, text.Line(who), text.Line(e.Subject), files)
}

// histPaths names a few of paths for a header.
func histPaths(paths []string) string {
	const room = 300
	var b strings.Builder
	shown := 0
	for _, p := range paths {
		if shown > 0 && b.Len()+len(p) > room {
			break
		}
		if shown > 0 {
			b.WriteString(", ")
		}
		b.WriteString(histCap(p, room))
		shown++
	}
	if more := len(paths) - shown; more > 0 {
		fmt.Fprintf(&b, " and %d more", more)
	}
	return b.String()
}

// subjectsNote says which commits of a listing have hidden characters in
// their subjects: the first text.MaxHiddenLines of them, and the code
// points.
func subjectsNote(commits []histCommit) string {
	var shas []string
	var all text.Hidden
	n := 0
	for _, c := range commits {
		if len(c.SubjectHidden) == 0 {
			continue
		}
		if n++; len(shas) < text.MaxHiddenLines {
			shas = append(shas, git.Short(c.SHA))
		}
		all.Merge(text.ScanText([]byte(c.Subject), 1))
	}
	if n == 0 {
		return ""
	}
	which := strings.Join(shas, ", ")
	if n > len(shas) {
		which += fmt.Sprintf(", … (%d commits)", n)
	}
	return fmt.Sprintf("[hidden characters in the subjects of %s: %s; shown as they are]\n", which, strings.Join(all.PointNames(), ", "))
}
