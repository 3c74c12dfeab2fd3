package git

// Reading a work-tree file through a checked handle: opened one name at a
// time, no symlink followed, never inside the git directory, and a file
// with one link only.

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
)

// storeInWorkTree lists the repository's directories that lie inside its
// work tree, as paths relative to it.
func (r *Repo) storeInWorkTree() []string {
	st, err := r.run.Store()
	dirs := []string{r.gitDir}
	if err == nil {
		dirs = st.Dirs()
	}
	var in []string
	for _, d := range dirs {
		if gitdir.Within(r.workTree, d) && d != r.workTree {
			if rel, err := filepath.Rel(r.workTree, d); err == nil {
				in = append(in, filepath.ToSlash(rel))
			}
		}
	}
	return in
}

// slicesAnyWithin reports whether path is one of dirs or below one.
func slicesAnyWithin(dirs []string, path string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

var errTooLarge = errors.New("over the size limit")

// inodeID is a file's identity: its device and inode.
type inodeID struct{ dev, ino uint64 }

// copyChecked copies the work-tree file path (below the directory wt) to
// the same path below dst, through checkedRead. It returns the bytes
// copied and the id git would give them as a blob (hexLen: SHA-1 or
// SHA-256).
func copyChecked(wt *os.File, store map[inodeID]bool, dst *os.Root, path string, max int64, hexLen int) (int64, string, error) {
	if dir := filepath.Dir(filepath.FromSlash(path)); dir != "." {
		if err := dst.MkdirAll(dir, 0o700); err != nil {
			return 0, "", err
		}
	}
	out, err := dst.OpenFile(filepath.FromSlash(path), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, "", err
	}
	var n int64
	var id string
	err = checkedRead(wt, store, path, max, func(f *os.File, size int64) error {
		h := sha1.New() //nolint:gosec // G401: git's object id, not a secret's hash
		if hexLen == 64 {
			h = sha256.New()
		}
		fmt.Fprintf(h, "blob %d\x00", size)
		src := io.Reader(f)
		if max > 0 {
			src = io.LimitReader(f, max+1)
		}
		var err error
		n, err = io.Copy(io.MultiWriter(out, h), src)
		switch {
		case err == nil && max > 0 && n > max:
			err = errTooLarge // it grew since
		case err == nil && n == size:
			id = hex.EncodeToString(h.Sum(nil))
		}
		return err
	})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = dst.Remove(filepath.FromSlash(path)) // a partial copy; the directory goes at Close
	}
	return n, id, err
}

func cleanName(name string) bool { return name != "" && name != "." && name != ".." }
