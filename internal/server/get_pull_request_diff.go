package server

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type getPullRequestDiffIn struct {
	Owner    string `json:"owner,omitempty"`
	Repo     string `json:"repo,omitempty"`
	Index    int    `json:"index"`
	FilePath string `json:"file_path,omitempty" jsonschema:"one file (either side of a rename)"`
	// Paths, ContextLines and IgnoreWhitespace are get_diff's.
	Paths []string `json:"paths,omitempty" jsonschema:"only these files or directories (literal)"`
	// ContextLines is always sent, 0 too: a next call that left 0 out
	// would get the default and no longer match its cursor.
	ContextLines     int  `json:"contextLines"`
	IgnoreWhitespace bool `json:"ignoreWhitespace,omitempty"`
	// LineNumbers, CollapseRepeated and FunctionContext are get_diff's.
	LineNumbers      bool   `json:"lineNumbers,omitempty" jsonschema:"as get_diff's"`
	CollapseRepeated bool   `json:"collapseRepeated,omitempty" jsonschema:"as get_diff's"`
	FunctionContext  bool   `json:"functionContext,omitempty" jsonschema:"as get_diff's"`
	Cursor           string `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	paging.ReplyLimit
}

// getPullRequestDiffTool is get_pull_request_diff's definition (registry.go).
var getPullRequestDiffTool = defineTool(toolSpec{
	Name:  "get_pull_request_diff",
	Title: "Get pull request diff",
	Description: "Get a pull request's unified diff by number, from the merge base as the forge shows it: whole, one file (file_path) or some (paths). " +
		wholeDiff +
		" For two refs get_diff, one commit get_commit, the file list list_pull_request_files." +
		partEnds,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "index", 0, 1, 1<<31-1)
		argcheck.SetInt(in, "contextLines", defaultContextLines, 0, 10000)
		argcheck.Prop(in, "paths").MaxItems = ptr(maxDiffPaths)
		in.Required = slices.DeleteFunc(in.Required, func(p string) bool { return p == "contextLines" })
	},
}, (*Server).getPullRequestDiff)

func (s *Server) getPullRequestDiff(ctx context.Context, in getPullRequestDiffIn) (textReply, error) {
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return textReply{}, err
	}
	if in.CollapseRepeated && in.FunctionContext {
		return textReply{}, errFunctionContextFolded()
	}
	if in.FilePath != "" && len(in.Paths) > 0 {
		return textReply{}, errcode.New(errcode.InvalidArgument, "file_path and paths cannot be given together: file_path names one file, paths files or directories (put file_path in paths)")
	}
	return orRenameLine(ctx, "file_path", in.FilePath, func(filePath string) (textReply, error) {
		path, err := s.checkFilePath(filePath)
		if err != nil {
			return textReply{}, err
		}
		in.FilePath = filePath // the next call's
		return s.backend.pullRequestDiff(ctx, in, path)
	})
}

// gitOptions: the call asks for what only git's diff gives (a forge's diff
// of the pull request has no such options).
func (in getPullRequestDiffIn) gitOptions() bool {
	return len(in.Paths) > 0 || in.ContextLines != defaultContextLines || in.IgnoreWhitespace || in.CollapseRepeated || in.LineNumbers || in.FunctionContext
}

func (lb localBackend) pullRequestDiff(ctx context.Context, in getPullRequestDiffIn, path string) (textReply, error) {
	s := lb.s
	const tool = "get_pull_request_diff"
	digest := paging.ArgsDigest(in, "cursor")
	var cur paging.Cursor
	var pinned *paging.Cursor
	if in.Cursor != "" {
		var err error
		if cur, err = s.cursors.Decode(tool, in.Cursor, digest); err != nil {
			return textReply{}, err
		}
		pinned = &cur
	}
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index, pinned)
	if err != nil {
		return textReply{}, err
	}
	if opts.Paths, err = repo.CleanPaths("paths", in.Paths); err != nil {
		return textReply{}, err
	}
	opts.Context, opts.IgnoreWhitespace = in.ContextLines, in.IgnoreWhitespace
	name := fmt.Sprintf("%s#%d", r.FullName(), pr.Index)
	if in.CollapseRepeated {
		folded := opts
		if path != "" {
			folded.Paths = []string{path}
		}
		fv, err := s.foldGitDiff(ctx, r, folded)
		if err != nil {
			return textReply{}, err
		}
		if fv.files > 0 { // else the plain reply says why it is empty
			return lb.pullRequestDiffFolded(ctx, in, path, digest, r, name, pr, fv, cur)
		}
	}
	// selection is what the call selects of the diff's file list, made
	// again for each read (a new tally of the renames paths paired).
	selection := func() *paging.Filter {
		if path == "" {
			return paging.PathsFilter(opts.Paths)
		}
		// Either side of a rename names it; the file list, with rename
		// detection over the whole pull request, finds the other side.
		return &paging.Filter{Key: "file_path " + path, Keep: func(c git.Change) bool { return c.Path == path || c.OldPath == path }}
	}
	next := in
	next.Cursor = paging.CursorProbe
	first := in.Cursor == ""
	q := paging.Request{
		Repo: r, Opts: opts, Hide: s.hiddenSection, Cost: s.budget(ctx).Cost(),
		Start: cur.Start(), Split: paging.SplitOf(cur),
	}
	q.Only = selection()
	files, size := cur.Files, cur.Bytes // the whole diff's, as the first part counted them
	wide := s.widening(in.FunctionContext)
	if path != "" {
		wide.paths = []string{path}
	}
	if first {
		// A diff that fits comes whole, exactly as git prints it, with no
		// header, notes or next call: it may use the whole reply. Only a
		// larger one is cut again as a first part, with room for those
		// (from the patch cache, which this read filled), and headed by
		// the size this read counted.
		whole := q
		whole.Room, whole.CountRest = s.budget(ctx).PayloadRoom(textReply{}), true
		part, err := wide.read(ctx, whole)
		if err != nil {
			return textReply{}, err
		}
		// Notes make a part: renames paths paired, files whose changes
		// are all whitespace (with ignoreWhitespace git prints nothing of
		// them), and what the part's notes say.
		fits := part.Next == nil && !paging.NeedsNotes(part.Page) && !in.LineNumbers && wide.note(part) == "" && q.Only.Note() == "" && q.Only.Missed() == "" && len(part.Bare) == 0 && !part.RenamesSkipped
		switch {
		case fits && part.Total == 0 && path == "":
			return s.emptyPull(ctx, r, pr, opts)
		case fits && part.Total > 0:
			return textReply{Text: string(part.Page.Text)}, nil
		}
		if files, size = part.Total, 0; part.Counted != nil {
			size = part.Counted.Bytes
		}
	}
	place, routes := placeOf(cur, first, 0), ""
	if first {
		place.n, routes = s.pullDiffParts(ctx, in, []string{pr.Base, pr.MergeBase, pr.Head}, files, size, func(ctx context.Context, cursor string) (*paging.Call, error) {
			more := in
			more.Cursor = cursor
			r, err := lb.pullRequestDiff(ctx, more, path)
			return r.Next, err
		})
	}
	firstRoom := 0
	read := func(room int) (*paging.Part, error) {
		firstRoom = cmp.Or(firstRoom, room)
		q.Room, q.FirstRoom = room, firstRoom
		q.Only = selection()
		return wide.read(ctx, q)
	}
	notes := func(p *paging.Part) string {
		s.flagGenerated(ctx, r, pr.Head, p)
		n := wide.note(p) + q.Only.Note() + p.Notes(s.noteRules(pr.Head))
		if first {
			n = routes + q.Only.Missed() + n
		}
		return n
	}
	build := func(part *paging.Part, partNotes string) pullDiffPart {
		head := pullDiffHead{name: name, base: pr.Base, head: pr.Head, mergeBase: pr.MergeBase, first: first, path: path, paths: len(opts.Paths) > 0, files: files, size: size, place: place}
		patch, note := shownPatch(in.LineNumbers, part)
		out := textReply{Text: head.text(part) + patch + note + partNotes}
		if part.Next != nil {
			c := paging.Cursor{Tool: tool, Args: digest, Commits: []string{pr.Base, pr.MergeBase, pr.Head}, Files: files, Bytes: size}
			part.CursorAt(&c)
			place.carry(&c)
			more := next
			more.Cursor = s.cursors.Encode(c, r.FullName())
			out.Next = paging.Continue(tool, more)
		}
		return pullDiffPart{out, part}
	}
	room := s.budget(ctx).PayloadRoom(textReply{Text: strings.Repeat("x", 300+len(name)+len(path)), Next: paging.Continue(tool, next)})
	res, err := paging.FitPart(s.budget(ctx), room, 0, read, notes, build)
	if err != nil {
		return textReply{}, err
	}
	switch part := res.part; {
	case path != "" && part.Total == 0:
		return textReply{}, s.fileNotInPull(ctx, r, pr, opts, in, path)
	case part.Total == 0:
		return s.emptyPull(ctx, r, pr, opts)
	case path != "" && len(part.Page.Files) > 0 && part.Page.Files[0].Hidden:
		return textReply{}, errcode.New(errcode.PathDenied, "file_path %q is renamed from or to a path hidden by the server's secrets policy", path)
	}
	return res.textReply, nil
}

// pullRequestDiffFolded is a part of the pull request's diff folded
// (collapseRepeated).
func (lb localBackend) pullRequestDiffFolded(ctx context.Context, in getPullRequestDiffIn, path, digest string, r *repo.Repository, name string, pr *repo.PullRequest, fv *foldedView, cur paging.Cursor) (textReply, error) {
	s := lb.s
	const tool = "get_pull_request_diff"
	first := in.Cursor == ""
	title := fmt.Sprintf("%s (the commits of part 1)", name)
	if first {
		title = fmt.Sprintf("%s: base %s, head %s, merge base %s", name, pr.Base, pr.Head, pr.MergeBase)
	}
	if path != "" {
		title += "; " + text.Name(path)
	}
	fc := foldedCall{fv: fv, cur: cur, first: first, place: placeOf(cur, first, 0), title: title, hide: s.hiddenSection, lineNumbers: in.LineNumbers,
		countKey: fmt.Sprintf("get_pull_request_diff %s %s %s", paging.PlainJSON(in), pr.MergeBase, pr.Head)}
	commits := []string{pr.Base, pr.MergeBase, pr.Head}
	fc.next = func(c paging.Cursor) *paging.Call {
		c.Tool, c.Args, c.Commits = tool, digest, commits
		more := in
		more.Cursor = s.cursors.Encode(c, r.FullName())
		return paging.Continue(tool, more)
	}
	fc.notes = func(p *paging.Part) string {
		s.flagGenerated(ctx, r, pr.Head, p)
		return p.Notes(s.noteRules(pr.Head))
	}
	fc.count = func(ctx context.Context, cursor string) (*paging.Call, error) {
		more := in
		more.Cursor = cursor
		r, err := lb.pullRequestDiff(ctx, more, path)
		return r.Next, err
	}
	return foldedPart(ctx, s, fc, func(r textReply, _ string) textReply { return r })
}

// pullDiffHead is what the first line of a part of a pull request's diff
// says, locally and through a forge alike: the same content takes the
// same room in both.
type pullDiffHead struct {
	name                  string // owner/repo#index
	base, head, mergeBase string
	first                 bool   // the first part names the commits; the cursor pins them
	path                  string // file_path, if given
	paths                 bool   // paths narrowed the diff
	files                 int    // the whole selection's files
	size                  int64  // and its bytes of patch (0: not counted)
	place                 partPlace
}

// text is the first line of part, its newline included.
func (h pullDiffHead) text(part *paging.Part) string {
	var b strings.Builder
	if h.first {
		fmt.Fprintf(&b, "%s: base %s, head %s, merge base %s", h.name, h.base, h.head, h.mergeBase)
	} else {
		fmt.Fprintf(&b, "%s (the commits of part 1)", h.name)
	}
	switch {
	case !h.first && h.path == "" && h.size > 0 && !h.paths:
		// "files k–m of N" below counts the files.
		fmt.Fprintf(&b, "; %d bytes of patch", h.size)
	case h.path != "" && h.size > 0:
		fmt.Fprintf(&b, "; %s, %d bytes of patch", text.Name(h.path), h.size)
	case h.path != "":
		fmt.Fprintf(&b, "; %s", text.Name(h.path))
	case h.size > 0 && h.paths:
		fmt.Fprintf(&b, "; %s at or under paths, %d bytes of patch", text.Count(h.files, "file"), h.size)
	case h.size > 0:
		fmt.Fprintf(&b, "; %s, %d bytes of patch", text.Count(h.files, "file"), h.size)
	}
	b.WriteString("; " + h.place.String() + ": " + part.Range() + "\n")
	return b.String()
}

// pullDiffParts counts the parts of a pull request's diff (countParts),
// and gives the note of cheaper routes its first part holds
// (cheaper_routes.go):
// files, its files, and size, its patch's bytes, make the first guess; commits are those the
// parts pin. call is the call in with another cursor.
func (s *Server) pullDiffParts(ctx context.Context, in getPullRequestDiffIn, commits []string, files int, size int64, call partCall) (int, string) {
	if n, ok := assumedParts(ctx); ok {
		routes, _ := ctx.Value(routesKey{}).(string)
		return n, routes
	}
	in.Cursor = ""
	key := fmt.Sprintf("get_pull_request_diff %s %v", paging.PlainJSON(in), commits)
	routes := s.firstPartRoutes(ctx, in, commits, files, size, key)
	count := func(routes string) int {
		// The count's first part holds the same note as the agent's.
		ctx := context.WithValue(ctx, routesKey{}, routes)
		// The count is of parts that hold routes: a count made with other
		// routes (a size not known, a note not made in time) is another.
		return s.countParts(ctx, key+"\x00"+routes, files, guessParts(s.budget(ctx), size), call)
	}
	offer, ok := s.foldOffer(ctx, in, commits, size)
	if !ok {
		return count(routes), routes
	}
	// The offer names the count, which is of parts that hold the offer:
	// counted with a guess as long as the count, as countParts does.
	n := guessParts(s.budget(ctx), size)
	for range 2 {
		counted := count(offer.note(n) + routes)
		if len(strconv.Itoa(counted)) == len(strconv.Itoa(n)) {
			n = counted
			break
		}
		n = counted
	}
	if !offer.pays(n) {
		// Folding does not pay at this budget.
		return count(routes), routes
	}
	return n, offer.note(n) + routes
}

// guessParts is about how many parts a patch of size bytes takes at b: a
// count's first guess, which only its number of digits need get right.
func guessParts(b paging.Budget, size int64) int {
	per := int64(max(b.MaxBytes-partFraming, b.MaxBytes/2)) * 97 / 100
	return int((size+size/10)/per) + 1
}

// pullDiffPart is a part of a pull request's diff as fitted, with the part
// it holds.
type pullDiffPart struct {
	textReply
	part *paging.Part
}

// fileNotInPull: file_path names no file of the pull request's diff.
func (s *Server) fileNotInPull(ctx context.Context, r *repo.Repository, pr *repo.PullRequest, opts git.DiffOptions, in getPullRequestDiffIn, path string) error {
	near := argcheck.NewPathsNear(path)
	if _, err := r.Git.EachChange(ctx, opts, func(_ int, c git.Change) error {
		near.Add(c.OldPath, c.Path)
		return nil
	}); err != nil {
		return err
	}
	return pathNotFound(near, fmt.Sprintf("%s#%d", r.FullName(), pr.Index), whyEmpty(pr), in, s.budget(ctx).ErrorRoom())
}

// pathNotFound is NOT_FOUND for file_path, in the diff of pull request name
// (empty says why it has no file). A directory of the diff is said to be
// one, with the call that gives its files; another path gets the names
// closest to it, not the whole list (a pull request of 700 files made a
// 14 KB error), in room bytes (names can be long).
func pathNotFound(n *argcheck.PathsNear, name, empty string, in getPullRequestDiffIn, room int) error {
	switch {
	case n.Total == 0:
		return errcode.New(errcode.NotFound, "file_path %q is not in the diff of %s: %s", n.Path, name, empty)
	case n.Under > 0:
		call := in
		call.FilePath, call.Paths, call.Cursor = "", []string{n.Path}, ""
		return errcode.New(errcode.NotFound, "file_path %q is a directory of the diff of %s, with %s under it; file_path names one file, paths takes directories: get_pull_request_diff %s gives them",
			n.Path, name, text.Count(n.Under, "changed file"), paging.PlainJSON(paging.Continue("get_pull_request_diff", call).Arguments))
	case len(n.Closest()) == 0:
		return errcode.New(errcode.NotFound, "file_path %q is not in the diff of %s, and none of its %s has a name close to it; list_pull_request_files lists them", n.Path, name, text.Count(n.Total, "file"))
	}
	return errcode.New(errcode.NotFound, "file_path %q is not in the diff of %s; of its %s, the closest by name: %s; list_pull_request_files lists them all",
		n.Path, name, text.Count(n.Total, "file"), paging.FileList(text.Names(n.Closest()), nil, len(n.Closest()), room, ""))
}

// checkFilePath cleans file_path ("" when omitted) and applies the policy.
func (s *Server) checkFilePath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	path, err := repo.CleanPath(p)
	if err != nil {
		return "", err
	}
	if path == "" {
		return "", errcode.New(errcode.InvalidArgument, "file_path names the root; omit it for the whole diff")
	}
	if s.cfg.Policy.Denied(path) {
		return "", errcode.New(errcode.PathDenied, "file_path %q is hidden by the server's secrets policy", path)
	}
	return path, nil
}

// emptyPull is the reply of a pull request's diff, or selection of it by
// paths, that holds no file: why.
func (s *Server) emptyPull(ctx context.Context, r *repo.Repository, pr *repo.PullRequest, opts git.DiffOptions) (textReply, error) {
	name := fmt.Sprintf("%s#%d", r.FullName(), pr.Index)
	reason, all, err := whyNoFile(ctx, r, opts)
	if err != nil {
		return textReply{}, err
	}
	if reason == emptyNoPathMatched {
		return textReply{Text: name + ": " + noPathMatchedText(all)}, nil
	}
	return textReply{Text: fmt.Sprintf("The diff of %s is empty: %s%s.\n", name, whyEmpty(pr), checkedOutBase(ctx, r, pr))}, nil
}

// whyEmpty says why a pull request's diff is empty, with its commits.
func whyEmpty(pr *repo.PullRequest) string {
	if pr.Head == pr.MergeBase {
		return fmt.Sprintf("its head %s is already part of its base (it is the merge base), so no file differs; list_commits with index=%d lists the commits its merge brought in (or says why a fast-forward cannot tell them)", git.Short(pr.Head), pr.Index)
	}
	return fmt.Sprintf("no file differs between its merge base %s and its head %s", git.Short(pr.MergeBase), git.Short(pr.Head))
}
