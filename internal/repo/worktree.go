package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// OpenWorkTreeFile opens a regular file of the work tree for reading. clean
// is a path already passed through Policy.Check. Symlinks are followed, but
// the real path must stay inside the work tree, outside .git, and pass the
// policy too (a link named notes.txt pointing at .env is refused). The open
// itself goes through os.Root, so a link swapped in after the check cannot
// lead outside either.
func (r *Repository) OpenWorkTreeFile(p *Policy, clean string) (*os.File, error) {
	rel, fi, err := r.resolveWorkTreePath(p, clean)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, errcode.New(errcode.InvalidArgument, "%q is a directory, not a file", clean)
	}
	if !fi.Mode().IsRegular() {
		return nil, errcode.New(errcode.InvalidArgument, "%q is not a regular file", clean)
	}
	root, err := os.OpenRoot(r.Git.WorkTree())
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// Open the real path found above (a link may lead out of the tree and
	// back in, which os.Root would refuse as written). O_NONBLOCK: a FIFO
	// swapped in after the check must not hang the call.
	f, err := root.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, errcode.New(errcode.PathDenied, "%q cannot be opened inside the work tree", clean)
	}
	// The file opened must be the one checked.
	if got, err := f.Stat(); err != nil || !os.SameFile(got, fi) {
		f.Close()
		return nil, errcode.New(errcode.PathDenied, "%q changed while it was being opened", clean)
	}
	return f, nil
}

// CheckWorkTreePath tells whether a path git reported from the work tree
// may be served: its real path (symlinks followed, parent directories
// included) stays inside the work tree and passes the policy.
func (r *Repository) CheckWorkTreePath(p *Policy, clean string) error {
	_, _, err := r.resolveWorkTreePath(p, clean)
	return err
}

// resolveWorkTreePath follows symlinks in clean, checks where it leads and
// returns the real path relative to the work tree, and what is there.
func (r *Repository) resolveWorkTreePath(p *Policy, clean string) (string, os.FileInfo, error) {
	wt := r.Git.WorkTree()
	if wt == "" {
		return "", nil, errcode.New(errcode.InvalidArgument, "%s is a bare repository: give a ref", r.FullName())
	}
	real, err := filepath.EvalSymlinks(filepath.Join(wt, filepath.FromSlash(clean)))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", nil, errcode.New(errcode.NotFound, "%q does not exist in the work tree of %s", clean, r.FullName())
	}
	if err != nil {
		return "", nil, errcode.New(errcode.PathDenied, "%q cannot be resolved in the work tree", clean)
	}
	rel, err := filepath.Rel(wt, real)
	if err != nil || !within(wt, real) {
		return "", nil, errcode.New(errcode.PathDenied, "%q resolves outside the repository", clean)
	}
	rel = filepath.ToSlash(rel)
	if rel != "." && p.Denied(rel) {
		return "", nil, errcode.New(errcode.PathDenied, "%q resolves to %q, which the server's secrets policy hides", clean, rel)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", nil, errcode.New(errcode.NotFound, "%q does not exist in the work tree of %s", clean, r.FullName())
	}
	return rel, fi, nil
}
