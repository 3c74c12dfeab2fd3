package repo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
)

// storeDir is one directory a repository reads its data from, and what it
// is to the repository.
type storeDir struct {
	what, path string
}

// storeDirs names every directory of a store, for messages.
func storeDirs(s gitdir.Store) []storeDir {
	dirs := []storeDir{
		{"git directory", s.GitDir},
		{"common directory (named by commondir)", s.CommonDir},
		{"objects directory", s.Objects},
		{"refs directory", s.Refs},
	}
	for _, a := range s.Alternates {
		dirs = append(dirs, storeDir{"alternate object directory (objects/info/alternates)", a})
	}
	return dirs
}

// storeRefused says why a repository's store is not served.
type storeRefused struct {
	why    string // without paths: safe to tell any client
	detail string // with paths, for the operator
}

func (e *storeRefused) Error() string { return e.detail }

// readStore reads where the repository at gitDir keeps its data.
func readStore(gitDir string) (gitdir.Store, *storeRefused) {
	s, err := gitdir.ReadStore(gitDir)
	var file *gitdir.FileError
	if errors.As(err, &file) {
		return s, &storeRefused{fileRefused(file), "its object store cannot be read: " + err.Error()}
	}
	if err != nil {
		return s, &storeRefused{
			"its object store cannot be read (a commondir, alternate, objects or refs directory is missing)",
			"its object store cannot be read: " + err.Error()}
	}
	return s, nil
}

// fileRefused says, naming the file as the git directory does and no path,
// why a file that is not a regular one keeps a repository from being served.
func fileRefused(e *gitdir.FileError) string {
	if e.Kind == "a symlink" {
		return fmt.Sprintf("its %s is a symlink, and neither git nor the server reads a git directory's files through a link (replace it with the file it points to)", e.Name)
	}
	return fmt.Sprintf("its %s is %s, not a regular file: git would wait on it until the call's deadline", e.Name, e.Kind)
}

// containedStore refuses a store when any of it lies outside dirs (called
// where in messages to clients): through commondir, alternates or a
// symlinked objects or refs directory, a repository would serve another
// repository's files.
func containedStore(s gitdir.Store, dirs []string, where string) *storeRefused {
	inside := func(p string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { return gitdir.Within(d, p) })
	}
	for _, d := range storeDirs(s) {
		if !inside(d.path) {
			return &storeRefused{
				fmt.Sprintf("its %s lies outside %s", d.what, where),
				fmt.Sprintf("its %s %s lies outside %s", d.what, d.path, strings.Join(dirs, " and "))}
		}
	}
	// Git follows symlinks inside the objects directory too (objects/pack,
	// objects/ab): one level down is cheap to check. Deeper links (a
	// single loose object or pack file) are left to the sandbox.
	for _, objects := range append([]string{s.Objects}, s.Alternates...) {
		for _, sub := range []string{objects, filepath.Join(objects, "pack")} {
			if link := linkLeaving(sub, inside); link != "" {
				return &storeRefused{
					"its objects directory holds a symlink leading outside " + where,
					fmt.Sprintf("its objects directory holds a symlink %s leading outside %s", link, strings.Join(dirs, " and "))}
			}
		}
	}
	return nil
}

// ownDirs are where a repository served with --repo may keep its data: its
// work tree (a bare repository's git directory), and the git directory a
// .git file names elsewhere (a submodule's checkout, --separate-git-dir),
// which for a linked work tree (git worktree add) lies in the main
// repository's git directory: that one, then.
func ownDirs(s gitdir.Store, workTree string) []string {
	if workTree == "" {
		return []string{s.GitDir}
	}
	dirs := []string{workTree}
	if !gitdir.Within(workTree, s.GitDir) {
		home := s.GitDir
		if gitdir.Within(s.CommonDir, s.GitDir) {
			home = s.CommonDir
		}
		dirs = append(dirs, home)
	}
	return dirs
}

// linkLeaving returns the first symlink directly in dir whose target lies
// where allowed says no (or cannot be resolved), or "".
func linkLeaving(dir string, allowed func(string) bool) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink == 0 {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if real, err := filepath.EvalSymlinks(p); err != nil || !allowed(real) {
			return p
		}
	}
	return ""
}

// storeInWorkTree lists the store's directories that lie inside workTree,
// relative to it and slash-separated ("." when one is the work tree
// itself): a git directory need not be named .git, and work-tree reads
// must never show one.
func storeInWorkTree(s gitdir.Store, workTree string) []string {
	if workTree == "" {
		return nil
	}
	var out []string
	for _, d := range s.Dirs() {
		if rel, err := filepath.Rel(workTree, d); err == nil && gitdir.Within(workTree, d) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// otherOwner returns the first of paths whose owner is not the server's
// effective user, and that owner ("" paths are skipped; -1 when a path
// cannot be read). git refuses such a repository ("dubious ownership")
// unless told it is safe; the server names the repository with --git-dir,
// which skips git's check, so it checks itself.
func otherOwner(paths ...string) (string, int, bool) {
	me := os.Geteuid()
	for _, p := range paths {
		if p == "" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return p, -1, true
		}
		if uid, ok := fileOwner(fi); ok && uid != me {
			return p, uid, true
		}
	}
	return "", 0, false
}

// underStore reports whether rel (a work-tree path) is one of dirs or lies
// below one. Case is ignored, as a case-insensitive file system would.
func underStore(dirs []string, rel string) bool {
	rel = strings.ToLower(rel)
	for _, d := range dirs {
		d = strings.ToLower(d)
		if d == "." || rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}
