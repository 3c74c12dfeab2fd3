package gitexec

import (
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
)

// BlockedError is a call's deadline that passed while git ran on a
// repository whose refs or objects directory holds a file git waits on
// for ever (a FIFO): retrying cannot help until the repository's owner
// replaces it.
type BlockedError struct {
	File  *gitdir.FileError
	Cause error // why git was stopped: the call's deadline
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%v: git was waiting on %s, %s in the repository's git directory", e.Cause, e.File.Name, e.File.Kind)
}

func (e *BlockedError) Unwrap() error { return e.Cause }

// BlockedBy explains a deadline that stopped git: if the repository's refs
// or objects directories hold a file git would wait on, the error names
// it (gitdir.Store.Blocking).
func (r *Repo) BlockedBy(cause error) error {
	st, err := r.Store()
	if err != nil {
		return cause
	}
	if f := st.Blocking(); f != nil {
		return &BlockedError{File: f, Cause: cause}
	}
	return cause
}
