package gitdir

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// maxBlockingScan bounds the directory entries Blocking looks at.
const maxBlockingScan = 50_000

// Blocking is the first FIFO, socket or device in the store's refs or
// objects directories (alternates included), named as the repository names
// it: a file git would wait on for ever. Directory entries only (their
// type, no stat, no open), at most maxBlockingScan of them: it is for
// explaining a call that has already failed. nil: none found.
func (s Store) Blocking() *FileError {
	seen := 0
	for _, dir := range append([]string{s.Refs, s.Objects}, s.Alternates...) {
		if f := blockingIn(dir, &seen); f != nil {
			f.Name = storeName(s, f.Path)
			return f
		}
	}
	return nil
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
			found = &FileError{Path: p, Kind: KindOf(d.Type())}
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
