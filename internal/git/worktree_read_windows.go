package git

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// handleID is the identity of an open file: its volume and file index.
func handleID(f *os.File) (inodeID, uint32, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return inodeID{}, 0, err
	}
	return inodeID{uint64(info.VolumeSerialNumber), uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}, info.NumberOfLinks, nil
}

// storeIDs are the identities of the repository's directories that lie
// inside the work tree: a directory renamed onto the path of a tracked
// directory is still the git directory.
func (r *Repo) storeIDs(inTree []string) map[inodeID]bool {
	ids := map[inodeID]bool{}
	for _, rel := range inTree {
		f, err := os.Open(filepath.Join(r.workTree, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		if id, _, err := handleID(f); err == nil {
			ids[id] = true
		}
		f.Close()
	}
	return ids
}

// checkedRead hands read the work-tree file path, opened through an
// os.Root of the directory wt (which never leaves it). Windows has no
// openat with O_NOFOLLOW, so the checks of checkedRead on Unix are made by
// name and by handle, before the read and again after it: no name on the
// way may be a symlink or other reparse point, no directory on the way the
// git directory, and the file must be a regular file of at most max bytes
// (0: no limit) with one link, the one its name in its directory has. A
// name swapped and swapped back between two checks is not caught, as it
// is on Unix.
func checkedRead(wt *os.File, store map[inodeID]bool, path string, max int64, read func(f *os.File, size int64) error) error {
	names := strings.Split(path, "/")
	for _, name := range names {
		if !cleanName(name) {
			return fmt.Errorf("%q is not a clean path", path)
		}
	}
	root, err := os.OpenRoot(wt.Name())
	if err != nil {
		return err
	}
	defer root.Close()
	native := filepath.FromSlash(path)
	checkWay := func() error {
		for i := 1; i < len(names); i++ {
			dir := filepath.Join(names[:i]...)
			fi, err := root.Lstat(dir)
			if err != nil {
				return &os.PathError{Op: "open", Path: path, Err: err}
			}
			if fi.Mode().Type() != fs.ModeDir {
				return fmt.Errorf("%q is not a clean path: %s is not a directory", path, dir)
			}
			d, err := root.Open(dir)
			if err != nil {
				return err
			}
			id, _, err := handleID(d)
			d.Close()
			if err != nil {
				return err
			}
			if store[id] {
				return fmt.Errorf("%q is in the git directory", path)
			}
		}
		return nil
	}
	if err := checkWay(); err != nil {
		return err
	}
	f, err := root.Open(native)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer f.Close()
	var size int64
	check := func() error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		named, err := root.Lstat(native)
		if err != nil {
			return err
		}
		_, links, err := handleID(f)
		if err != nil {
			return err
		}
		size = st.Size()
		switch {
		case !st.Mode().IsRegular() || !named.Mode().IsRegular() || links != 1 || !os.SameFile(st, named):
			return fmt.Errorf("%q is not a file with one name", path)
		case max > 0 && size > max:
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
	if err := checkWay(); err != nil {
		return err
	}
	return check()
}
