package sysmem

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Total is the memory this process may use: the machine's, or
// its cgroup's limit when lower.
func Total() uint64 {
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
