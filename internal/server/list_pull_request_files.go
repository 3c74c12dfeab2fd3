package server

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

type listPullRequestFilesIn struct {
	Owner string `json:"owner" jsonschema:"repository owner"`
	Repo  string `json:"repo" jsonschema:"repository name"`
	Index int    `json:"index" jsonschema:"pull request number"`
	Page  int    `json:"page,omitempty" jsonschema:"1-based page"`
	Limit int    `json:"limit,omitempty" jsonschema:"files per page"`
}

// prFile is one file of a pull request.
type prFile struct {
	Path         string  `json:"path"`
	PreviousPath *string `json:"previousPath" jsonschema:"the path before a rename or copy, else null"`
	Status       string  `json:"status" jsonschema:"added, modified, deleted, renamed, copied or type_changed"`
	Additions    *int    `json:"additions" jsonschema:"lines added (0 for a binary file; null for a file hidden by the secrets policy)"`
	Deletions    *int    `json:"deletions"`
	IsBinary     bool    `json:"isBinary"`
}

type listPullRequestFilesOut struct {
	Index      int      `json:"index"`
	Base       string   `json:"base" jsonschema:"the base commit"`
	Head       string   `json:"head" jsonschema:"the head commit"`
	MergeBase  string   `json:"mergeBase" jsonschema:"where the pull request's diff starts"`
	Files      []prFile `json:"files"`
	TotalCount int      `json:"totalCount"`
	Page       int      `json:"page"`
	HasMore    bool     `json:"hasMore" jsonschema:"true when later pages hold more files"`
}

func (s *Server) addListPullRequestFiles() {
	t := &mcp.Tool{
		Name: "list_pull_request_files",
		Description: "List the files a pull request changes (path, previous path, status, lines added and deleted) with the total count: " +
			"read it before asking get_pull_request_diff for one file with file_path. Paged with page/limit.",
		Annotations: readOnly("List pull request files"),
	}
	addTool(s, t, reflect.TypeFor[listPullRequestFilesOut](), func(in *jsonschema.Schema) {
		setInt(in, "index", 0, 1, 1<<31-1)
		setInt(in, "page", 1, 1, 1<<31-1)
		setInt(in, "limit", 50, 1, 100)
	}, s.listPullRequestFiles)
}

func (s *Server) listPullRequestFiles(ctx context.Context, in listPullRequestFilesIn) (reply, error) {
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index)
	if err != nil {
		return reply{}, err
	}
	changes, err := r.Git.ChangedFiles(ctx, opts)
	if err != nil {
		return reply{}, err
	}
	out := listPullRequestFilesOut{Index: pr.Index, Base: pr.Base, Head: pr.Head, MergeBase: pr.MergeBase, TotalCount: len(changes), Page: in.Page}
	from := min((in.Page-1)*in.Limit, len(changes))
	page := changes[from:min(from+in.Limit, len(changes))]
	files := make([]prFile, len(page))
	for i, c := range page {
		f := s.changedFile(c)
		files[i] = prFile{Path: f.Path, PreviousPath: f.OldPath, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions, IsBinary: f.IsBinary}
	}
	// A page that does not fit is an error rather than a silent cut: pages
	// are fixed by page and limit, so the next page could not follow on.
	out.Files, out.HasMore = files, from+len(files) < len(changes)
	var b strings.Builder
	fmt.Fprintf(&b, "%s#%d: %d files changed (merge base %s → head %s)", r.FullName(), pr.Index, len(changes), short(pr.MergeBase), short(pr.Head))
	if len(files) < len(changes) {
		fmt.Fprintf(&b, "; page %d: files %d–%d", in.Page, from+min(1, len(files)), from+len(files))
	}
	b.WriteString("\n")
	for _, f := range files {
		b.WriteString(changedFile{Path: f.Path, OldPath: f.PreviousPath, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions, IsBinary: f.IsBinary}.line())
	}
	if out.HasMore {
		fmt.Fprintf(&b, "More: call list_pull_request_files with page=%d.\n", in.Page+1)
	}
	res := reply{text: b.String(), structured: out}
	if n := s.replySize(res); n > s.cfg.MaxBytes {
		return reply{}, errcode.New(errcode.TooLarge, "%d files with their names take %d bytes, over the %d-byte reply limit; ask for fewer per page with a smaller limit", len(files), n, s.cfg.MaxBytes)
	}
	return res, nil
}
