package repo

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// errIsDir stops a read that found a tree where a file was asked for.
var errIsDir = errors.New("is a directory")

// ReadAt streams the file at commit:path (path already checked by the
// policy), which the caller named refName: the errors say what is there
// instead (a directory, a submodule, a blob a partial clone lacks, or
// nothing). A symlink reads as its link text, as git stores it: the target
// is never followed.
func (r *Repository) ReadAt(ctx context.Context, commit, refName, path string, read func(blob git.Object, body io.Reader) error) error {
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
		return errcode.New(errcode.InvalidArgument, "%q is a directory, not a file", DisplayPath(path))
	case errors.Is(err, git.ErrMissing):
		return r.ExplainMissing(ctx, commit, refName, path)
	}
	return err
}

// ExplainMissing tells a submodule, and a file whose content is missing,
// from a path that does not exist at commit.
func (r *Repository) ExplainMissing(ctx context.Context, commit, refName, path string) error {
	e, err := r.Git.Lookup(ctx, commit, path)
	switch {
	case err == nil && e.Kind() == git.KindSubmodule:
		return errcode.New(errcode.InvalidArgument, "%q is a submodule (commit %s); it has no file content here", path, e.OID)
	case err == nil && e.Kind() == git.KindFile:
		// The tree names the file, its content is not there: a partial
		// clone that never fetched it (or a damaged repository).
		return errcode.New(errcode.NotFound, "%q at %s in %s: its content (blob %s) is missing from the repository (a partial clone never fetched it, or the repository is damaged), and the server does not fetch missing objects",
			path, DescribeRef(refName, commit), r.FullName(), e.OID)
	}
	return errcode.New(errcode.NotFound, "%q does not exist at %s in %s", path, DescribeRef(refName, commit), r.FullName())
}

// DescribeRef names commit as the caller named it: "main (0123456789ab)",
// or the commit alone.
func DescribeRef(refName, commit string) string {
	if refName == "" || refName == commit {
		return commit
	}
	return refName + " (" + git.Short(commit) + ")"
}

// DisplayPath is a path as errors show it: the root is "/".
func DisplayPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
