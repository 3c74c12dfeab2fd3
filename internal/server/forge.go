package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
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

func (b forgeBackend) pullRequestDiff(ctx context.Context, in getPullRequestDiffIn, path string) (textReply, error) {
	if err := forgeRepo(in.Owner, in.Repo); err != nil {
		return textReply{}, err
	}
	s := b.s
	body, err := b.f.PullDiff(ctx, in.Owner, in.Repo, in.Index)
	if err != nil {
		return textReply{}, pullNotFound(err, in.Owner, in.Repo, in.Index)
	}
	defer body.Close()
	name := fmt.Sprintf("%s/%s#%d", in.Owner, in.Repo, in.Index)
	if path == "" {
		return s.wholeDiff(name, body)
	}
	keep := int64(s.replyRoom())
	raw, size, found, names, err := selectSections(body, path, keep, func(h diff.Header) bool {
		return s.cfg.Policy.Denied(h.OldPath) || s.cfg.Policy.Denied(h.NewPath)
	})
	if err != nil {
		return textReply{}, err
	}
	if !found {
		return textReply{}, errcode.New(errcode.NotFound, "file_path %q is not in the diff of %s (%d files: %s)", path, name, len(names), fileList(names, nil, len(names), s.errorRoom()))
	}
	if raw == nil {
		return textReply{}, s.sectionTooLarge(name, path, size, "the pull request's base and head", "the pull request's head")
	}
	return textReply{text: string(raw)}, nil
}

// headMoved: a forge's pull request changed between two parts of a reply.
func headMoved(index int, was, now string) error {
	return errcode.New(errcode.InvalidArgument, "pull request #%d's head moved from %s to %s since the first part; leave cursor out to start again", index, short(was), short(now))
}

// pullNotFound words the forge's 404 for a pull request.
func pullNotFound(err error, owner, name string, index int) error {
	if errcode.Of(err) == errcode.NotFound {
		return errcode.New(errcode.NotFound, "pull request #%d does not exist in %s/%s (or the token cannot see it)", index, owner, name)
	}
	return err
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
		out := textReply{text: string(data)}
		if n := s.replySize(out); n > s.cfg.MaxBytes {
			return textReply{}, errcode.New(errcode.TooLarge, "the forge's ContentsResponse for %q is %d bytes as JSON, over the %d-byte reply limit; without with_metadata, start_line/end_line return the text in ranges", displayPath(path), n, s.cfg.MaxBytes)
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
			at = describeRef(in.Ref, ref)
		}
		return textReply{}, errcode.New(errcode.NotFound, "%q does not exist at %s in %s/%s", path, at, in.Owner, in.Repo)
	}
	if err != nil {
		return textReply{}, err
	}
	defer body.Close()
	return s.sliceFile(path, -1, body, in)
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
