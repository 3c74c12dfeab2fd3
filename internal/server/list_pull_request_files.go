package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

type listPullRequestFilesIn struct {
	Owner string `json:"owner,omitempty" jsonschema:"repository owner; optional when one repository is served"`
	Repo  string `json:"repo,omitempty" jsonschema:"repository name; optional when one repository is served"`
	Index int    `json:"index" jsonschema:"pull request number"`
	Page  int    `json:"page,omitempty" jsonschema:"1-based page"`
	Limit int    `json:"limit,omitempty" jsonschema:"files per page"`
	// Cursor pins the commits of the first page, so that pages of a pull
	// request whose head moves cannot mix.
	Cursor string `json:"cursor,omitempty" jsonschema:"leave out for the first page; a partial reply's last line gives the exact call for the next page, this cursor included (also in the result's _meta mcp-repo-tools/next): make it as given, until a reply has none. It pins the pull request's commits as the first page saw them, so a push cannot shift the pages"`
}

type listPullRequestFilesOut struct {
	Index      int           `json:"index"`
	Base       string        `json:"base" jsonschema:"the base commit"`
	Head       string        `json:"head" jsonschema:"the head commit"`
	MergeBase  string        `json:"mergeBase" jsonschema:"where the pull request's diff starts"`
	Files      []changedFile `json:"files"`
	TotalCount int           `json:"totalCount"`
	Page       int           `json:"page"`
	HasMore    bool          `json:"hasMore" jsonschema:"true when later pages hold more files"`
	paged
	// repoName is the repository the next page's cursor is made for.
	repoName string
}

// listPullRequestFilesTool is list_pull_request_files's definition (registry.go).
var listPullRequestFilesTool = defineTool(toolSpec{
	Name:  "list_pull_request_files",
	Title: "List pull request files",
	Description: "List the files a pull request changes, by number: path, previous path, status, lines added and deleted, each file's patch size in bytes; the first line gives the file count and total patch bytes. " +
		"Read it before get_pull_request_diff: fewer than 3 parts of patch (total ÷ ~55,000 bytes a part at the default 64 KiB limit) or mostly pure renames cost fewer calls as the whole diff; else ask file by file (file_path) or by directory (paths). " +
		"For two refs use list_changed_files. Test and generated files are flagged. " +
		"Paged with offset (or page) and limit, up to 5,000 files, cut to fit one reply: a partial reply ends with the call for the next page (see cursor).",
	Tune: func(in *jsonschema.Schema) {
		setInt(in, "index", 0, 1, 1<<31-1)
		setInt(in, "page", 1, 1, 1<<31-1)
		setInt(in, "limit", 50, 1, 100)
	},
}, (*Server).listPullRequestFiles)

func (s *Server) listPullRequestFiles(ctx context.Context, in listPullRequestFilesIn) (reply[listPullRequestFilesOut], error) {
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return reply[listPullRequestFilesOut]{}, err
	}
	const tool = "list_pull_request_files"
	digest := argsDigest(in, "cursor", "page")
	var pinned *cursor
	if in.Cursor != "" {
		cur, err := s.cursors.decode(tool, in.Cursor, digest)
		if err != nil {
			return reply[listPullRequestFilesOut]{}, err
		}
		pinned = &cur
	}
	out, err := s.backend.pullRequestFiles(ctx, in, pinned)
	if err != nil {
		return reply[listPullRequestFilesOut]{}, err
	}
	files := out.Files
	from := (in.Page - 1) * in.Limit
	// A page that does not fit is an error rather than a silent cut: pages
	// are fixed by page and limit, so the next page could not follow on.
	var b strings.Builder
	b.WriteString(pullHeader(in.Owner, in.Repo, in.Index, out.TotalCount, out.Base, out.MergeBase, out.Head))
	if len(files) < out.TotalCount {
		fmt.Fprintf(&b, "; page %d: %s", in.Page, shownRange(from, len(files), out.TotalCount, "file"))
	}
	b.WriteString("\n")
	for _, f := range files {
		b.WriteString(f.line())
	}
	res := reply[listPullRequestFilesOut]{text: b.String(), out: out}
	if out.HasMore {
		next := in
		next.Page++
		next.Cursor = s.cursors.encode(cursor{Tool: tool, Args: digest, Commits: []string{out.Base, out.MergeBase, out.Head}}, out.repoName)
		res.next = continueWith(tool, next)
	}
	if n := s.replySize(res); n > s.cfg.MaxBytes {
		if len(files) == 1 { // a smaller limit cannot help
			return reply[listPullRequestFilesOut]{}, errcode.New(errcode.TooLarge, "file %d with its names takes %d bytes, over the %d-byte reply limit; %s", from+1, n, s.cfg.MaxBytes, noNarrowing)
		}
		return reply[listPullRequestFilesOut]{}, errcode.New(errcode.TooLarge, "%d files with their names take %d bytes, over the %d-byte reply limit; ask for fewer per page with a smaller limit", len(files), n, s.cfg.MaxBytes)
	}
	return res, nil
}

func (b localBackend) pullRequestFiles(ctx context.Context, in listPullRequestFilesIn, pinned *cursor) (listPullRequestFilesOut, error) {
	s := b.s
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index, pinned)
	if err != nil {
		return listPullRequestFilesOut{}, err
	}
	from := (in.Page - 1) * in.Limit
	page, total, err := r.Git.ChangedFilesPage(ctx, opts, from, in.Limit)
	if err != nil {
		return listPullRequestFilesOut{}, goneCommit(r, pinned != nil, err)
	}
	out := listPullRequestFilesOut{Index: pr.Index, Base: pr.Base, Head: pr.Head, MergeBase: pr.MergeBase, TotalCount: total, Page: in.Page, repoName: r.FullName()}
	out.Files = make([]changedFile, len(page))
	for i, c := range page {
		out.Files[i] = s.changedFile(c)
	}
	s.markGenerated(ctx, r, pr.Head, out.Files)
	out.HasMore = from+len(out.Files) < total
	return out, nil
}

// pullRequestFiles reports what the forge says, status words included (a
// changed binary file may come back as "unchanged" with 0/0).
func (b forgeBackend) pullRequestFiles(ctx context.Context, in listPullRequestFilesIn, pinned *cursor) (listPullRequestFilesOut, error) {
	if err := forgeRepo(in.Owner, in.Repo); err != nil {
		return listPullRequestFilesOut{}, err
	}
	if pinned != nil {
		if err := pinned.madeFor(forgeName(in.Owner, in.Repo)); err != nil {
			return listPullRequestFilesOut{}, err
		}
		if len(pinned.Commits) != 3 {
			return listPullRequestFilesOut{}, errCursor("is damaged or was edited")
		}
	}
	s, f := b.s, b.f
	pr, err := f.Pull(ctx, in.Owner, in.Repo, in.Index)
	if err != nil {
		return listPullRequestFilesOut{}, pullNotFound(err, in.Owner, in.Repo, in.Index)
	}
	// The forge lists the pull request as it is now: a head that moved
	// since the first page would mix two versions.
	if pinned != nil && pinned.Commits[2] != pr.Head.SHA {
		return listPullRequestFilesOut{}, headMoved(in.Index, pinned.Commits[2], pr.Head.SHA)
	}
	files, total, err := f.PullFiles(ctx, in.Owner, in.Repo, in.Index, in.Page, in.Limit)
	if err != nil {
		return listPullRequestFilesOut{}, err
	}
	out := listPullRequestFilesOut{Index: in.Index, Base: pr.Base.SHA, Head: pr.Head.SHA, MergeBase: pr.MergeBase, TotalCount: total, Page: in.Page, Files: []changedFile{},
		repoName: forgeName(in.Owner, in.Repo)}
	for _, cf := range files {
		p := changedFile{Path: cf.Filename, Status: cf.Status, IsTest: isTestPath(cf.Filename)}
		if cf.PreviousFilename != "" && cf.PreviousFilename != cf.Filename {
			p.OldPath = ptr(cf.PreviousFilename)
		}
		if !s.cfg.Policy.Denied(cf.Filename) && !s.cfg.Policy.Denied(cf.PreviousFilename) {
			p.Additions, p.Deletions = ptr(cf.Additions), ptr(cf.Deletions)
		}
		out.Files = append(out.Files, p)
	}
	// The forge's list says nothing of attributes: names decide.
	s.markGenerated(ctx, nil, "", out.Files)
	if total < 0 { // the forge sent no count
		out.TotalCount = (in.Page-1)*in.Limit + len(files)
	}
	out.HasMore = (in.Page-1)*in.Limit+len(files) < out.TotalCount
	return out, nil
}
