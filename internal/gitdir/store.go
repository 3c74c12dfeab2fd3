// Package gitdir finds where a repository's data lives on disk, reading a
// git directory's own small files (HEAD, commondir, alternates) the way git
// reads them, and refusing what would make a reader wait or read elsewhere
// (a FIFO, a symlink): no git process runs. The sandbox grants reads on the
// directories it finds (package gitexec); package repo checks they lie
// where a served repository may keep them.
package gitdir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Store is where a repository's data really lives: a git directory may
// point elsewhere through its commondir file, a symlinked objects or refs
// directory, and alternates (recursively). Every path is absolute with
// symlinks resolved, so a caller can check that each lies where it should
// and the sandbox can grant reads on exactly these.
type Store struct {
	GitDir     string   // the git directory itself
	CommonDir  string   // where shared data lives (GitDir unless commondir says otherwise)
	Objects    string   // CommonDir/objects, resolved
	Refs       string   // CommonDir/refs, resolved
	Alternates []string // object directories borrowed through objects/info/alternates
}

// Dirs lists every directory of the store, without repeats.
func (s Store) Dirs() []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range append([]string{s.GitDir, s.CommonDir, s.Objects, s.Refs}, s.Alternates...) {
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// maxAlternateDepth is git's own limit on chained alternates.
const maxAlternateDepth = 5

// ReadStore finds where the repository at gitDir keeps its data, reading
// files only (no git process: nothing of the repository runs). It follows
// what git follows: commondir, the objects and refs directories, and
// alternates as deep as git does.
func ReadStore(gitDir string) (Store, error) {
	var s Store
	var err error
	if s.GitDir, err = filepath.EvalSymlinks(gitDir); err != nil {
		return s, err
	}
	s.CommonDir = s.GitDir
	if err := regularFiles(s.GitDir, "HEAD", "config", "config.worktree", "index", "packed-refs"); err != nil {
		return s, err
	}
	data, err := ReadSmallFile(filepath.Join(s.GitDir, "commondir"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil: // git would block on a FIFO here, or fail
		return s, fmt.Errorf("commondir: %w", named(err, "commondir"))
	default:
		p := strings.TrimRight(string(data), "\r\n")
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.GitDir, p)
		}
		if s.CommonDir, err = filepath.EvalSymlinks(p); err != nil {
			return s, fmt.Errorf("commondir %s: %w", p, err)
		}
	}
	if err := regularFiles(s.CommonDir, "config", "packed-refs"); err != nil {
		return s, err
	}
	if s.Objects, err = filepath.EvalSymlinks(filepath.Join(s.CommonDir, "objects")); err != nil {
		return s, fmt.Errorf("objects directory: %w", err)
	}
	if s.Refs, err = filepath.EvalSymlinks(filepath.Join(s.CommonDir, "refs")); err != nil {
		return s, fmt.Errorf("refs directory: %w", err)
	}
	seen := map[string]bool{s.Objects: true}
	s.Alternates, err = readAlternates(s.Objects, seen, 0)
	return s, err
}

// regularFiles checks that those of names present in dir are regular files:
// git reads them whole, and would wait forever on a FIFO in their place or
// follow a symlink anywhere.
func regularFiles(dir string, names ...string) error {
	for _, name := range names {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err == nil && !fi.Mode().IsRegular() {
			return &FileError{Path: p, Name: name, Kind: KindOf(fi.Mode())}
		}
	}
	return nil
}

// FileError is a file of a git directory that is not a regular file:
// through a symlink git (or the server) would read a file anywhere, on a
// FIFO it would wait for ever. Neither reads it.
type FileError struct {
	Path string // absolute
	Name string // as the git directory names it: "HEAD", "objects/info/alternates"
	Kind string // "a symlink", "a FIFO", ...
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.Kind)
}

// KindOf says what a file that is not a regular one is.
func KindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

// named gives a FileError the name the git directory knows the file by.
func named(err error, name string) error {
	var fe *FileError
	if errors.As(err, &fe) {
		fe.Name = name
	}
	return err
}

// readAlternates lists the object directories objects/info/alternates names,
// and theirs in turn.
func readAlternates(objects string, seen map[string]bool, depth int) ([]string, error) {
	data, err := ReadSmallFile(filepath.Join(objects, "info", "alternates"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil { // git would block on a FIFO here
		return nil, fmt.Errorf("alternates: %w", named(err, "objects/info/alternates"))
	}
	if depth >= maxAlternateDepth {
		return nil, fmt.Errorf("alternates nest deeper than %d", maxAlternateDepth)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '"' { // git writes C-quoted paths when they need it
			if unq, err := strconv.Unquote(line); err == nil {
				line = unq
			}
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(objects, line)
		}
		dir, err := filepath.EvalSymlinks(line)
		if err != nil {
			return nil, fmt.Errorf("alternate %s: %w", line, err)
		}
		if seen[dir] {
			continue
		}
		seen[dir] = true
		out = append(out, dir)
		more, err := readAlternates(dir, seen, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, sc.Err()
}

// maxSmallFile bounds what ReadSmallFile reads: the files of a git
// directory it is for (HEAD, commondir, alternates, a .git file) are a few
// lines long.
const maxSmallFile = 64 << 10

// ReadSmallFile reads one of a git directory's small files without letting
// the repository make the server wait, fill its memory or read elsewhere:
// a FIFO or device in its place is refused instead of opened for a
// blocking read, a symlink is not followed, and a file larger than 64 KiB
// is an error. A file that is not a regular one is a *FileError.
func ReadSmallFile(path string) ([]byte, error) {
	f, err := openNoFollow(path)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &FileError{Path: path, Name: filepath.Base(path), Kind: "a symlink"}
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &FileError{Path: path, Name: filepath.Base(path), Kind: KindOf(fi.Mode())}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSmallFile+1))
	if err == nil && len(data) > maxSmallFile {
		err = fmt.Errorf("%s is over %d bytes", path, maxSmallFile)
	}
	return data, err
}

// Within reports whether p is dir or below it (both clean and absolute).
func Within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
