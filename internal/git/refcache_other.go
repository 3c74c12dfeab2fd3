//go:build !linux

package git

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// localFileSystem: no filesystem is known here to show a changed file at
// once, so no answer that rests on a regular file is kept (git is asked
// each time); answers that rest only on absent paths and directories are.
func localFileSystem(string) bool { return false }

// statID is the portable part of what refcache_linux.go stamps: the kind,
// and for a regular file its size and modification time.
func statID(path string, follow bool) (fileID, error) {
	var fi os.FileInfo
	var err error
	if follow {
		fi, err = os.Stat(path)
	} else {
		fi, err = os.Lstat(path)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return fileID{}, nil
	case errors.Is(err, syscall.ENOTDIR):
		return fileID{mode: notDir}, nil
	case err != nil:
		return fileID{}, errUncacheable
	}
	st, _ := statOf(fi)
	var mode uint32
	switch {
	case fi.IsDir():
		mode = syscall.S_IFDIR
	case fi.Mode().IsRegular():
		mode = syscall.S_IFREG
	case !follow:
		return fileID{}, errUncacheable
	}
	switch {
	case follow:
		return fileID{mode: mode, dev: st.dev, ino: st.ino}, nil
	case mode == syscall.S_IFDIR:
		return fileID{mode: mode}, nil
	}
	return fileID{mode: mode, dev: st.dev, ino: st.ino, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: st.ctime[0]*1e9 + st.ctime[1]}, nil
}
