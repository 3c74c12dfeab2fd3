package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

type listPullRequestFilesIn struct {
	Owner  string `json:"owner,omitempty"`
	Repo   string `json:"repo,omitempty"`
	Index  int    `json:"index"`
	Page   int    `json:"page,omitempty" jsonschema:"1-based page of limit files"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most files (a forge's page at most)"`
	// Cursor pins the commits of the first page, so that pages of a pull
	// request whose head moves cannot mix.
	Cursor string `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	paging.ReplyLimit
}

// pullFile is a file of a pull request: as every file list says it, and
// the size of its patch.
type pullFile struct {
	changedFile
	PatchBytes *int64 `json:"patchBytes" jsonschema:"bytes of the file's diff --git section in the pull request's patch, exactly as git prints it (get_pull_request_diff with file_path returns that section); null when the file is hidden by the secrets policy; from a forge, the size of its section in the forge's patch"`
}

type listPullRequestFilesOut struct {
	Index      int        `json:"index"`
	Base       string     `json:"base" jsonschema:"the base commit"`
	Head       string     `json:"head" jsonschema:"the head commit"`
	MergeBase  string     `json:"mergeBase" jsonschema:"where the pull request's diff starts"`
	Files      []pullFile `json:"files"`
	TotalCount int        `json:"totalCount"`
	PatchBytes *int64     `json:"patchBytes" jsonschema:"bytes of the pull request's whole patch as git prints it (git diff -M merge-base head), hidden files not counted: what get_pull_request_diff's parts hold together, the total its first line says; from a forge, its patch's size"`
	// patchEscaped is the whole patch JSON-escaped, where it was counted
	// (0: not): how many parts reading it takes.
	patchEscaped int64
	Page         int  `json:"page" jsonschema:"the page asked for (1 when offset is given)"`
	Offset       int  `json:"offset" jsonschema:"files before this reply's first"`
	NextOffset   *int `json:"nextOffset" jsonschema:"offset of the next call, null at the end"`
	HasMore      bool `json:"hasMore" jsonschema:"true when more files follow this reply's"`
	paging.Paged
	// repoName is the repository the next page's cursor is made for.
	repoName string
}

// listPullRequestFilesTool is list_pull_request_files's definition (registry.go).
var listPullRequestFilesTool = defineTool(toolSpec{
	Name:  "list_pull_request_files",
	Title: "List pull request files",
	Description: "List the files a pull request (index) changes, a page at a time: status, path, lines added and deleted, patch bytes, test and generated marks, totals first; before get_pull_request_diff. " +
		wholeDiff +
		" Two refs: list_changed_files.",
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "index", 0, 1, 1<<31-1)
		argcheck.SetInt(in, "page", 1, 1, 1<<31-1)
		argcheck.SetInt(in, "offset", 0, 0, 1<<31-1)
		argcheck.SetInt(in, "limit", 500, 1, 5000)
	},
}, (*Server).listPullRequestFiles)

const listPullRequestFilesName = "list_pull_request_files"

func (s *Server) listPullRequestFiles(ctx context.Context, in listPullRequestFilesIn) (reply[listPullRequestFilesOut], error) {
	const tool = listPullRequestFilesName
	var none reply[listPullRequestFilesOut]
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return none, err
	}
	// page is a shorthand for an offset; the next call gives the offset.
	if in.Page > 1 {
		if in.Offset != 0 && in.Offset != (in.Page-1)*in.Limit {
			return none, errcode.New(errcode.InvalidArgument, "page %d with limit %d starts at offset %d, but offset is %d: give page or offset (both only when they agree)", in.Page, in.Limit, (in.Page-1)*in.Limit, in.Offset)
		}
		in.Offset = (in.Page - 1) * in.Limit
	}
	digest := paging.ArgsDigest(in, "cursor", "page", "offset")
	var pinned *paging.Cursor
	if in.Cursor != "" {
		cur, err := s.cursors.Decode(tool, in.Cursor, digest)
		if err != nil {
			return none, err
		}
		pinned = &cur
	}
	out, err := s.backend.pullRequestFiles(ctx, in, pinned)
	if err != nil {
		return none, err
	}
	files := out.Files
	from := min(in.Offset, out.TotalCount)
	parts := ""
	if out.PatchBytes != nil && in.Offset == 0 {
		parts = s.wholeDiffParts(ctx, in.Owner, in.Repo, in.Index, []string{out.Base, out.MergeBase, out.Head}, out.TotalCount, *out.PatchBytes, out.patchEscaped)
	}
	lead := "" // a note before the files
	render := func(n int) reply[listPullRequestFilesOut] {
		o := out
		o.Files, o.Offset, o.NextOffset = files[:n], in.Offset, nil
		if next := from + n; next < o.TotalCount {
			o.NextOffset = &next
		}
		o.HasMore = o.NextOffset != nil
		var b strings.Builder
		if in.Cursor == "" {
			b.WriteString(pullHeaderBytes(in.Owner, in.Repo, in.Index, o.TotalCount, o.PatchBytes, o.Base, o.MergeBase, o.Head))
		} else { // the first page named the commits; the cursor pins them
			fmt.Fprintf(&b, "%s/%s#%d (the commits of the first page)", in.Owner, in.Repo, in.Index)
		}
		if o.PatchBytes != nil && in.Offset == 0 {
			b.WriteString("; " + parts)
		}
		if n < o.TotalCount {
			b.WriteString("; " + paging.Shown(in.Offset, n, o.TotalCount, "file", "list_pull_request_files", in))
		}
		b.WriteString("\n" + lead)
		for _, f := range o.Files {
			b.WriteString(f.line())
		}
		res := reply[listPullRequestFilesOut]{Text: b.String(), Out: o}
		if o.NextOffset != nil {
			next := in
			next.Page, next.Offset = 0, *o.NextOffset
			c := paging.Cursor{Tool: tool, Args: digest, Commits: []string{o.Base, o.MergeBase, o.Head}}
			if o.PatchBytes != nil {
				c.Bytes = *o.PatchBytes
			}
			next.Cursor = s.cursors.Encode(c, o.repoName)
			res.Next = paging.Continue(tool, next)
		}
		return res
	}
	if len(files) == 0 {
		return render(0), nil
	}
	whole := files[0]
	cut := func(keep int) reply[listPullRequestFilesOut] {
		// Not even the first file's line fits a reply: its names are
		// shown cut, said so, and the next call goes on after it.
		files[0] = whole
		files[0].Path, _ = text.CutUTF8(whole.Path, keep)
		if whole.OldPath != nil {
			old, _ := text.CutUTF8(*whole.OldPath, keep)
			files[0].OldPath = &old
		}
		lead = cutPathNote(from+1, "file", whole.Path, files[0].Path)
		defer func() { lead = "" }()
		return render(1)
	}
	return paging.FitListCut(s.budget(ctx), len(files), render, len(whole.Path), cut), nil
}

// pullHeaderBytes is pullHeader with the size of the whole patch, when
// known: "owner/repo#N: K files changed, B bytes of patch (base …)".
func pullHeaderBytes(owner, name string, index, files int, patch *int64, base, mergeBase, head string) string {
	h := pullHeader(owner, name, index, files, base, mergeBase, head)
	if patch == nil {
		return h
	}
	at := strings.Index(h, " changed (base ") + len(" changed")
	return h[:at] + fmt.Sprintf(", %s of patch", text.Count(int(*patch), "byte")) + h[at:]
}

// line is the file's line in list_pull_request_files: a file list's line
// with its patch's size beside its line counts.
func (f pullFile) line() string {
	if f.PatchBytes == nil {
		return f.changedFile.line()
	}
	return f.lineWith(text.Count(int(*f.PatchBytes), "byte"))
}

func (b localBackend) pullRequestFiles(ctx context.Context, in listPullRequestFilesIn, pinned *paging.Cursor) (listPullRequestFilesOut, error) {
	s := b.s
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index, pinned)
	if err != nil {
		return listPullRequestFilesOut{}, err
	}
	// Only the files one reply can hold are counted and measured, so that
	// the time follows what is returned, not the limit asked for.
	page, total, err := r.Git.ChangedFilesPageFit(ctx, opts, in.Offset, in.Limit, s.fitsOneReply(ctx))
	if err != nil {
		return listPullRequestFilesOut{}, paging.GoneCommit(r, pinned != nil, err)
	}
	out := listPullRequestFilesOut{Index: pr.Index, Base: pr.Base, Head: pr.Head, MergeBase: pr.MergeBase, TotalCount: total, Page: max(in.Page, 1), repoName: r.FullName()}
	files := make([]changedFile, len(page))
	for i, c := range page {
		files[i] = s.changedFile(c)
	}
	// The sizes and the total are counted as get_pull_request_diff cuts its
	// parts: the page's sizes from the diffs of its own files, the total
	// (beside them, remembered per diff, and bounded in time: no total
	// rather than a late one) once, then carried by the next calls.
	q := paging.Request{Repo: r, Opts: opts, Hide: s.hiddenSection}
	counted := func() *diff.Total { return nil }
	if pinned != nil && pinned.Bytes > 0 {
		out.PatchBytes = ptr(pinned.Bytes)
	} else {
		var stop func()
		counted, stop = s.diffs.StartCount(ctx, q)
		defer stop()
	}
	sizes := make([]int64, len(page))
	_, err = s.diffs.PatchSizes(ctx, q, in.Offset, len(page), func(i int, _ git.Change, n int64) error {
		sizes[i-in.Offset] = n
		return nil
	})
	if err != nil {
		return listPullRequestFilesOut{}, paging.GoneCommit(r, pinned != nil, err)
	}
	if t := counted(); t != nil {
		out.PatchBytes, out.patchEscaped = ptr(t.Bytes), t.Escaped
	}
	s.markGenerated(ctx, r, pr.Head, files)
	out.Files = make([]pullFile, len(page))
	for i, c := range page {
		out.Files[i] = pullFile{changedFile: files[i]}
		if !s.deniedChange(c) {
			out.Files[i].PatchBytes = ptr(sizes[i])
		}
	}
	return out, nil
}

// fitsOneReply says, change by change, whether one more file can be in a
// reply that holds the ones before it: each file's line is at least its
// padded status and counts, its path and its old path
// (changedFile.lineWith), so no more than that many lines fit the reply
// limit, whatever their counts and sizes.
func (s *Server) fitsOneReply(ctx context.Context) func(git.Change) bool {
	const leastLine = len("modified     +0 -0           ") + len("\n")
	size := 0
	return func(c git.Change) bool {
		if size += leastLine + len(c.Path); c.OldPath != c.Path {
			size += len(" (from )") + len(c.OldPath)
		}
		return size <= s.budget(ctx).MaxBytes
	}
}

// pullRequestFiles reports what the forge says, status words included (a
// changed binary file may come back as "unchanged" with 0/0). The forge
// pages by page and limit, at most its own page size: an offset inside
// one of its pages starts the reply there, with fewer files.
func (b forgeBackend) pullRequestFiles(ctx context.Context, in listPullRequestFilesIn, pinned *paging.Cursor) (listPullRequestFilesOut, error) {
	if err := forgeRepo(in.Owner, in.Repo); err != nil {
		return listPullRequestFilesOut{}, err
	}
	if pinned != nil {
		if err := pinned.MadeFor(forgeName(in.Owner, in.Repo)); err != nil {
			return listPullRequestFilesOut{}, err
		}
		if len(pinned.Commits) != 3 {
			return listPullRequestFilesOut{}, paging.ErrCursor("is damaged or was edited")
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
	files, total, err := f.PullFilesFrom(ctx, in.Owner, in.Repo, in.Index, in.Offset, min(in.Limit, forge.PageSize))
	if err != nil {
		return listPullRequestFilesOut{}, err
	}
	out := listPullRequestFilesOut{Index: in.Index, Base: pr.Base.SHA, Head: pr.Head.SHA, MergeBase: pr.MergeBase, TotalCount: total, Page: max(in.Page, 1), Files: []pullFile{},
		repoName: forgeName(in.Owner, in.Repo)}
	list := make([]changedFile, 0, len(files))
	for _, cf := range files {
		p := changedFile{Path: cf.Filename, Status: cf.Status, IsTest: isTestPath(cf.Filename)}
		if cf.PreviousFilename != "" && cf.PreviousFilename != cf.Filename {
			p.OldPath = ptr(cf.PreviousFilename)
		}
		if !s.cfg.Policy.Denied(cf.Filename) && !s.cfg.Policy.Denied(cf.PreviousFilename) {
			p.Additions, p.Deletions = ptr(cf.Additions), ptr(cf.Deletions)
		}
		list = append(list, p)
	}
	// The forge's list says nothing of attributes: names decide.
	s.markGenerated(ctx, nil, "", list)
	sizes, patch, err := b.forgePatchSizes(ctx, in, list)
	if err != nil {
		return listPullRequestFilesOut{}, err
	}
	out.PatchBytes = &patch
	for i, p := range list {
		out.Files = append(out.Files, pullFile{changedFile: p, PatchBytes: sizes[i]})
	}
	if total < 0 { // the forge sent no count
		out.TotalCount = in.Offset + len(files)
	}
	return out, nil
}

// forgePatchSizes measures the forge's own patch of the pull request (what
// get_pull_request_diff shows in forge mode), streamed once through the
// section splitter: the size of each of list's files' sections, matched
// by path (the forge's list and its patch need not share an order; nil
// for a file hidden by the secrets policy or not in the patch), and of the
// whole patch.
func (b forgeBackend) forgePatchSizes(ctx context.Context, in listPullRequestFilesIn, list []changedFile) ([]*int64, int64, error) {
	policy := b.s.cfg.Policy
	at := map[string]int{}
	for i, f := range list {
		if !policy.Denied(f.Path) && (f.OldPath == nil || !policy.Denied(*f.OldPath)) {
			at[f.Path] = i
		}
	}
	sizes := make([]*int64, len(list))
	body, err := b.f.PullDiff(ctx, in.Owner, in.Repo, in.Index)
	if err != nil {
		return nil, 0, b.diffNotFound(ctx, err, in.Owner, in.Repo, in.Index)
	}
	defer body.Close()
	var total int64
	sp := diff.NewSplitter(body)
	for {
		h, size, err := sp.NextHeader()
		var bad *diff.HeaderError
		if errors.Is(err, io.EOF) {
			return sizes, total, nil
		}
		if err != nil && !errors.As(err, &bad) {
			return nil, 0, err
		}
		if !b.s.hiddenSection(h) {
			total += size // as get_pull_request_diff counts it
		}
		if i, ok := at[h.NewPath]; ok {
			if sizes[i] == nil {
				sizes[i] = new(int64)
			}
			*sizes[i] += size // a type change's two sections
		}
	}
}
