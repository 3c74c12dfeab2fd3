package git

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// CapsMemory: the memory cap (RLIMIT_DATA of each git child, set after it
// starts) is applied on this system.
const CapsMemory = true

// MachineMemory is the memory this process may use: the machine's, or
// its cgroup's limit when lower.
func MachineMemory() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	total := uint64(si.Totalram) * uint64(si.Unit)
	if data, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64); err == nil && limit < total {
			total = limit
		}
	}
	return total
}

// capMemory applies the memory cap to a started process. The few
// microseconds before it applies are spent starting git, not working.
func (e *Env) capMemory(pid int) error {
	if e.memory == 0 {
		return nil
	}
	return unix.Prlimit(pid, unix.RLIMIT_DATA, &unix.Rlimit{Cur: e.memory, Max: e.memory}, nil)
}
