package repo

// Root mode: the repository a name means under the root, as spelled on
// disk, and why one found there is refused.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
)

func (s *Served) openUnderRoot(ctx context.Context, owner, repo string) (*Repository, error) {
	if !ValidName(owner) || !ValidName(repo) {
		return nil, invalidName(owner, repo)
	}
	// Locate on every call, so that a name means the same repository
	// whatever was opened before, and a repository that stopped being
	// servable is refused; cache by the name found on disk. The lock
	// covers the map only, not the file system.
	o, n, c, ok := s.locate(owner, repo)
	if !ok {
		return nil, errcode.New(errcode.NotFound, "repository %s/%s is not served (%s)", owner, repo, s.describe(ctx))
	}
	if c.refused != "" {
		return nil, errcode.New(errcode.PermissionDenied, "repository %s/%s is not served: %s", o, n, c.refused)
	}
	key := o + "/" + n
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.open[key]; ok {
		return r, nil
	}
	g := git.Open(s.env, c.gitDir, c.workTree)
	g.ConfineReads(s.root)
	r := &Repository{Owner: o, Name: n, Git: g, storeInTree: storeInWorkTree(c.store, c.workTree)}
	s.open[key] = r
	return r, nil
}

// candidate is a repository found under the root: where it lives, and why
// it is not served when it is not.
type candidate struct {
	gitDir, workTree string // absolute, symlinks resolved; workTree "" when bare
	store            gitdir.Store
	refused          string // "" when it is served
}

// locate finds OWNER/REPO/.git or OWNER/REPO.git under the root and returns
// the names as spelled on disk. Names ignore case: the name as given is
// tried first, then in lower case (Gitea stores names in lower case), then
// any other spelling found in the directories. The first repository found
// is the one the name means, even when it is refused.
func (s *Served) locate(owner, repo string) (o, n string, c candidate, ok bool) {
	for _, o := range unique(owner, strings.ToLower(owner)) {
		for _, n := range unique(repo, strings.ToLower(repo)) {
			if c, ok := s.at(o, n); ok {
				return o, n, c, true
			}
		}
	}
	for _, o := range spellings(s.root, owner, "") {
		for _, n := range spellings(filepath.Join(s.root, o), repo, ".git") {
			if c, ok := s.at(o, n); ok {
				return o, n, c, true
			}
		}
	}
	return "", "", candidate{}, false
}

// spellings lists the valid names of dir's entries (without suffix) that
// equal name ignoring case.
func spellings(dir, name, suffix string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		base := strings.TrimSuffix(e.Name(), suffix)
		if ValidName(base) && strings.EqualFold(base, name) && !slices.Contains(out, base) {
			out = append(out, base)
		}
	}
	return out
}

// at finds exactly ROOT/OWNER/REPO/.git or ROOT/OWNER/REPO.git, ignores
// anything whose real path leaves the root, and says why what it found is
// refused, if it is.
func (s *Served) at(owner, repo string) (candidate, bool) {
	dir := filepath.Join(s.root, owner, repo)
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
		if gd, wt, ok := s.inside(filepath.Join(dir, ".git"), dir); ok {
			return s.check(gd, wt), true
		}
	}
	if bare := dir + ".git"; looksBare(bare) {
		if gd, _, ok := s.inside(bare, bare); ok {
			return s.check(gd, ""), true
		}
	}
	return candidate{}, false
}

// check reads a repository's store and refuses it when its data leaves the
// root or, unless allowed, it belongs to another user. Files only: cheap
// enough to run on every call and for every repository listed.
func (s *Served) check(gitDir, workTree string) candidate {
	c := candidate{gitDir: gitDir, workTree: workTree}
	store, refused := readStore(gitDir)
	if refused == nil {
		refused = containedStore(store, []string{s.root}, "the served root")
	}
	c.store = store
	switch {
	case refused != nil:
		c.refused = refused.why
	case !s.opts.AllowOtherOwners:
		if _, uid, other := otherOwner(append(store.Dirs(), workTree)...); other {
			c.refused = fmt.Sprintf("it belongs to another user (uid %d) than the server's (uid %d), and git itself refuses such a repository (\"dubious ownership\"); "+
				"start the server with --allow-other-owners (MCP_REPO_TOOLS_ALLOW_OTHER_OWNERS=true) to serve it", uid, os.Geteuid())
		}
	}
	return c
}

// inside resolves symlinks and checks both paths stay under the root.
func (s *Served) inside(gitDir, workTree string) (string, string, bool) {
	gd, err := filepath.EvalSymlinks(gitDir)
	if err != nil || !gitdir.Within(s.root, gd) {
		return "", "", false
	}
	wt, err := filepath.EvalSymlinks(workTree)
	if err != nil || !gitdir.Within(s.root, wt) {
		return "", "", false
	}
	return gd, wt, true
}

func unique(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}
