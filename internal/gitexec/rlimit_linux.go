package gitexec

import "golang.org/x/sys/unix"

// CapsMemory: the memory cap (RLIMIT_DATA of each git child, set after it
// starts) is applied on this system.
const CapsMemory = true

// capMemory applies the memory cap to a started process. The few
// microseconds before it applies are spent starting git, not working.
func (e *Env) capMemory(pid int) error {
	if e.memory == 0 {
		return nil
	}
	return unix.Prlimit(pid, unix.RLIMIT_DATA, &unix.Rlimit{Cur: e.memory, Max: e.memory}, nil)
}
