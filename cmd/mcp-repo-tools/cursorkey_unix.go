//go:build unix

package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// openCachedKey opens the key the server keeps in its cache. Anyone who
// could have written it could forge cursors, so it must be the server's
// own: its directory, opened without following a symlink, is owned by the
// server's user with no group or other bits (0700); the key in it, opened
// without following a symlink and without blocking (a FIFO would hang the
// start), is a regular file of the server's user with no group or other
// bits. The checks are on the open files (fstat), not on names that could
// be swapped.
func openCachedKey(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if st, lerr := os.Lstat(dir); lerr == nil && st.Mode()&fs.ModeSymlink != 0 { // ELOOP or ENOTDIR
			return nil, broken("its directory %s is a symlink: the key's directory must be the server's own, mode 0700", dir)
		}
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if err := unix.Fstat(dfd, &st); err != nil {
		return nil, &fs.PathError{Op: "fstat", Path: dir, Err: err}
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return nil, broken("its directory %s is owned by uid %d, not by the server's user (uid %d): the key's directory must be the server's own, mode 0700", dir, st.Uid, uid)
	}
	if perm := st.Mode & 0o7777; perm&0o077 != 0 {
		return nil, broken("its directory %s has mode %04o: the key's directory must have no group or other bits (chmod 700 it)", dir, perm)
	}
	fd, err := unix.Openat(dfd, filepath.Base(path), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, broken("a symlink: the key kept in the cache must be the file itself")
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return checkedKey(fd, path, false)
}

// openOperatorKey opens --cursor-key-file. A symlink is followed (a
// mounted secret is one); what it leads to must be a regular file (a FIFO
// or a device is refused before it is opened, and the open does not block
// in case it became one since) owned by the server's user or root, writable
// by no one else, readable by no other user (group read is the operator's
// choice).
func openOperatorKey(path string) (*os.File, error) {
	if err := statRegular(path); err != nil {
		return nil, err
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return checkedKey(fd, path, true)
}

// checkedKey is the key file open at fd, once checkOpenKey passes it.
func checkedKey(fd int, path string, operator bool) (*os.File, error) {
	f := os.NewFile(uintptr(fd), path)
	if err := checkOpenKey(f, operator); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkOpenKey checks an open key file with fstat: a regular file, the
// server user's (or, for the operator's, root's), and no one else may
// write it or (but the operator's group) read it.
func checkOpenKey(f *os.File, operator bool) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return broken("%s, not a regular file: a key file is a regular file", fileKind(fi.Mode()))
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return broken("its owner cannot be read: a key file must be the server user's own")
	}
	uid, perm := os.Geteuid(), fi.Mode().Perm()
	switch {
	case !operator && int(st.Uid) != uid:
		return broken("owned by uid %d, not by the server's user (uid %d): the key kept in the cache must be the server's own", st.Uid, uid)
	case !operator && perm&0o077 != 0:
		return broken("mode %04o: the key kept in the cache must have no group or other bits (chmod 600 it)", perm)
	case operator && int(st.Uid) != uid && st.Uid != 0:
		return broken("owned by uid %d: a --cursor-key-file must be owned by the server's user (uid %d) or root", st.Uid, uid)
	case operator && perm&0o022 != 0:
		return broken("mode %04o: a cursor key is a secret that no one but its owner may write (chmod go-w it)", perm)
	case operator && perm&0o004 != 0:
		return broken("mode %04o: other users may read it; a cursor key is a secret (chmod o-rwx it)", perm)
	}
	return nil
}
