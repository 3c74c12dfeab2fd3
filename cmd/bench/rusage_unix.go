//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// ownCPU is the CPU time this process has used, user and system, to the
// microsecond (getrusage).
func ownCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is a finished process's peak resident set in bytes, or 0.
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes on macOS
	}
	return int64(ru.Maxrss) << 10 // kilobytes on Linux
}
