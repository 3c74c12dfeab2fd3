package git

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// BlockedError is a call's deadline that passed while git ran on a
// repository whose refs or objects directory holds a file git waits on
// for ever (a FIFO): retrying cannot help until the repository's owner
// replaces it.
type BlockedError struct {
	File  *FileError
	Cause error // why git was stopped: the call's deadline
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%v: git was waiting on %s, %s in the repository's git directory", e.Cause, e.File.Name, e.File.Kind)
}

func (e *BlockedError) Unwrap() error { return e.Cause }

// maxBlockingScan bounds the directory entries blockedBy looks at.
const maxBlockingScan = 50_000

// blockedBy explains a deadline that stopped git: if the repository's refs
// or objects directories hold a file git would wait on, the error names
// it. Directory entries only (their type, no stat, no open), at most
// maxBlockingScan of them: it runs only when a call has already failed.
func (r *Repo) blockedBy(cause error) error {
	st, err := r.storeLayout()
	if err != nil {
		return cause
	}
	seen := 0
	for _, dir := range append([]string{st.Refs, st.Objects}, st.Alternates...) {
		if f := blockingIn(dir, &seen); f != nil {
			f.Name = storeName(st, f.Path)
			return &BlockedError{File: f, Cause: cause}
		}
	}
	return cause
}

// blockingIn finds the first FIFO, socket or device below dir.
func blockingIn(dir string, seen *int) *FileError {
	var found *FileError
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		*seen++
		switch {
		case *seen > maxBlockingScan:
			return filepath.SkipAll
		case err != nil:
			return nil
		case d.Type()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice) != 0:
			found = &FileError{Path: p, Kind: fileKind(d.Type())}
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// storeName is how the repository names a path of its store: relative to
// its common directory when it lies there ("refs/heads/x", "objects/ab/…"),
// else the path's last three elements (an alternate's).
func storeName(st Store, p string) string {
	for _, d := range []struct{ dir, as string }{{st.Refs, "refs"}, {st.Objects, "objects"}} {
		if rel, err := filepath.Rel(d.dir, p); err == nil && Within(d.dir, p) {
			return filepath.ToSlash(filepath.Join(d.as, rel))
		}
	}
	parts := strings.Split(filepath.ToSlash(p), "/")
	return "alternate objects/" + strings.Join(parts[max(0, len(parts)-2):], "/")
}
