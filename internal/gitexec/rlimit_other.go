//go:build !linux

package gitexec

// CapsMemory: the memory cap is not applied here. It is the RLIMIT_DATA of
// each git child, set after the child starts (prlimit), which only Linux
// has; macOS cannot set another process's limits and Windows would need a
// job object. --git-memory-budget and --max-git-memory still say what the
// share would be.
const CapsMemory = false

func (e *Env) capMemory(int) error { return nil }
