package forge

import (
	"context"
	"encoding/base64"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// ContentsResponse is Gitea/Forgejo's ContentsResponse (API v1, as of Gitea
// 1.25): same fields, order, nulls and omissions, so a client written for
// the forge reads it unchanged. ContentsFromGit makes it from a local
// repository, for get_file_content with_metadata without a forge.
type ContentsResponse struct {
	Name              string    `json:"name"`
	Path              string    `json:"path"`
	SHA               string    `json:"sha"`
	LastCommitSHA     *string   `json:"last_commit_sha,omitempty"`
	LastCommitterDate *string   `json:"last_committer_date,omitempty"`
	LastAuthorDate    *string   `json:"last_author_date,omitempty"`
	Type              string    `json:"type"`
	Size              int64     `json:"size"`
	Encoding          *string   `json:"encoding"`
	Content           *string   `json:"content"`
	Target            *string   `json:"target"`
	URL               *string   `json:"url"`
	HTMLURL           *string   `json:"html_url"`
	GitURL            *string   `json:"git_url"`
	DownloadURL       *string   `json:"download_url"`
	SubmoduleGitURL   *string   `json:"submodule_git_url"`
	Links             fileLinks `json:"_links"`
}

type fileLinks struct {
	Self *string `json:"self"`
	Git  *string `json:"git"`
	HTML *string `json:"html"`
}

// maxDirEntries bounds a directory listing in metadata mode (each entry costs a
// git log for its last commit, as on the forge).
const maxDirEntries = 500

// GitContents is what ContentsFromGit needs of the server: the forge's web
// address for the links (none: every link is null), the paths its policy
// hides, and the reply limit a file's base64 must fit.
type GitContents struct {
	BaseURL  string
	Denied   func(path string) bool
	MaxBytes int
}

// ContentsFromGit builds the ContentsResponse for a path at commit (asked
// for as ref), or the listing of a directory (a slice, as the forge returns
// an array).
func (o GitContents) ContentsFromGit(ctx context.Context, r *repo.Repository, ref, commit, path string) (any, error) {
	e, err := r.Git.Lookup(ctx, commit, path)
	if err == git.ErrMissing {
		return nil, errcode.New(errcode.NotFound, "%q does not exist at %s in %s", path, repo.DescribeRef(ref, commit), r.FullName())
	}
	if err != nil {
		return nil, err
	}
	links := o.newLinker(ctx, r, ref, commit)
	if e.Kind() != git.KindDir {
		return o.entryResponse(ctx, r, commit, path, e, links, true)
	}
	entries, err := r.Git.ReadTree(ctx, e.OID)
	if err != nil {
		return nil, err
	}
	var visible []git.Entry
	for i, c := range entries {
		// A tree can hold a great many long names, each checked
		// against the policy.
		if i%1024 == 1023 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if !o.Denied(joinPath(path, c.Name)) {
			visible = append(visible, c)
		}
	}
	if len(visible) > maxDirEntries {
		return nil, errcode.New(errcode.TooLarge, "directory %q has %d entries; listings stop at %d", repo.DisplayPath(path), len(visible), maxDirEntries)
	}
	out := make([]*ContentsResponse, len(visible))
	errs := make([]error, len(visible))
	// The per-entry git log runs a few at a time.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, c := range visible {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = o.entryResponse(ctx, r, commit, joinPath(path, c.Name), c, links, false)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// entryResponse fills one entry; content only for a single file requested
// by itself (listings carry none, as on the forge).
func (o GitContents) entryResponse(ctx context.Context, r *repo.Repository, commit, path string, e git.Entry, links linker, withContent bool) (*ContentsResponse, error) {
	name := path[strings.LastIndexByte(path, '/')+1:]
	c := &ContentsResponse{Name: name, Path: path, SHA: e.OID, Type: e.Kind()}
	last, err := r.Git.LastCommitFor(ctx, commit, path)
	if err != nil {
		return nil, err
	}
	c.LastCommitSHA, c.LastCommitterDate, c.LastAuthorDate = &last.OID, &last.CommitterDate, &last.AuthorDate
	switch e.Kind() {
	case git.KindFile, git.KindSymlink:
		err := r.Git.ReadObject(ctx, e.OID, func(blob git.Object, body io.Reader) error {
			c.Size = blob.Size
			if e.Kind() == git.KindSymlink {
				data, err := io.ReadAll(io.LimitReader(body, 4096))
				target := string(data)
				c.Target = &target
				return err
			}
			if !withContent {
				return nil
			}
			// Refuse before reading what cannot fit anyway.
			if base64.StdEncoding.EncodedLen(int(blob.Size)) > o.MaxBytes {
				return errcode.New(errcode.TooLarge, "%q is %d bytes, %d as base64: over the %d-byte reply limit; without with_metadata, start_line/end_line return the text in ranges", path, blob.Size, base64.StdEncoding.EncodedLen(int(blob.Size)), o.MaxBytes)
			}
			data, err := io.ReadAll(body)
			enc, content := "base64", base64.StdEncoding.EncodeToString(data)
			c.Encoding, c.Content = &enc, &content
			return err
		})
		if err != nil {
			return nil, err
		}
	case git.KindSubmodule:
		if u := r.Git.SubmoduleURL(ctx, commit, path); u != "" {
			c.SubmoduleGitURL = &u
		}
	}
	links.fill(c, e.Kind())
	return c, nil
}

// linker builds the forge's links for entries, when the server knows the
// forge's web address (--base-url); otherwise every link is null.
type linker struct {
	api, html string // "" when unknown
	ref       string // the ref as asked, for ?ref=
	webRef    string // branch/NAME, tag/NAME or commit/SHA
}

func (o GitContents) newLinker(ctx context.Context, r *repo.Repository, ref, commit string) linker {
	if o.BaseURL == "" {
		return linker{}
	}
	base := strings.TrimRight(o.BaseURL, "/") + "/"
	l := linker{
		api:  base + "api/v1/repos/" + url.PathEscape(r.Owner) + "/" + url.PathEscape(r.Name),
		html: base + url.PathEscape(r.Owner) + "/" + url.PathEscape(r.Name),
		ref:  ref,
	}
	name := ref
	if name == "" {
		name = r.Git.DefaultBranch(ctx)
		l.ref = name
	}
	switch {
	case name != "" && r.Git.HasRef(ctx, "refs/heads/"+name):
		l.webRef = "branch/" + EscapePath(name)
	case name != "" && r.Git.HasRef(ctx, "refs/tags/"+name):
		l.webRef = "tag/" + EscapePath(name)
	default:
		l.webRef = "commit/" + commit
	}
	return l
}

func (l linker) fill(c *ContentsResponse, kind string) {
	if l.api == "" {
		return
	}
	str := func(s string) *string { return &s }
	p := EscapePath(c.Path)
	c.URL = str(l.api + "/contents/" + p + "?ref=" + url.QueryEscape(l.ref))
	c.Links.Self = c.URL
	if kind == git.KindSubmodule {
		return
	}
	c.HTMLURL = str(l.html + "/src/" + l.webRef + "/" + p)
	c.GitURL = str(l.api + "/git/blobs/" + c.SHA)
	c.Links.Git, c.Links.HTML = c.GitURL, c.HTMLURL
	if kind == git.KindFile || kind == git.KindSymlink {
		c.DownloadURL = str(l.html + "/raw/" + l.webRef + "/" + p)
	}
}
