package gitdir

import (
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens path for reading unless a symlink or other reparse
// point is in its place (ELOOP). Windows' open has no O_NOFOLLOW: the
// name is checked before the open and the handle after it, and the two
// must be the same file.
func openNoFollow(path string) (*os.File, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if before.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	f, err := os.Open(path) //nolint:gosec // G304: a git directory's own file, found by the caller
	if err != nil {
		return nil, err
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return f, nil
}
