package repo

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
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
// included) stays inside the work tree, passes the policy, and is not a
// hard-linked file.
func (r *Repository) CheckWorkTreePath(p *Policy, clean string) error {
	_, _, err := r.resolveWorkTreePath(p, clean)
	return err
}

// InGitDir reports, by its name alone, whether a work-tree path lies in the
// repository's own data inside the work tree: a work-tree search follows no
// symlink, so the name is where the file is.
func (r *Repository) InGitDir(clean string) bool { return underStore(r.storeInTree, clean) }

// maxLinkHops bounds the symlinks one path may go through, as the kernel
// does (ELOOP after 40).
const maxLinkHops = 40

// resolveWorkTreePath walks clean one name at a time from the work tree,
// following symlinks itself, and returns the real path relative to the work
// tree and what is there. Every denial is decided from names before the
// file system is asked whether the next one exists: a link that leads
// outside the tree, a hidden name, or the repository's own data inside the
// tree answers the same whether its target exists or not, so a denial tells
// nothing about what lies beyond it.
func (r *Repository) resolveWorkTreePath(p *Policy, clean string) (string, os.FileInfo, error) {
	wt := r.Git.WorkTree()
	if wt == "" {
		return "", nil, errcode.New(errcode.InvalidArgument, "%s is a bare repository: give a ref", r.FullName())
	}
	rel := "" // resolved so far: a real path below wt, slash-separated
	todo := splitPath(clean)
	hops := 0
	for len(todo) > 0 {
		next := path.Join(rel, todo[0])
		todo = todo[1:]
		if err := r.checkWorkTreeName(p, clean, next); err != nil {
			return "", nil, err
		}
		full := filepath.Join(wt, filepath.FromSlash(next))
		fi, err := os.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return "", nil, errcode.New(errcode.NotFound, "%q does not exist in the work tree of %s", clean, r.FullName())
		}
		if err != nil {
			return "", nil, errcode.New(errcode.PathDenied, "%q cannot be resolved in the work tree", clean)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			rel = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", nil, errcode.New(errcode.PathDenied, "%q cannot be resolved in the work tree: too many symlinks", clean)
		}
		dest, err := linkDest(wt, rel, full)
		if err != nil {
			return "", nil, errcode.New(errcode.PathDenied, "%q resolves outside the repository", clean)
		}
		// Walk the link's target from the top, then what followed the link.
		rel, todo = "", append(splitPath(dest), todo...)
	}
	fi, err := os.Lstat(filepath.Join(wt, filepath.FromSlash(rel)))
	if err != nil {
		return "", nil, errcode.New(errcode.NotFound, "%q does not exist in the work tree of %s", clean, r.FullName())
	}
	if n := linkCount(filepath.Join(wt, filepath.FromSlash(rel)), fi); fi.Mode().IsRegular() && n > 1 {
		return "", nil, errcode.New(errcode.PathDenied, "%q is hard-linked (%d names share the file, which may lie outside the repository); read it at a ref", clean, n)
	}
	return rel, fi, nil
}

// checkWorkTreeName refuses a name on the way to clean that the policy
// hides or that lies in the repository's own data.
func (r *Repository) checkWorkTreeName(p *Policy, clean, name string) error {
	if underStore(r.storeInTree, name) {
		return errcode.New(errcode.PathDenied, "%q is in the repository's git directory, which is hidden", clean)
	}
	if p.Denied(name) {
		if name == clean {
			return errcode.New(errcode.PathDenied, "path %q is hidden by the server's secrets policy", clean)
		}
		return errcode.New(errcode.PathDenied, "%q resolves to %q, which the server's secrets policy hides", clean, name)
	}
	return nil
}

// linkDest reads the symlink at full, in the directory rel of the work tree
// wt (a real path), and returns its target relative to wt. The target is
// resolved by its text alone: one that leaves wt is an error whether it
// exists or not.
func linkDest(wt, rel, full string) (string, error) {
	target, err := os.Readlink(full)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(wt, filepath.FromSlash(rel), target)
	}
	target = filepath.Clean(target)
	if !gitdir.Within(wt, target) {
		return "", errors.New("outside the work tree")
	}
	dest, err := filepath.Rel(wt, target)
	return filepath.ToSlash(dest), err
}

// splitPath splits a clean slash-separated path into its names ("" and "."
// have none).
func splitPath(p string) []string {
	if p == "" || p == "." {
		return nil
	}
	return strings.Split(p, "/")
}
