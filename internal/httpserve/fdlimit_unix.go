//go:build unix

package httpserve

import "syscall"

// fdLimit is the process's open-files limit (Go raises the soft limit to
// the hard one at start), or 0 if unknown.
func fdLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur >= 1<<62 {
		return 0
	}
	return rl.Cur
}
