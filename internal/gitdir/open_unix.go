//go:build unix

package gitdir

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a symlink in its
// place (ELOOP) and without waiting on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0) //nolint:gosec // G304: a git directory's own file, found by the caller
}
