//go:build !linux

package sysmem

// Total is the machine's memory (machineMemory, per system), or 0 if
// unknown.
func Total() uint64 { return machineMemory() }
