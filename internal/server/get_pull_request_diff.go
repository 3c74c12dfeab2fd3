package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type getPullRequestDiffIn struct {
	Owner    string `json:"owner" jsonschema:"repository owner"`
	Repo     string `json:"repo" jsonschema:"repository name"`
	Index    int    `json:"index" jsonschema:"pull request number"`
	FilePath string `json:"file_path,omitempty" jsonschema:"return only this file's diff --git section (either side of a rename matches); omit for the whole diff"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"leave out for the first part; a partial reply's last line gives the exact call for the next part, this cursor included (also in the result's _meta mcp-repo-tools/next): make it as given, until a reply has none. It says where the next part starts and pins the same base, head and merge base, so a pull request that moves cannot mix parts"`
}

// getPullRequestDiffTool is get_pull_request_diff's definition (registry.go).
var getPullRequestDiffTool = defineTool(toolSpec{
	Name:  "get_pull_request_diff",
	Title: "Get pull request diff",
	Description: "Get a pull request's unified diff by number, from the merge base of its base and head as the forge shows it: the whole diff, one file (file_path, either side of a rename), or files and directories (paths). " +
		"Read list_pull_request_files first: from its total patch bytes, fewer than 3 parts (total ÷ ~55,000 bytes a part at the default 64 KiB limit) or mostly pure renames cost fewer calls as the whole diff than file by file. " +
		"For two refs use get_diff, for one commit get_commit. contextLines and ignoreWhitespace shape the hunks. " +
		"What fits comes exactly as git prints it; a larger diff comes in parts, each headed by the base, head and merge base, a big file's patch split between hunks with valid @@ headers." + partEnds,
	Tune: func(in *jsonschema.Schema) {
		setInt(in, "index", 0, 1, 1<<31-1)
	},
}, (*Server).getPullRequestDiff)

func (s *Server) getPullRequestDiff(ctx context.Context, in getPullRequestDiffIn) (textReply, error) {
	path, err := s.checkFilePath(in.FilePath)
	if err != nil {
		return textReply{}, err
	}
	return s.backend.pullRequestDiff(ctx, in, path)
}

func (lb localBackend) pullRequestDiff(ctx context.Context, in getPullRequestDiffIn, path string) (textReply, error) {
	s := lb.s
	const tool = "get_pull_request_diff"
	digest := argsDigest(in, "cursor")
	var cur cursor
	var pinned *cursor
	if in.Cursor != "" {
		var err error
		if cur, err = s.cursors.decode(tool, in.Cursor, digest); err != nil {
			return textReply{}, err
		}
		pinned = &cur
	}
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index, pinned)
	if err != nil {
		return textReply{}, err
	}
	name := fmt.Sprintf("%s#%d", r.FullName(), pr.Index)
	var only *changeFilter
	if path != "" {
		// Either side of a rename names it; the file list, with rename
		// detection over the whole pull request, finds the other side.
		only = &changeFilter{key: "file_path " + path, keep: func(c git.Change) bool { return c.Path == path || c.OldPath == path }}
	}
	next := in
	next.Cursor = strings.Repeat("x", 400)
	first := in.Cursor == ""
	q := partRequest{
		repo: r, opts: opts, only: only, hide: s.hiddenSection,
		start: partPos{change: cur.File, section: cur.Section, line: cur.Line},
	}
	files, size := cur.Files, cur.Bytes // the whole diff's, as the first part counted them
	if first {
		// A diff that fits comes whole, exactly as git prints it, with no
		// header, notes or next call: it may use the whole reply. Only a
		// larger one is cut again as a first part, with room for those
		// (from the patch cache, which this read filled), and headed by
		// the size this read counted.
		whole := q
		whole.room, whole.countRest = s.payloadRoom(textReply{}), path == ""
		part, err := s.readPart(ctx, whole)
		if err != nil {
			return textReply{}, err
		}
		if part.next == nil && !needsNotes(part.page) && !anyHidden(part.page) && !hasHiddenChars(part.page) && (path == "" || part.total > 0) {
			if part.total == 0 {
				return textReply{text: fmt.Sprintf("The diff of %s is empty: %s.\n", name, whyEmpty(pr))}, nil
			}
			return textReply{text: string(part.page.Text)}, nil
		}
		if files, size = part.total, 0; path == "" && part.page.Total != nil {
			size = part.page.Total.Bytes
		}
	}
	read := func(room int) (*diffPart, error) {
		q.room = room
		return s.readPart(ctx, q)
	}
	notes := func(p *diffPart) string {
		s.flagGenerated(ctx, r, pr.Head, p)
		return s.partNotes(p, pr.Head)
	}
	room := s.payloadRoom(textReply{text: strings.Repeat("x", 300+len(name)+len(path)), next: continueWith(tool, next)})
	part, partNotes, _, err := partWithNotes(room, 0, read, notes)
	if err != nil {
		return textReply{}, err
	}
	if path != "" && part.total == 0 {
		return textReply{}, s.fileNotInPull(ctx, r, pr, opts, path)
	}
	if path != "" && len(part.page.Files) > 0 && part.page.Files[0].Hidden {
		return textReply{}, errcode.New(errcode.PathDenied, "file_path %q is renamed from or to a path hidden by the server's secrets policy", path)
	}
	var b strings.Builder
	b.Grow(512 + len(name) + len(path) + len(part.page.Text) + len(partNotes))
	fmt.Fprintf(&b, "%s: base %s, head %s, merge base %s", name, pr.Base, pr.Head, pr.MergeBase)
	if path != "" {
		fmt.Fprintf(&b, "; %s", text.Name(path))
	} else if size > 0 {
		fmt.Fprintf(&b, "; %s, %d bytes of patch", count(files, "file"), size)
	}
	b.WriteString("; this part: " + partRange(part) + "\n")
	b.Write(part.page.Text)
	b.WriteString(partNotes)
	out := textReply{text: b.String()}
	if part.next != nil {
		c := cursor{Tool: tool, Args: digest, Commits: []string{pr.Base, pr.MergeBase, pr.Head},
			File: part.next.change, Section: part.next.section, Line: part.next.line, Files: files, Bytes: size}
		next.Cursor = s.cursors.encode(c, r.FullName())
		out.next = continueWith(tool, next)
	}
	return out, nil
}

// fileNotInPull: file_path names no file of the pull request's diff.
func (s *Server) fileNotInPull(ctx context.Context, r *repo.Repository, pr *repo.PullRequest, opts git.DiffOptions, path string) error {
	_, _, total, names, err := s.findChange(ctx, r, opts, path)
	if err != nil {
		return err
	}
	if total == 0 {
		return errcode.New(errcode.NotFound, "file_path %q is not in the diff of %s#%d: %s", path, r.FullName(), pr.Index, whyEmpty(pr))
	}
	return errcode.New(errcode.NotFound, "file_path %q is not in the diff of %s#%d (%d files: %s)", path, r.FullName(), pr.Index, total, names)
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

// findChange looks for path on either side of a change in the diff's file
// list, streamed: it returns the change, or else how many files the diff
// has and as many of their names as an error message can hold.
func (s *Server) findChange(ctx context.Context, r *repo.Repository, opts git.DiffOptions, path string) (git.Change, bool, int, string, error) {
	var found git.Change
	names := fileTally{room: s.errorRoom()}
	total, err := r.Git.EachChange(ctx, opts, func(_ int, c git.Change) error {
		if c.Path == path || c.OldPath == path {
			found = c
			return git.ErrStop
		}
		names.add(c.Path, 0, false)
		return nil
	})
	if err != nil || found.Path != "" {
		return found, found.Path != "", total, "", err
	}
	return git.Change{}, false, total, names.String(), nil
}

// whyEmpty says why a pull request's diff is empty, with its commits.
func whyEmpty(pr *repo.PullRequest) string {
	if pr.Head == pr.MergeBase {
		return fmt.Sprintf("its head %s is already part of its base (it is the merge base), so no file differs", short(pr.Head))
	}
	return fmt.Sprintf("no file differs between its merge base %s and its head %s", short(pr.MergeBase), short(pr.Head))
}
