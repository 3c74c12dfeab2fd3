package gitexec

import (
	"context"
	"os/exec"
	"testing"
)

// What the package's external tests (package gitexec_test: the walls
// tested through internal/git, as the server meets them) use of its
// insides and of its test helpers (helpers_test.go).

var (
	RawCommand     = rawCommand
	RunWithout     = runWithout
	OutputRaw      = outputRaw
	RawOutput      = output
	WorkTreeOutput = workTreeOutput
	CommitFile     = commitFile
	TwoCommits     = twoCommits
	WriteTemp      = writeTemp
)

// SettingsOff takes the first wall down for the rest of the test: the -c
// settings leave every command line, the transport ban the environment.
func SettingsOff(t testing.TB) {
	withoutSettings = true
	t.Cleanup(func() { withoutSettings = false })
}

// OnWorkTree runs any command on the work tree, as the runner would run it
// there (Cmd.OnWorkTree refuses all but grep).
func OnWorkTree(c *Cmd) *Cmd {
	c.workTree = true
	return c
}

// SetReaderBound sets the reader table's bound, below what LimitProcesses
// allows.
func SetReaderBound(e *Env, n int) { e.readers.max = n }

// Readers is how many readers are live, and the table's bound.
func Readers(e *Env) (live, bound int) {
	e.readers.mu.Lock()
	defer e.readers.mu.Unlock()
	return e.readers.live, e.readers.max
}

// SlotCount is how many process slots there are.
func SlotCount(e *Env) int { return e.slotCount() }

// ExecCmd is the process the runner would start for c.
func ExecCmd(r *Repo, c *Cmd) *exec.Cmd { return r.execCmd(context.Background(), c) }
