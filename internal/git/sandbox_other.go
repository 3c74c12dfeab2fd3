//go:build !linux

package git

import (
	"errors"
	"os/exec"
)

// sandbox exists only on Linux (Landlock); elsewhere git children run
// with the command-line settings and the path policy alone.
type sandbox struct{}

func newSandbox(string) (*sandbox, error) {
	return nil, errors.New("the OS sandbox needs Linux with Landlock")
}

func (*sandbox) describe() string { return "" }

func (*sandbox) start(*exec.Cmd, []grant, bool) error {
	return errors.New("no sandbox on this OS")
}
