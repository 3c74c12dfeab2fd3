package repo

// Finding the repository a directory is in, as git finds it: up to the
// first directory with a .git or a git directory's layout, no further than
// git goes (GIT_CEILING_DIRECTORIES, a filesystem boundary). A repository
// found above the directory named is served only if it is the server's
// user's own, as git's "dubious ownership" check (CVE-2022-24765) requires:
// nobody named it (docs/security.md, review 4, finding 01).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
)

// ErrNoRepository: the directory is not inside a git repository.
var ErrNoRepository = errors.New("not inside a git repository")

// found is the repository a directory is in.
type found struct {
	dir              string // the directory named: absolute, symlinks resolved
	gitDir, workTree string // absolute; workTree "" when bare
	top              string // the work tree, or the bare repository: where the walk stopped
	dotGit           string // the .git in top ("" when bare)
}

// walked: the repository lies above the directory named, which nobody named.
func (f found) walked() bool { return f.top != f.dir }

// findRepository locates the repository containing dir, the way git would
// but without running git (nothing from the repository's config runs).
func findRepository(dir string) (found, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return found{}, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return found{}, err
	}
	stop := discoveryStop(dir)
	for d := dir; ; d = filepath.Dir(d) {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			f := found{dir: dir, gitDir: dotGit, workTree: d, top: d, dotGit: dotGit}
			if !fi.IsDir() {
				f.gitDir, err = readGitFile(dotGit)
			}
			return f, err
		}
		if looksBare(d) {
			return found{dir: dir, gitDir: d, top: d}, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return found{}, fmt.Errorf("%w: %s", ErrNoRepository, dir)
		}
		if why := stop(up); why != "" {
			return found{}, fmt.Errorf("%w: %s (the search stopped below %s: %s, as git's does)", ErrNoRepository, dir, up, why)
		}
	}
}

// discoveryStop says why the walk up from dir must not enter a directory,
// or "": git does not enter a directory of GIT_CEILING_DIRECTORIES (nor
// look above one), nor cross into another filesystem unless
// GIT_DISCOVERY_ACROSS_FILESYSTEM is set.
func discoveryStop(dir string) func(up string) string {
	var ceilings []string
	for _, c := range filepath.SplitList(os.Getenv("GIT_CEILING_DIRECTORIES")) {
		if !filepath.IsAbs(c) {
			continue // git ignores relative entries
		}
		if real, err := filepath.EvalSymlinks(c); err == nil {
			c = real
		}
		ceilings = append(ceilings, filepath.Clean(c))
	}
	across := envBool("GIT_DISCOVERY_ACROSS_FILESYSTEM")
	dev, hasDev := deviceOf(dir)
	return func(up string) string {
		for _, c := range ceilings {
			if c == up {
				return "it is in GIT_CEILING_DIRECTORIES"
			}
		}
		if d, ok := deviceOf(up); !across && hasDev && ok && d != dev {
			return "it is on another filesystem, and GIT_DISCOVERY_ACROSS_FILESYSTEM is not set"
		}
		return ""
	}
}

// envBool reads a boolean environment variable as git does.
func envBool(name string) bool {
	v := strings.ToLower(os.Getenv(name))
	b, err := strconv.ParseBool(v)
	return b && err == nil || v == "yes" || v == "on"
}

// deviceOf is the filesystem p lies on.
func deviceOf(p string) (uint64, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, false
	}
	return fileDevice(fi)
}

// NotOwnedError: the repository found by walking up from a directory
// belongs to another user than the server's, and nobody named it.
type NotOwnedError struct {
	Dir, Top string // the directory named; the repository found above it
	Path     string // what of it another user owns
	UID      int    // that user (-1: the owner could not be read)
}

// Reason says why the repository is not served.
func (e *NotOwnedError) Reason() string {
	owner := fmt.Sprintf("is owned by uid %d, not by this server's user (uid %d)", e.UID, os.Geteuid())
	if e.UID < 0 {
		owner = "cannot be looked at to see who owns it"
	}
	return fmt.Sprintf("%s %s; git refuses a repository found by walking up as dubious ownership (CVE-2022-24765), and so does this server: name it itself (--repo %s, or it as an MCP root) to serve it", e.Path, owner, e.Top)
}

func (e *NotOwnedError) Error() string {
	return fmt.Sprintf("the repository found above %s, %s, is not served: %s", e.Dir, e.Top, e.Reason())
}

// checkOwner refuses a repository found by walking up when another user
// owns its top, its .git, its git directory or the store directories given
// (the rule --root applies, otherOwner). A directory that is a
// repository's top is served whoever owns it, as --repo serves it.
func (f found) checkOwner(store ...string) error {
	if !f.walked() {
		return nil
	}
	path, uid, other := otherOwner(append([]string{f.top, f.dotGit, f.gitDir}, store...)...)
	if !other {
		return nil
	}
	return &NotOwnedError{Dir: f.dir, Top: f.top, Path: path, UID: uid}
}

// readGitFile follows a ".git" file ("gitdir: PATH"), as linked work trees
// and submodules have.
func readGitFile(p string) (string, error) {
	data, err := gitdir.ReadSmallFile(p)
	if err != nil {
		return "", err
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return "", errors.New("invalid .git file: " + p)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	return filepath.EvalSymlinks(target)
}

// looksBare reports whether d has the layout of a git directory.
func looksBare(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}
