//go:build !linux

package gitexec

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
)

// sandbox is never made here: Landlock, the sandbox's mechanism, is
// Linux's alone. --sandbox auto then runs git unconfined and says so;
// --sandbox required refuses to start.
type sandbox struct{}

var errNoLandlock = errors.New("no sandbox on " + runtime.GOOS + ": Landlock is Linux-only; git runs without an OS sandbox (the command-line settings still apply)")

func newSandbox(string) (*sandbox, error) { return nil, errNoLandlock }

func (s *sandbox) describe() string { return "off" }

func (s *sandbox) ruleset([]grant, bool) (*os.File, error) { return nil, errNoLandlock }

func (s *sandbox) start(*exec.Cmd, []grant, bool) error { return errNoLandlock }

func (s *sandbox) startWith(*exec.Cmd, *os.File) error { return errNoLandlock }
