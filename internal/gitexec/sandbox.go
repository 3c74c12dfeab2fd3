package gitexec

import (
	"fmt"
	"os/exec"
	"strings"
)

// SandboxMode says whether git children run in an OS sandbox: a second wall
// behind the command-line settings, which are a deny list that each new git
// feature can get around. In the sandbox a git process can read only its
// repository and what git needs to run, write only the server's private
// directory, execute only git's own programs, and open no network
// connection (the forge fetch aside, which may write only its mirror).
type SandboxMode string

const (
	SandboxAuto     SandboxMode = "auto"     // on where the kernel supports it
	SandboxRequired SandboxMode = "required" // refuse to run without it
	SandboxOff      SandboxMode = "off"
)

// ParseSandboxMode reads a --sandbox value.
func ParseSandboxMode(s string) (SandboxMode, error) {
	switch m := SandboxMode(strings.ToLower(strings.TrimSpace(s))); m {
	case SandboxAuto, SandboxRequired, SandboxOff:
		return m, nil
	}
	return "", fmt.Errorf("--sandbox %q: want auto, required or off", s)
}

// UseSandbox turns the sandbox on or off for every git process started
// from now on, as mode asks, and says in words what is in force. Call it
// before the Env is used.
func (e *Env) UseSandbox(mode SandboxMode) (status string, err error) {
	e.sandbox = nil
	if mode == SandboxOff {
		return "off (--sandbox off)", nil
	}
	sb, err := newSandbox(e.dir)
	if err != nil {
		if mode == SandboxRequired {
			return "", fmt.Errorf("--sandbox required: %w", err)
		}
		return "off: " + err.Error(), nil
	}
	e.sandbox = sb
	return sb.describe(), nil
}

// SandboxOn reports whether git processes run sandboxed.
func (e *Env) SandboxOn() bool { return e.sandbox != nil }

// access is what a sandboxed process may do below one path.
type access int

const (
	accessRead    access = iota // read files, list directories
	accessExecute               // read and execute
	accessWrite                 // read, write, create and remove; no execute
	accessDevice                // read and write an existing file (/dev/null)
)

// grant is one path and what may be done below it.
type grant struct {
	path   string
	access access
}

// startIn starts cmd in the sandbox with the given grants on top of what
// git needs to run, or plainly when the sandbox is off.
func (e *Env) startIn(cmd *exec.Cmd, grants []grant, network bool) error {
	if e.sandbox == nil {
		return cmd.Start()
	}
	return e.sandbox.start(cmd, grants, network)
}
