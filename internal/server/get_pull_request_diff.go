package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
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
}

// getPullRequestDiffTool is get_pull_request_diff's definition (registry.go).
var getPullRequestDiffTool = defineTool(toolSpec{
	Name:  "get_pull_request_diff",
	Title: "Get pull request diff",
	Description: "Get a pull request's unified diff (from the merge base of its base and head, as the forge shows it), or with file_path only that file's diff --git section. " +
		"A diff too large for one reply is refused with the list of its files and their patch sizes: then pass file_path (list_pull_request_files lists the files).",
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

func (b localBackend) pullRequestDiff(ctx context.Context, in getPullRequestDiffIn, path string) (textReply, error) {
	s := b.s
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index)
	if err != nil {
		return textReply{}, err
	}
	if path == "" {
		return s.wholePullRequestDiff(ctx, r, pr, opts)
	}
	keep := int64(s.replyRoom())
	// Fast path: the diff restricted to the path. That finds a modified
	// file at the cost of diffing one file; a rename needs its other side
	// too, which only the whole file list knows.
	one := opts
	one.Paths = []string{path}
	raw, size, found, err := sectionsFor(ctx, r, one, path, keep)
	if err != nil {
		return textReply{}, err
	}
	if !found || startsOrEndsFile(raw) {
		c, ok, total, names, err := s.findChange(ctx, r, opts, path)
		if err != nil {
			return textReply{}, err
		}
		if !ok && total == 0 {
			return textReply{}, errcode.New(errcode.NotFound, "file_path %q is not in the diff of %s#%d: %s",
				path, r.FullName(), pr.Index, whyEmpty(pr))
		}
		if !ok {
			return textReply{}, errcode.New(errcode.NotFound, "file_path %q is not in the diff of %s#%d (%d files: %s)",
				path, r.FullName(), pr.Index, total, names)
		}
		if s.deniedChange(c) {
			return textReply{}, errcode.New(errcode.PathDenied, "file_path %q is renamed from or to a path hidden by the server's secrets policy", path)
		}
		if c.OldPath != c.Path {
			both := opts
			both.Paths = c.Paths()
			if raw, size, _, err = sectionsFor(ctx, r, both, path, keep); err != nil {
				return textReply{}, err
			}
		}
	}
	if raw == nil || int64(text.JSONLen(raw)) > keep {
		return textReply{}, s.sectionTooLarge(fmt.Sprintf("%s#%d", r.FullName(), pr.Index), path, size,
			fmt.Sprintf("base=%s head=%s", pr.MergeBase, pr.Head), pr.Head)
	}
	return textReply{text: string(raw)}, nil
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

// sectionTooLarge: one file's section does not fit a reply.
func (s *Server) sectionTooLarge(pr, path string, size int64, diffRange, head string) error {
	return errcode.New(errcode.TooLarge, "the diff of %q in %s is %d bytes, over the %d-byte reply limit; "+
		"get_diff with %s paths=[%q] contextLines=0 returns a smaller patch, and read_file with ref=%s reads the file itself",
		path, pr, size, s.cfg.MaxBytes, diffRange, path, head)
}

// startsOrEndsFile: a section restricted to one path that adds or deletes
// it may be one side of a rename.
func startsOrEndsFile(raw []byte) bool {
	h, _, err := diff.NewSplitter(bytes.NewReader(raw)).NextHeader()
	return err == nil && (h.IsNew || h.IsDeleted)
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

// wholePullRequestDiff returns the whole diff if it fits; else TOO_LARGE
// with every file's patch size, measured without keeping the patches.
func (s *Server) wholePullRequestDiff(ctx context.Context, r *repo.Repository, pr *repo.PullRequest, opts git.DiffOptions) (textReply, error) {
	var res textReply
	err := r.Git.Patch(ctx, opts, func(patch io.Reader) error {
		var err error
		res, err = s.wholeDiffOr(fmt.Sprintf("%s#%d", r.FullName(), pr.Index), whyEmpty(pr), patch)
		return err
	})
	return res, err
}

// whyEmpty says why a pull request's diff is empty, with its commits.
func whyEmpty(pr *repo.PullRequest) string {
	if pr.Head == pr.MergeBase {
		return fmt.Sprintf("its head %s is already part of its base (it is the merge base), so no file differs", short(pr.Head))
	}
	return fmt.Sprintf("no file differs between its merge base %s and its head %s", short(pr.MergeBase), short(pr.Head))
}

// wholeDiff answers with a pull request's whole diff, read from patch, if it
// fits and touches no hidden file; else with an error that lists its files
// and their patch sizes, measured without keeping the patches.
func (s *Server) wholeDiff(name string, patch io.Reader) (textReply, error) {
	return s.wholeDiffOr(name, "no file differs between its head and its merge base with its base", patch)
}

// wholeDiffOr is wholeDiff that, for an empty diff, says so, and why: an
// empty reply would leave an agent wondering whether anything was read.
func (s *Server) wholeDiffOr(name, whyEmpty string, patch io.Reader) (textReply, error) {
	room := s.replyRoom()
	var buf []byte
	used, fits := 0, true
	names, denied := fileTally{room: s.errorRoom()}, fileTally{room: 512}
	var total int64
	sp := diff.NewSplitter(patch)
	for {
		keep := int64(room - used)
		if !fits {
			keep = 0
		}
		sec, err := sp.NextWithin(keep, 0)
		if err == io.EOF {
			break
		}
		var he *diff.HeaderError
		if err != nil && !errors.As(err, &he) {
			return textReply{}, err
		}
		names.add(sec.Header.NewPath, sec.Size, true)
		total += sec.Size
		if s.cfg.Policy.Denied(sec.Header.NewPath) || s.cfg.Policy.Denied(sec.Header.OldPath) {
			denied.add(sec.Header.NewPath, 0, false)
			fits = false // a hidden file's patch is never returned
			continue
		}
		if fits && sec.Raw != nil {
			if cost := text.JSONLen(sec.Raw); used+cost <= room {
				buf, used = append(buf, sec.Raw...), used+cost
				continue
			}
		}
		fits, buf = false, nil
	}
	if fits && names.count == 0 {
		return textReply{text: fmt.Sprintf("The diff of %s is empty: %s.\n", name, whyEmpty)}, nil
	}
	if fits {
		return textReply{text: string(buf)}, nil
	}
	if denied.count > 0 {
		return textReply{}, errcode.New(errcode.PathDenied, "the diff of %s touches %s, hidden by the server's secrets policy, so it is not returned whole; "+
			"pass file_path to get another file's section. Files (patch bytes): %s",
			name, denied.String(), names.String())
	}
	return textReply{}, errcode.New(errcode.TooLarge, "the diff of %s is %d bytes in %d files, over the %d-byte reply limit; "+
		"pass file_path to get one file's section. Files (patch bytes): %s",
		name, total, names.count, s.cfg.MaxBytes, names.String())
}
