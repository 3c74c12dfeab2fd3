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

	"golang.org/x/sys/unix"
)

// storeInWorkTree lists the repository's directories that lie inside its
// work tree, as paths relative to it.
func (r *Repo) storeInWorkTree() []string {
	st, err := r.storeLayout()
	dirs := []string{r.gitDir}
	if err == nil {
		dirs = st.Dirs()
	}
	var in []string
	for _, d := range dirs {
		if Within(r.workTree, d) && d != r.workTree {
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

func idOf(st *unix.Stat_t) inodeID { return inodeID{uint64(st.Dev), st.Ino} }

// storeIDs are the identities of the repository's directories that lie
// inside the work tree: a directory renamed onto the path of a tracked
// directory is still the git directory.
func (r *Repo) storeIDs(inTree []string) map[inodeID]bool {
	ids := map[inodeID]bool{}
	for _, rel := range inTree {
		var st unix.Stat_t
		if unix.Stat(filepath.Join(r.workTree, filepath.FromSlash(rel)), &st) == nil {
			ids[idOf(&st)] = true
		}
	}
	return ids
}

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

// checkedRead hands read the work-tree file path, opened below the
// directory wt one name at a time with O_NOFOLLOW (a symlink anywhere on
// the way fails the open; no directory on the way may be the git
// directory, whatever its name). What read read counts only if the file
// was, before and after, a regular file of at most max bytes (0: no limit)
// with one link, and that link its name in the directory opened: a file
// that is, or was while it was read, a hard link to one outside the
// repository fails, as does one renamed away meanwhile.
func checkedRead(wt *os.File, store map[inodeID]bool, path string, max int64, read func(f *os.File, size int64) error) error {
	names := strings.Split(path, "/")
	parent, err := unix.Dup(int(wt.Fd()))
	if err != nil {
		return err
	}
	defer func() { unix.Close(parent) }()
	for _, name := range names[:len(names)-1] {
		if !cleanName(name) {
			return fmt.Errorf("%q is not a clean path", path)
		}
		next, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return &os.PathError{Op: "open", Path: path, Err: err}
		}
		unix.Close(parent)
		parent = next
		var st unix.Stat_t
		if err := unix.Fstat(parent, &st); err != nil {
			return err
		}
		if store[idOf(&st)] {
			return fmt.Errorf("%q is in the git directory", path)
		}
	}
	last := names[len(names)-1]
	if !cleanName(last) {
		return fmt.Errorf("%q is not a clean path", path)
	}
	fd, err := unix.Openat(parent, last, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var size int64
	check := func() error {
		var st, named unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		size = st.Size
		if err := unix.Fstatat(parent, last, &named, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		switch {
		case st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 || idOf(&st) != idOf(&named):
			return fmt.Errorf("%q is not a file with one name", path)
		case max > 0 && st.Size > max:
			return errTooLarge
		}
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	if err := read(f, size); err != nil {
		return err
	}
	return check()
}

func cleanName(name string) bool { return name != "" && name != "." && name != ".." }
