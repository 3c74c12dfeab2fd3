//go:build unix

package git

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

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
