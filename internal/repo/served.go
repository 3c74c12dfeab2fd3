package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
)

// Served is the set of repositories a server answers for: one repository
// (--repo) or every repository under a root directory (--root).
type Served struct {
	env    *git.Env
	single *Repository
	root   string // absolute, symlinks resolved; "" in single mode
	source Source // repositories fetched from elsewhere (a forge), or nil
	opts   RootOptions

	mu   sync.Mutex
	open map[string]*Repository // root mode: opened so far, by OWNER/REPO as spelled on disk

	listing listCache // root mode: the last scan of the root
}

// listTTL is how long a scan of the root answers list_repositories and
// names what is served in errors: a root of 50,000 repositories takes
// seconds to scan, and clients must not be able to make every call pay it.
const listTTL = 10 * time.Second

// listCache keeps the last scan of the root. scanning holds one token: one
// scan at a time, and a caller waiting for it can give up at its deadline.
type listCache struct {
	mu       sync.Mutex
	list     []Info
	at       time.Time
	scanning chan struct{}
}

// fresh returns the cached list if it is younger than listTTL.
func (c *listCache) fresh() ([]Info, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.list == nil || time.Since(c.at) > listTTL {
		return nil, false
	}
	return c.list, true
}

func (c *listCache) store(list []Info) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list, c.at = list, time.Now()
}

// ServeOne serves the repository containing path. name ("owner/repo")
// overrides the name taken from the origin remote.
func ServeOne(ctx context.Context, env *git.Env, path, name string) (*Served, error) {
	gitDir, workTree, err := findRepository(path)
	if err != nil {
		return nil, err
	}
	// The repository's own directories: its data must lie inside them.
	store, refused := readStore(gitDir)
	own := ownDirs(store, workTree)
	if refused == nil {
		refused = containedStore(store, own, "the repository's own directories")
	}
	if refused != nil {
		return nil, fmt.Errorf("%s is not served: %w", own[0], refused)
	}
	g := git.Open(env, gitDir, workTree)
	g.ConfineReads(own...)
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
			base := workTree
			if base == "" {
				base = gitDir
			}
			n := strings.TrimSuffix(filepath.Base(base), ".git")
			if n == "" { // started inside a work tree's .git: name it after the work tree
				n = filepath.Base(filepath.Dir(base))
			}
			r.Owner, r.Name = "local", sanitizeName(n)
		}
	}
	return &Served{env: env, single: r}, nil
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
		return nil, errcode.New(errcode.InvalidArgument, "owner and repo are required (%s; list_repositories lists them)", s.describe(ctx))
	}
	repo = strings.TrimSuffix(repo, ".git")
	if s.single != nil {
		if strings.EqualFold(owner, s.single.Owner) && strings.EqualFold(repo, s.single.Name) {
			return s.single, nil
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

// invalidName says what a repository name may hold. It quotes the whole
// name as given, so the answer shows exactly what was wrong.
func invalidName(owner, repo string) error {
	return errcode.New(errcode.InvalidArgument, "%q is not a repository name: owner and repo are each 1 to 255 letters, digits, '-', '_' or '.' (not \".\" or \"..\")", owner+"/"+repo)
}

// candidate is a repository found under the root: where it lives, and why
// it is not served when it is not.
type candidate struct {
	gitDir, workTree string // absolute, symlinks resolved; workTree "" when bare
	store            git.Store
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
		if uid, other := otherOwner(append(store.Dirs(), workTree)...); other {
			c.refused = fmt.Sprintf("it belongs to another user (uid %d) than the server's (uid %d), and git itself refuses such a repository (\"dubious ownership\"); "+
				"start the server with --allow-other-owners (MCP_REPO_TOOLS_ALLOW_OTHER_OWNERS=true) to serve it", uid, os.Geteuid())
		}
	}
	return c
}

// inside resolves symlinks and checks both paths stay under the root.
func (s *Served) inside(gitDir, workTree string) (string, string, bool) {
	gd, err := filepath.EvalSymlinks(gitDir)
	if err != nil || !git.Within(s.root, gd) {
		return "", "", false
	}
	wt, err := filepath.EvalSymlinks(workTree)
	if err != nil || !git.Within(s.root, wt) {
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

// Info describes a served repository for list_repositories.
type Info struct {
	Owner         string `json:"owner"`
	Name          string `json:"repo"`
	Bare          bool   `json:"bare"`
	DefaultBranch string `json:"defaultBranch"`
}

// List returns every served repository, sorted by name. In root mode it
// reads the directory tree, not git, at most once per listTTL.
func (s *Served) List(ctx context.Context) ([]Info, error) {
	if s.source != nil {
		return s.source.List(ctx)
	}
	if s.single != nil {
		r := s.single
		return []Info{{Owner: r.Owner, Name: r.Name, Bare: r.Bare(), DefaultBranch: headBranch(r.Git.GitDir())}}, nil
	}
	if list, ok := s.listing.fresh(); ok {
		return list, nil
	}
	select {
	case s.listing.scanning <- struct{}{}:
		defer func() { <-s.listing.scanning }()
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if list, ok := s.listing.fresh(); ok { // scanned while this call waited
		return list, nil
	}
	list, err := s.scan(ctx)
	if err == nil {
		s.listing.store(list)
	}
	return list, err
}

// scan lists the repositories under the root. It opens no file that could
// block (ReadSmallFile) and stops at the call's deadline.
func (s *Served) scan(ctx context.Context) ([]Info, error) {
	owners, err := os.ReadDir(s.root)
	if err != nil {
		return nil, err
	}
	out := []Info{} // not nil: an empty root is cached too
	for _, o := range owners {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !ValidName(o.Name()) || !isDir(filepath.Join(s.root, o.Name())) {
			continue
		}
		repos, err := os.ReadDir(filepath.Join(s.root, o.Name()))
		if err != nil {
			continue
		}
		for _, e := range repos {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			name := e.Name()
			bare := strings.HasSuffix(name, ".git")
			base := strings.TrimSuffix(name, ".git")
			if !ValidName(base) {
				continue
			}
			c, ok := s.at(o.Name(), base)
			if !ok || c.refused != "" || (c.workTree == "") != bare {
				continue
			}
			out = append(out, Info{Owner: o.Name(), Name: base, Bare: bare, DefaultBranch: headBranch(c.gitDir)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Owner+"/"+out[i].Name < out[j].Owner+"/"+out[j].Name
	})
	return out, nil
}

// headBranch reads the branch HEAD names from the HEAD file.
func headBranch(gitDir string) string {
	data, err := git.ReadSmallFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/heads/")
	if !ok {
		return ""
	}
	return ref
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// describe says what is served, for errors about names.
// describeRoom bounds the names describe lists.
const describeRoom = 2000

func (s *Served) describe(ctx context.Context) string {
	if s.source != nil {
		return s.source.Describe()
	}
	if s.single != nil {
		return "this server serves " + s.single.FullName()
	}
	// Only a recent listing: an unknown name must not cost a scan of the
	// root (a hostile client could send nothing else).
	list, ok := s.listing.fresh()
	switch {
	case !ok:
		return "list_repositories lists what is served"
	case len(list) == 0:
		return "no repositories are served under the root"
	}
	// At most 20 names and describeRoom bytes of them: names may be long,
	// and the error this ends must stay short enough to be read whole.
	names, size := make([]string, 0, min(len(list), 20)), 0
	for _, r := range list[:min(len(list), 20)] {
		name := r.Owner + "/" + r.Name
		if size += len(name) + 2; size > describeRoom {
			break
		}
		names = append(names, name)
	}
	more := ""
	if len(names) < len(list) {
		more = fmt.Sprintf(" and %d more; list_repositories lists them all", len(list)-len(names))
	}
	return "served: " + strings.Join(names, ", ") + more
}
