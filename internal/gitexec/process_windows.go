package gitexec

import "os/exec"

// ownGroup: Windows has no process groups to signal; cancel ends git
// itself (a helper git started of its own ends when its pipes close).
func ownGroup(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return cmd.Process.Kill() }
}

// lowerPriority: Windows keeps its priority classes; nothing is changed.
func lowerPriority(pid, nice int) {}
