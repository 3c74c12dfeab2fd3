package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
)

// Served is the set of repositories a server answers for: one repository
// (--repo) or every repository under a root directory (--root).
type Served struct {
	env    *git.Env
	single *Repository
	set    []*Repository // several repositories, each by its own name (the client's roots)
	rooted *rooted       // started outside any repository: what the client's roots name (served_roots.go)
	root   string        // absolute, symlinks resolved; "" in single mode
	source Source        // repositories fetched from elsewhere (a forge), or nil
	opts   RootOptions
	// rootsNote says why some of the client's roots are not served, or
	// not by the names their remotes claim (SetRoots); errors about names
	// end with it.
	rootsNote string

	mu   sync.Mutex
	open map[string]*Repository // root mode: opened so far, by OWNER/REPO as spelled on disk

	listing listCache // root mode: the last scan of the root
}

// ServeOne serves the repository containing path. name ("owner/repo")
// overrides the name taken from the origin remote. A repository found
// above path is served only if the server's user owns it (checkOwner).
func ServeOne(ctx context.Context, env *git.Env, path, name string) (*Served, error) {
	f, err := findRepository(path)
	if err != nil {
		return nil, err
	}
	if err := f.checkOwner(); err != nil {
		return nil, err
	}
	gitDir, workTree := f.gitDir, f.workTree
	// The repository's own directories: its data must lie inside them.
	store, refused := readStore(gitDir)
	own := ownDirs(store, workTree)
	if refused == nil {
		refused = containedStore(store, own, "the repository's own directories")
	}
	if refused != nil {
		return nil, fmt.Errorf("%s is not served: %w", own[0], refused)
	}
	if err := f.checkOwner(store.Dirs()...); err != nil {
		return nil, err
	}
	g := git.Open(env, gitDir, workTree)
	g.ConfineReads(own...)
	if err := checkRefStorage(ctx, g, gitDir); err != nil {
		g.Close()
		return nil, err
	}
	r := &Repository{Git: g, storeInTree: storeInWorkTree(store, workTree)}
	switch {
	case name != "":
		owner, n, ok := strings.Cut(name, "/")
		if !ok || !ValidName(owner) || !ValidName(n) {
			g.Close()
			return nil, fmt.Errorf("--name %q: want OWNER/REPO of letters, digits, '-', '_' and '.'", name)
		}
		r.Owner, r.Name = owner, n
	default:
		if owner, n, ok := nameFromRemote(g.ConfigValue(ctx, "remote.origin.url")); ok {
			r.Owner, r.Name = owner, n
		} else {
			r.Owner, r.Name = "local", sanitizeName(r.dirName())
		}
	}
	return &Served{env: env, single: r}, nil
}

// dirName is the name of the repository's directory: its work tree's, or
// a bare repository's without ".git".
func (r *Repository) dirName() string {
	base := r.Git.WorkTree()
	if base == "" {
		base = r.Git.GitDir()
	}
	n := strings.TrimSuffix(filepath.Base(base), ".git")
	if n == "" { // started inside a work tree's .git: name it after the work tree
		n = filepath.Base(filepath.Dir(base))
	}
	return n
}

// RootOptions relax what ServeRoot refuses.
type RootOptions struct {
	// AllowOtherOwners serves repositories owned by other users than the
	// server's effective one (git itself refuses them: "dubious ownership").
	AllowOtherOwners bool
}

// ServeRoot serves every DIR/OWNER/REPO (with .git) and DIR/OWNER/REPO.git
// whose data lies under DIR and, unless opts allow others, that belongs to
// the server's user.
func ServeRoot(env *git.Env, dir string, opts RootOptions) (*Served, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--root %s is not a directory", dir)
	}
	return &Served{env: env, root: abs, opts: opts, open: map[string]*Repository{},
		listing: listCache{scanning: make(chan struct{}, 1)}}, nil
}

// Source supplies repositories that do not live on the local disk: a
// forge's, through mirrors it keeps fresh.
type Source interface {
	// Open makes the repository's mirror fresh enough (refresh: now, a ref
	// was missing) and says where it is.
	Open(ctx context.Context, owner, name string, refresh bool) (Opened, error)
	// Describe says what is served, for errors about names.
	Describe() string
	// List lists the repositories the source serves.
	List(ctx context.Context) ([]Info, error)
}

// Opened is a mirror ready to read. Stale is set when a refresh failed and
// an older copy is served.
type Opened struct {
	GitDir string
	Stale  error
}

// ServeSource serves the repositories of a source.
func ServeSource(env *git.Env, src Source) *Served {
	return &Served{env: env, source: src, open: map[string]*Repository{}}
}

// Close ends every repository's git processes.
func (s *Served) Close() {
	if s.rooted != nil {
		s.rooted.close()
	}
	for _, r := range s.set {
		r.Git.Close()
	}
	if s.single != nil {
		s.single.Git.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.open {
		r.Git.Close()
	}
	s.open = map[string]*Repository{}
}

// Get finds the repository named owner/repo. When the server serves one
// repository and required is false, empty names select it.
func (s *Served) Get(ctx context.Context, owner, repo string, required bool) (*Repository, error) {
	if s.rooted != nil {
		cur, err := s.rooted.current(ctx)
		if err != nil {
			return nil, err
		}
		return cur.Get(ctx, owner, repo, required)
	}
	if owner == "" && repo == "" && !required {
		if s.single != nil {
			return s.single, nil
		}
		// One repository needs no name, however it is served: a root or
		// a forge that holds just one.
		if list, err := s.List(ctx); err == nil && len(list) == 1 {
			return s.Get(ctx, list[0].Owner, list[0].Name, true)
		}
	}
	if owner == "" || repo == "" {
		// list_repositories named once (docs/security.md, review 4,
		// finding 23): describe names it where it lists nothing.
		what := s.describe(ctx)
		if !strings.Contains(what, "list_repositories") {
			what += "; list_repositories lists them"
		}
		return nil, errcode.New(errcode.InvalidArgument, "owner and repo are required (%s)", what)
	}
	repo = strings.TrimSuffix(repo, ".git")
	if s.single != nil {
		if strings.EqualFold(owner, s.single.Owner) && strings.EqualFold(repo, s.single.Name) {
			return s.single, nil
		}
		return nil, errcode.New(errcode.NotFound, "repository %s/%s is not served (%s)", owner, repo, s.describe(ctx))
	}
	if s.set != nil {
		for _, r := range s.set {
			if strings.EqualFold(owner, r.Owner) && strings.EqualFold(repo, r.Name) {
				return r, nil
			}
		}
		return nil, errcode.New(errcode.NotFound, "repository %s/%s is not served (%s)", owner, repo, s.describe(ctx))
	}
	if s.source != nil {
		return s.openFromSource(ctx, owner, repo)
	}
	return s.openUnderRoot(ctx, owner, repo)
}

// openFromSource opens a source's mirror, notes when it is stale, and gives
// the repository a way to refresh when a ref is missing.
func (s *Served) openFromSource(ctx context.Context, owner, name string) (*Repository, error) {
	if !ValidName(owner) || !ValidName(name) {
		return nil, invalidName(owner, name)
	}
	o, err := s.source.Open(ctx, owner, name, false)
	if err != nil {
		return nil, err
	}
	if o.Stale != nil {
		notes.Add(ctx, o.Stale.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.open[o.GitDir]
	if !ok {
		r = &Repository{Owner: owner, Name: name, Git: git.Open(s.env, o.GitDir, "")}
		r.refresh = func(ctx context.Context) error {
			o, err := s.source.Open(ctx, owner, name, true)
			if err == nil && o.Stale != nil {
				notes.Add(ctx, o.Stale.Error())
			}
			return err
		}
		s.open[o.GitDir] = r
	}
	return r, nil
}

// invalidName says what a repository name may hold. It quotes the whole
// name as given, so the answer shows exactly what was wrong.
func invalidName(owner, repo string) error {
	return errcode.New(errcode.InvalidArgument, "%q is not a repository name: owner and repo are each 1 to 255 letters, digits, '-', '_' or '.' (not \".\" or \"..\")", owner+"/"+repo)
}

// checkRefStorage refuses at start a repository whose refs are in a
// reftable (extensions.refStorage): git before 2.45 cannot read it, and
// every call would say that "HEAD" does not name a commit.
func checkRefStorage(ctx context.Context, g *git.Repo, gitDir string) error {
	if st, err := os.Stat(filepath.Join(gitDir, "reftable")); err != nil || !st.IsDir() {
		return nil
	}
	if _, err := g.CommitID(ctx, "HEAD"); err == nil {
		return nil // this git reads it
	}
	return fmt.Errorf("%s keeps its refs in a reftable (extensions.refStorage = reftable), which git reads from version 2.45; the git on this host cannot read it: upgrade git to serve this repository", gitDir)
}
