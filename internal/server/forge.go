package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// Forge mode: the tools whose contract is the forge's own (the
// Forgejo/Gitea-compatible contract of docs/contracts.md) answer from its
// API; get_diff, list_changed_files, read_file and search_code read mirrors.

// forgeRepo checks owner/repo before they go into an API path.
func forgeRepo(owner, name string) error {
	if !repo.ValidName(owner) || !repo.ValidName(name) {
		return errcode.New(errcode.InvalidArgument, "%q/%q is not a repository name: names use letters, digits, '-', '_' and '.'", owner, name)
	}
	return nil
}

// forgeName is the name of a repository the forge's API answers for: what
// the cursors of its answers are made for.
func forgeName(owner, name string) string { return owner + "/" + name }

// pullRequestDiff pages the forge's own diff of the pull request, as the
// local backend pages git's: the forge's .diff is read as a stream (narrowed
// to file_path's sections by diff.Filter) and cut by diff.ReadPage. The
// cursor pins the head: the forge diffs the pull request as it is now, so a
// head that moved between two parts is refused rather than mixed.
func (b forgeBackend) pullRequestDiff(ctx context.Context, in getPullRequestDiffIn, path string) (textReply, error) {
	if err := forgeRepo(in.Owner, in.Repo); err != nil {
		return textReply{}, err
	}
	if in.gitOptions() {
		// The forge's diff has no paths, context or whitespace options:
		// git diffs the pull request's commits in the mirror, as
		// list_commits index reads them.
		return localBackend{s: b.s}.pullRequestDiff(ctx, in, path)
	}
	s := b.s
	const tool = "get_pull_request_diff"
	digest := paging.ArgsDigest(in, "cursor")
	var cur paging.Cursor
	if in.Cursor != "" {
		var err error
		if cur, err = s.cursors.Decode(tool, in.Cursor, digest); err != nil {
			return textReply{}, err
		}
		if err := cur.MadeFor(forgeName(in.Owner, in.Repo)); err != nil {
			return textReply{}, err
		}
		if len(cur.Commits) != 3 {
			return textReply{}, paging.ErrBadPosition()
		}
	}
	// The pull request's commits are asked for only when a part needs
	// them: to check a cursor's head, or to head a partial reply.
	var pr *forge.Pull
	pull := func() error {
		var err error
		if pr == nil {
			if pr, err = b.f.Pull(ctx, in.Owner, in.Repo, in.Index); err != nil {
				return pullNotFound(err, in.Owner, in.Repo, in.Index)
			}
		}
		return nil
	}
	if in.Cursor != "" {
		if err := pull(); err != nil {
			return textReply{}, err
		}
		if cur.Commits[2] != pr.Head.SHA {
			return textReply{}, headMoved(in.Index, cur.Commits[2], pr.Head.SHA)
		}
	}
	// The forge's diff is read as a stream from its start, as often as
	// fitting a part to its notes asks (paging.Replay): the room a part
	// is read in is reckoned as git's parts are (get_pull_request_diff.go),
	// not with room for the longest notes a part could have.
	open := func() (io.ReadCloser, error) {
		body, err := b.f.PullDiff(ctx, in.Owner, in.Repo, in.Index)
		if err != nil {
			return nil, b.diffNotFound(ctx, err, in.Owner, in.Repo, in.Index)
		}
		return body, nil
	}
	q := paging.StreamRequest{Start: cur.Start(), Split: paging.SplitOf(cur), Hide: s.hiddenSection, Cost: s.budget(ctx).Cost()}
	var stream *paging.Replay
	shared := sharedByCount(ctx)
	if shared != nil {
		// Counting parts (partcount.go): every part reads the same diff,
		// from a section an earlier part passed.
		if shared.stream == nil {
			shared.stream = paging.NewReplay(open, countKeep)
		}
		stream = shared.stream
		if path == "" {
			from := shared.before(q.Start.Change)
			if _, kept := stream.ReaderFrom(from.Offset); kept { // else from the start
				q.From = from
			}
			q.SectionAt = shared.passed
		}
	} else {
		stream = paging.NewReplay(open, replayKeep(s.budget(ctx)))
		defer stream.Close()
	}
	name := fmt.Sprintf("%s/%s#%d", in.Owner, in.Repo, in.Index)
	var near *argcheck.PathsNear
	source := func() io.Reader {
		near = argcheck.NewPathsNear(path)
		if path == "" {
			r, _ := stream.ReaderFrom(q.From.Offset) // what is kept only grows
			return r
		}
		return diff.Filter(stream.Reader(), func(h diff.Header) bool {
			near.Add(h.OldPath, paging.SectionName(h))
			return h.Matches(path)
		})
	}
	first := in.Cursor == ""
	files, size := cur.Files, cur.Bytes
	if first {
		// As git's: a diff that fits comes whole, exactly as the forge
		// wrote it; a larger one is headed by the size this read counted.
		whole := q
		whole.Room, whole.CountRest = s.budget(ctx).PayloadRoom(textReply{}), true
		part, err := paging.ReadStreamPart(source(), whole)
		if err != nil {
			return textReply{}, err
		}
		page := part.Page
		hidden := false
		for _, f := range page.Files {
			hidden = hidden || f.Hidden
		}
		switch {
		case path != "" && len(page.Files) == 0:
			return textReply{}, pathNotFound(near, name, "no file differs between its head and its merge base with its base", in, s.budget(ctx).ErrorRoom())
		case path != "" && hidden:
			return textReply{}, errcode.New(errcode.PathDenied, "file_path %q is renamed from or to a path hidden by the server's secrets policy", path)
		case page.Next == nil && !paging.NeedsNotes(page):
			if len(page.Files) == 0 {
				return textReply{Text: fmt.Sprintf("The diff of %s is empty: no file differs between its head and its merge base with its base.\n", name)}, nil
			}
			return textReply{Text: string(page.Text)}, nil
		}
		if page.Total != nil {
			files, size = page.Total.Files, page.Total.Bytes
		}
	}
	if err := pull(); err != nil {
		return textReply{}, err
	}
	place, routes := placeOf(cur, first, 0), ""
	if first {
		place.n, routes = s.pullDiffParts(ctx, in, []string{pr.Base.SHA, pr.MergeBase, pr.Head.SHA}, files, size, func(ctx context.Context, cursor string) (*paging.Call, error) {
			more := in
			more.Cursor = cursor
			r, err := b.pullRequestDiff(ctx, more, path)
			return r.Next, err
		})
	}
	read := func(room int) (*paging.Part, error) {
		q.Room = room
		part, err := paging.ReadStreamPart(source(), q)
		if err != nil {
			return nil, err
		}
		part.Total = files
		if path != "" {
			part.Total = part.Last + 1
		}
		return part, nil
	}
	notes := func(p *paging.Part) string {
		s.flagGenerated(ctx, nil, "", p)
		return routes + p.Notes(s.noteRules(pr.Head.SHA))
	}
	next := in
	next.Cursor = paging.CursorProbe
	build := func(part *paging.Part, partNotes string) pullDiffPart {
		head := pullDiffHead{name: name, base: pr.Base.SHA, head: pr.Head.SHA, mergeBase: pr.MergeBase, first: first, path: path, files: files, size: size, place: place}
		out := textReply{Text: head.text(part) + string(part.Page.Text) + partNotes}
		if part.Next != nil {
			c := paging.Cursor{Tool: tool, Args: digest, Commits: []string{pr.Base.SHA, pr.MergeBase, pr.Head.SHA}, Files: files, Bytes: size}
			part.CursorAt(&c)
			place.carry(&c)
			more := next
			more.Cursor = s.cursors.Encode(c, forgeName(in.Owner, in.Repo))
			out.Next = paging.Continue(tool, more)
		}
		return pullDiffPart{out, part}
	}
	room := s.budget(ctx).PayloadRoom(textReply{Text: strings.Repeat("x", 300+len(name)+len(path)), Next: paging.Continue(tool, next)})
	res, err := paging.FitPart(s.budget(ctx), room, 0, read, notes, build)
	if err != nil {
		return textReply{}, err
	}
	return res.textReply, nil
}

// replayKeep is how much of a forge's diff a call keeps to read a part
// again from memory: what a part of its reply holds, four times over,
// and what reading it reads ahead.
func replayKeep(b paging.Budget) int { return 4*max(b.MaxBytes, b.Ceiling) + 128<<10 }

// countKeep is how much of a forge's diff a count of its parts keeps, so
// that its parts are read from memory and not each from the forge: a
// larger diff is counted reading the forge's again past it, or not in time.
const countKeep = 8 << 20

// headMoved: a forge's pull request changed between two parts of a reply.
func headMoved(index int, was, now string) error {
	return errcode.New(errcode.InvalidArgument, "pull request #%d's head moved from %s to %s since the first part; leave cursor out to start again", index, git.Short(was), git.Short(now))
}

// pullNotFound words the forge's 404 for a pull request.
func pullNotFound(err error, owner, name string, index int) error {
	if errcode.Of(err) == errcode.NotFound {
		return errcode.New(errcode.NotFound, "pull request #%d does not exist in %s/%s (or the token cannot see it)", index, owner, name)
	}
	return err
}

// diffNotFound tells a 404 on a pull request's .diff from a pull request
// that does not exist: some forges (or proxies before them) serve the
// pull request but not its diff.
func (b forgeBackend) diffNotFound(ctx context.Context, err error, owner, name string, index int) error {
	if errcode.Of(err) != errcode.NotFound {
		return err
	}
	if _, perr := b.f.Pull(ctx, owner, name, index); perr != nil {
		return pullNotFound(perr, owner, name, index)
	}
	return errcode.New(errcode.Unavailable, "the forge answered 404 Not Found for the diff of pull request #%d of %s/%s (pulls/%d.diff), though the pull request exists: "+
		"this forge (or a proxy before it) does not serve pull request diffs; get_pull_request gives its base and head, and get_diff with them reads the diff from the mirror", index, owner, name, index)
}

// fileContent answers get_file_content from the forge's API: its own
// ContentsResponse with metadata, else the raw bytes sliced like a local
// file.
func (b forgeBackend) fileContent(ctx context.Context, in getFileContentIn, path string) (textReply, error) {
	if err := forgeRepo(in.Owner, in.Repo); err != nil {
		return textReply{}, err
	}
	s, f := b.s, b.f
	if in.WithMetadata {
		data, err := f.Contents(ctx, in.Owner, in.Repo, path, in.Ref)
		if err != nil {
			return textReply{}, err
		}
		if data, err = s.hideDenied(data); err != nil {
			return textReply{}, err
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err == nil {
			data = compact.Bytes()
		}
		out := textReply{Text: string(data)}
		if n := s.budget(ctx).ReplySize(out); n > s.budget(ctx).MaxBytes {
			return textReply{}, errcode.New(errcode.TooLarge, "the forge's ContentsResponse for %q is %d bytes as JSON, over the %d-byte reply limit; without with_metadata, start_line/end_line return the text in ranges", repo.DisplayPath(path), n, s.budget(ctx).MaxBytes)
		}
		return out, nil
	}
	if path == "" {
		return textReply{}, errcode.New(errcode.InvalidArgument, "filePath is empty: give the path of a file")
	}
	ref := in.Ref
	if ref != "" {
		if err := repo.CheckRev(ref); err != nil {
			return textReply{}, err
		}
		var err error
		if ref, err = f.ResolveRef(ctx, in.Owner, in.Repo, ref); err != nil {
			return textReply{}, err
		}
	}
	body, err := f.Raw(ctx, in.Owner, in.Repo, path, ref)
	if errcode.Of(err) == errcode.NotFound {
		// The raw endpoint has no directories: tell one from a missing path.
		if data, cerr := f.Contents(ctx, in.Owner, in.Repo, path, ref); cerr == nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
			return textReply{}, errcode.New(errcode.InvalidArgument, "%q is a directory, not a file", path)
		}
		at := "the default branch"
		if in.Ref != "" {
			at = repo.DescribeRef(in.Ref, ref)
		}
		return textReply{}, errcode.New(errcode.NotFound, "%q does not exist at %s in %s/%s", path, at, in.Owner, in.Repo)
	}
	if err != nil {
		return textReply{}, err
	}
	defer body.Close()
	return s.sliceFile(ctx, path, -1, body, in)
}

// hideDenied drops from a directory listing (a JSON array) the entries the
// secrets policy hides, leaving every other entry exactly as the forge
// wrote it.
func (s *Server) hideDenied(data json.RawMessage) (json.RawMessage, error) {
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
		return data, nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, errcode.New(errcode.Unavailable, "the forge's directory listing is not the JSON expected: %v", err)
	}
	var kept [][]byte
	for _, e := range entries {
		var entry struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(e, &entry) == nil && !s.cfg.Policy.Denied(entry.Path) {
			kept = append(kept, e)
		}
	}
	return json.RawMessage("[" + string(bytes.Join(kept, []byte(","))) + "]"), nil
}
