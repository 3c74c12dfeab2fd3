//go:build !linux

package git

// CapsMemory: the memory cap is not applied here. It is the RLIMIT_DATA of
// each git child, set after the child starts (prlimit), which only Linux
// has; macOS cannot set another process's limits and Windows would need a
// job object. --git-memory-budget and --max-git-memory still say what the
// share would be.
const CapsMemory = false

// MachineMemory is the machine's memory (machineMemory, per system), or 0
// if unknown.
func MachineMemory() uint64 { return machineMemory() }

func (e *Env) capMemory(int) error { return nil }
