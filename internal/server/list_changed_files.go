package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"

	"github.com/google/jsonschema-go/jsonschema"
)

type listChangedFilesIn struct {
	Owner  string   `json:"owner,omitempty"`
	Repo   string   `json:"repo,omitempty"`
	Base   string   `json:"base"`
	Head   string   `json:"head,omitempty" jsonschema:"head ref; omit for HEAD"`
	Mode   string   `json:"mode,omitempty"`
	Paths  []string `json:"paths,omitempty" jsonschema:"only these files or directories (literal)"`
	Offset int      `json:"offset,omitempty"`
	Limit  int      `json:"limit,omitempty"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	paging.ReplyLimit
}

type listChangedFilesOut struct {
	Base       string        `json:"base"`
	Head       string        `json:"head"`
	MergeBase  *string       `json:"mergeBase"`
	Files      []changedFile `json:"files"`
	TotalFiles int           `json:"totalFiles"`
	NextOffset *int          `json:"nextOffset" jsonschema:"offset of the next page, null at the end"`
	// EmptyReason: as get_diff's.
	EmptyReason string `json:"emptyReason,omitempty" jsonschema:"set when the diff holds no file: noChange (no file differs between the commits) or noPathMatched (no changed file is at or under paths: they are literal paths, not globs; list_files with pathGlobs finds files by glob)"`
	paging.Paged
}

// listChangedFilesTool is list_changed_files's definition (registry.go).
var listChangedFilesTool = defineTool(toolSpec{
	Name:  "list_changed_files",
	Title: "List changed files",
	Description: "List the files changed between two commits, selected as get_diff's (base, head, mode, paths): status, path, lines added and deleted, test and generated marks; no patches. " +
		"For a pull request, list_pull_request_files.",
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetDefault(in, "head", "HEAD")
		argcheck.SetDefault(in, "mode", modeMergeBase)
		argcheck.Prop(in, "mode").Enum = []any{modeMergeBase, modeDirect}
		argcheck.Prop(in, "paths").MaxItems = ptr(maxDiffPaths)
		argcheck.SetInt(in, "offset", 0, 0, 1<<31-1)
		argcheck.SetInt(in, "limit", 500, 1, 5000)
	},
}, (*Server).listChangedFiles)

func (s *Server) listChangedFiles(ctx context.Context, in listChangedFilesIn) (reply[listChangedFilesOut], error) {
	const tool = "list_changed_files"
	q := diffRequest{owner: in.Owner, name: in.Repo, base: in.Base, head: in.Head, mode: in.Mode, paths: in.Paths}
	digest := paging.ArgsDigest(in, "cursor", "offset")
	if in.Cursor != "" {
		cur, err := s.cursors.Decode(tool, in.Cursor, digest)
		if err != nil {
			return reply[listChangedFilesOut]{}, err
		}
		q.cur = &cur
	}
	sel, err := s.selectDiff(ctx, q)
	if err != nil {
		return reply[listChangedFilesOut]{}, err
	}
	page, total, err := sel.repo.Git.ChangedFilesPage(ctx, sel.opts, in.Offset, in.Limit)
	if err != nil {
		return reply[listChangedFilesOut]{}, paging.GoneCommit(sel.repo, in.Cursor != "", err)
	}
	out := listChangedFilesOut{Base: sel.base, Head: sel.head, MergeBase: sel.mergeBase, TotalFiles: total}
	var lead string // what the text says before the files: why there are none, or which paths matched none
	if total == 0 {
		reason, all, err := whyNoFile(ctx, sel.repo, sel.opts)
		if err != nil {
			return reply[listChangedFilesOut]{}, err
		}
		if out.EmptyReason = reason; reason == emptyNoPathMatched {
			lead = noPathMatchedText(all)
		}
	}
	if in.Cursor == "" && total > 0 && len(sel.opts.Paths) > 1 {
		// Which paths matched nothing, said once: the listing is the one
		// the page was read from (remembered when small).
		only := paging.PathsFilter(sel.opts.Paths)
		if _, err := sel.repo.Git.EachChange(ctx, sel.opts, func(_ int, c git.Change) error { only.Keep(c); return nil }); err != nil {
			return reply[listChangedFilesOut]{}, paging.GoneCommit(sel.repo, false, err)
		}
		lead = only.Missed()
	}
	from := min(in.Offset, total)
	files := make([]changedFile, len(page))
	for i, c := range page {
		files[i] = s.changedFile(c)
	}
	s.markGenerated(ctx, sel.repo, sel.head, files)
	render := func(n int) reply[listChangedFilesOut] {
		out.Files = files[:n]
		out.NextOffset = nil
		if next := from + n; next < total {
			out.NextOffset = &next
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s changed %s..%s", sel.repo.FullName(), text.Count(total, "file"), git.Short(sel.base), git.Short(sel.head))
		if sel.mergeBase != nil {
			fmt.Fprintf(&b, " (from merge base %s)", git.Short(*sel.mergeBase))
		}
		if n < total {
			b.WriteString("; " + paging.Shown(in.Offset, n, total, "file", "list_changed_files", in))
		}
		b.WriteString("\n" + lead)
		for _, f := range out.Files {
			b.WriteString(f.line())
		}
		r := reply[listChangedFilesOut]{Text: b.String(), Out: out}
		if out.NextOffset != nil {
			next := in
			next.Offset = *out.NextOffset
			next.Cursor = s.cursors.Encode(paging.Cursor{Tool: tool, Args: digest, Commits: []string{sel.base, sel.head}}, sel.repo.FullName())
			r.Next = paging.Continue(tool, next)
		}
		return r
	}
	if len(files) == 0 {
		return render(0), nil
	}
	whole := files[0]
	cut := func(keep int) reply[listChangedFilesOut] {
		// Not even the first file's line fits a reply: its path is shown
		// cut, said so, and the next call goes on after it.
		files[0] = whole
		files[0].Path, _ = text.CutUTF8(whole.Path, keep)
		note := lead
		lead = cutPathNote(from+1, "file", whole.Path, files[0].Path)
		defer func() { lead = note }()
		return render(1)
	}
	return paging.FitListCut(s.budget(ctx), len(files), render, len(whole.Path), cut), nil
}

// cutPathNote says that the path of entry n (a file, a match) is shown
// cut, as shown: a path longer than a whole reply, once JSON escapes it.
func cutPathNote(n int, what, path, shown string) string {
	return fmt.Sprintf("[left out: the end of the path of %s %d, longer than a reply: %s of its %s are shown]\n", what, n, text.Thousands(len(shown)), text.Count(len(path), "byte"))
}
