//go:build unix

package gitexec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// lockHome creates dir's lock file and locks it, for as long as it is
// open (the descriptor is not inherited by git: Go opens files close on
// exec).
func lockHome(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, homeLock), os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600) //nolint:gosec // G304: the lock of a home this process just made
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// leftover: root/name, whose name says pid made it, is a home its server
// left: a directory (not a link to one) of this user, whose server is not
// running, whose lock is free or was never made. A server of this pid
// that runs is another (a container's server is pid 1 at every start),
// so for this process's own pid the lock alone says; this process's own
// homes are all locked (homesMu).
func leftover(root, name string, pid int) bool {
	dir := filepath.Join(root, name)
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Geteuid() {
		return false
	}
	if pid != os.Getpid() && running(pid) {
		return false // its server, or one starting: its lock may not be made yet
	}
	return lockFree(filepath.Join(dir, homeLock))
}

// running: a process pid exists (one of another user's counts).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// lockFree: no process holds the lock file at path, or there is none (a
// server killed between making its home and its lock). A lock file that
// is not a regular file of its own is not taken for free.
func lockFree(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0) //nolint:gosec // G304: the lock of a home of this user's, never through a link
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false
	}
	// Closing the file lets the lock go; unlocking first is only tidy.
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}
