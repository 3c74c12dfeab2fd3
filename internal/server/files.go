package server

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// errIsDir stops a read that found a tree where a file was asked for.
var errIsDir = errors.New("is a directory")

// readAtRef streams the file at commit:path (path already checked by the
// policy). A symlink reads as its link text, as git stores it: the target is
// never followed.
func readAtRef(ctx context.Context, r *repo.Repository, commit, refName, path string, read func(blob git.Object, body io.Reader) error) error {
	use := func(o git.Object, body io.Reader) error {
		if o.Type != "blob" {
			return errIsDir
		}
		return read(o, body)
	}
	var err error
	if path != "" && !strings.Contains(path, "\n") {
		err = r.Git.ReadObject(ctx, commit+":"+path, use)
	} else {
		// Names with newlines cannot go through cat-file's line-based
		// replies: resolve them tree by tree, by object id.
		var e git.Entry
		if e, err = r.Git.Lookup(ctx, commit, path); err == nil {
			if e.Kind() == git.KindSubmodule {
				err = git.ErrMissing
			} else {
				err = r.Git.ReadObject(ctx, e.OID, use)
			}
		}
	}
	switch {
	case errors.Is(err, errIsDir):
		return errcode.New(errcode.InvalidArgument, "%q is a directory, not a file", displayPath(path))
	case errors.Is(err, git.ErrMissing):
		return explainMissing(ctx, r, commit, refName, path)
	}
	return err
}

// explainMissing tells a submodule, and a file whose content is missing,
// from a path that does not exist.
func explainMissing(ctx context.Context, r *repo.Repository, commit, refName, path string) error {
	e, err := r.Git.Lookup(ctx, commit, path)
	switch {
	case err == nil && e.Kind() == git.KindSubmodule:
		return errcode.New(errcode.InvalidArgument, "%q is a submodule (commit %s); it has no file content here", path, e.OID)
	case err == nil && e.Kind() == git.KindFile:
		// The tree names the file, its content is not there: a partial
		// clone that never fetched it (or a damaged repository).
		return errcode.New(errcode.NotFound, "%q at %s in %s: its content (blob %s) is missing from the repository (a partial clone never fetched it, or the repository is damaged), and the server does not fetch missing objects",
			path, describeRef(refName, commit), r.FullName(), e.OID)
	}
	return errcode.New(errcode.NotFound, "%q does not exist at %s in %s", path, describeRef(refName, commit), r.FullName())
}

func describeRef(refName, commit string) string {
	if refName == "" || refName == commit {
		return commit
	}
	return refName + " (" + commit[:min(12, len(commit))] + ")"
}

func displayPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
