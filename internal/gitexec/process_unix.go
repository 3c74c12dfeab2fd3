//go:build unix

package gitexec

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, and its cancel ends
// the whole group: git may have started helpers of its own.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// lowerPriority sets the CPU nice value of the process pid (raising it
// needs no privilege).
func lowerPriority(pid, nice int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice) // best effort
}
