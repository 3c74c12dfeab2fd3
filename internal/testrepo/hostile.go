package testrepo

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Ways a repository's git directory can take its data from elsewhere; each
// is followed by plain git.
const (
	ViaCommondir          = "commondir"            // .git/commondir names another git directory
	ViaAlternates         = "alternates"           // objects/info/alternates names another objects directory
	ViaAlternatesRelative = "relative alternates"  // the same, relative to the objects directory
	ViaAlternatesQuoted   = "C-quoted alternates"  // the same, quoted as git quotes unusual paths
	ViaAlternatesChained  = "chained alternates"   // alternates to a second repository, whose alternates go on
	ViaObjectsSymlink     = "objects symlink"      // .git/objects is a symlink
	ViaRefsSymlink        = "refs symlink"         // .git/refs is a symlink
	ViaPackSymlink        = "objects/pack symlink" // .git/objects/pack is a symlink
)

// Reaches lists every way, for table tests.
var Reaches = []string{
	ViaCommondir, ViaAlternates, ViaAlternatesRelative, ViaAlternatesQuoted,
	ViaAlternatesChained, ViaObjectsSymlink, ViaRefsSymlink, ViaPackSymlink,
}

// Reach makes r read other's data the given way: afterwards plain git
// reads other's objects (or refs) through r. hop is a directory for the
// repository a chained alternate passes through.
func (r *Repo) Reach(how string, other *Repo, hop string) {
	r.t.Helper()
	gitDir := filepath.Join(r.Dir, ".git")
	otherGit := filepath.Join(other.Dir, ".git")
	if other.Bare {
		otherGit = other.Dir
	}
	alternates := filepath.Join(gitDir, "objects", "info", "alternates")
	switch how {
	case ViaCommondir:
		r.writeFile(filepath.Join(gitDir, "commondir"), otherGit+"\n")
	case ViaAlternates:
		r.writeFile(alternates, filepath.Join(otherGit, "objects")+"\n")
	case ViaAlternatesRelative:
		rel, err := filepath.Rel(filepath.Join(gitDir, "objects"), filepath.Join(otherGit, "objects"))
		if err != nil {
			r.t.Fatal(err)
		}
		r.writeFile(alternates, rel+"\n")
	case ViaAlternatesQuoted:
		r.writeFile(alternates, "# borrowed\n\""+strings.ReplaceAll(filepath.Join(otherGit, "objects"), `"`, `\"`)+"\"\n")
	case ViaAlternatesChained:
		middle := Init(r.t, hop)
		middle.Reach(ViaAlternates, other, "")
		r.writeFile(alternates, filepath.Join(middle.Dir, ".git", "objects")+"\n")
	case ViaObjectsSymlink, ViaRefsSymlink:
		name := "objects"
		if how == ViaRefsSymlink {
			name = "refs"
		}
		r.replaceWithSymlink(filepath.Join(gitDir, name), filepath.Join(otherGit, name))
	case ViaPackSymlink:
		other.Git("repack", "-q", "-a", "-d")
		r.replaceWithSymlink(filepath.Join(gitDir, "objects", "pack"), filepath.Join(otherGit, "objects", "pack"))
	default:
		r.t.Fatalf("unknown way %q", how)
	}
}

func (r *Repo) writeFile(p, content string) {
	r.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *Repo) replaceWithSymlink(p, target string) {
	r.t.Helper()
	if err := os.RemoveAll(p); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		r.t.Fatal(err)
	}
}

// InitSeparate creates a non-bare repository at dir whose git directory is
// dir/gitDir, inside the work tree under another name than .git (dir/.git
// is a "gitdir:" file), with every file of that git directory committed,
// as `git add -A` does: git's own work-tree commands then read it.
func InitSeparate(t testing.TB, dir, gitDir string) *Repo {
	t.Helper()
	home := t.TempDir()
	r := &Repo{t: t, Dir: dir, env: Env(home)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("init", "-q", "-b", "main", "--separate-git-dir="+filepath.Join(dir, gitDir), dir)
	return r
}

// ChownAll gives path and everything below it (symlinks themselves, not
// their targets) to uid and gid. Only root may.
func ChownAll(t testing.TB, path string, uid, gid int) {
	t.Helper()
	err := filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}
