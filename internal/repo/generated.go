package repo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// Generated and vendored files are flagged in change lists (never hidden),
// the way GitHub's linguist tells them: by name, and by the
// linguist-generated and linguist-vendored attributes of the commit's
// .gitattributes files, which win over the names when they say anything.

const (
	attrGenerated = "linguist-generated"
	attrVendored  = "linguist-vendored"
	// maxAttrFileSize: a larger .gitattributes is ignored, and a note says
	// so (git's own limit is 100 MB; real ones are a few KiB).
	maxAttrFileSize = 256 << 10
	// maxAttrDirs bounds the directories one call looks in for a
	// .gitattributes, shallowest first: each costs a round trip to git.
	maxAttrDirs = 1000
)

// maxAttrWork bounds the pattern matching of one call (see
// git.AttrMatcher), about half a second: real files use a sliver of it, a
// hostile one (long patterns full of "*") runs out of it. A variable for
// tests.
var maxAttrWork int64 = 250_000_000

// lockFiles are the package managers' lock files, flagged as generated.
var lockFiles = map[string]bool{
	"package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "go.sum": true,
	"Cargo.lock": true, "poetry.lock": true, "Gemfile.lock": true, "composer.lock": true,
}

// vendorDirs hold vendored code at any depth.
var vendorDirs = map[string]bool{"vendor": true, "node_modules": true}

// IsGeneratedName applies the rules by name alone, for callers with no
// commit to read .gitattributes from (a forge's file list).
func IsGeneratedName(path string) bool {
	return generatedName(path) || vendoredName(path)
}

// generatedName: a lock file, or minified.
func generatedName(path string) bool {
	name := path[strings.LastIndexByte(path, '/')+1:]
	return lockFiles[name] || strings.HasSuffix(name, ".min.js") || strings.HasSuffix(name, ".min.css")
}

// vendoredName: below a vendor directory.
func vendoredName(path string) bool {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return false
	}
	for dir := range strings.SplitSeq(path[:i], "/") {
		if vendorDirs[dir] {
			return true
		}
	}
	return false
}

// Generated says which paths of one commit are generated or vendored.
type Generated struct {
	flags map[string]bool
	files map[string]*git.AttrFile // by directory, "" the root; absent: none read
	// Notes say what was not read or not matched (a .gitattributes too
	// large or not a file; directories or paths past the bounds), for the
	// caller to pass on.
	Notes []string
}

// GeneratedRules decides for each of paths (clean, relative) whether it
// is generated or vendored in commit (a full commit id), reading the
// .gitattributes files of their directories and of every directory above
// from the commit's tree, never the work tree. A .gitattributes for which
// hidden (the path policy, or nil) is true is not read.
func (r *Repository) GeneratedRules(ctx context.Context, commit string, paths []string, hidden func(string) bool) (*Generated, error) {
	g := &Generated{flags: map[string]bool{}, files: map[string]*git.AttrFile{}}
	if err := g.read(ctx, r, commit, paths, hidden); err != nil {
		return nil, err
	}
	if err := g.decide(ctx, paths); err != nil {
		return nil, err
	}
	return g, nil
}

// read reads the .gitattributes files bearing on paths.
func (g *Generated) read(ctx context.Context, r *Repository, commit string, paths []string, hidden func(string) bool) error {
	dirs := attrDirs(paths)
	if n := len(dirs) - maxAttrDirs; n > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("%d directories past the first %d were not searched for .gitattributes: linguist attributes set there are not counted", n, maxAttrDirs))
		dirs = dirs[:maxAttrDirs]
	}
	if len(dirs) > 0 {
		// A commit that is not there would read as one without attributes.
		if _, err := r.Git.Info(ctx, commit+"^{tree}"); err != nil {
			return fmt.Errorf("commit %s: %w", commit, err)
		}
	}
	for _, dir := range dirs {
		if hidden != nil && hidden(attrPath(dir)) {
			continue
		}
		e, err := r.attrFile(ctx, commit, dir)
		if err != nil {
			return err
		}
		if e.note != "" {
			g.Notes = append(g.Notes, e.note)
		}
		if e.file != nil {
			g.files[dir] = e.file
		}
	}
	return nil
}

// decide flags every path, within maxAttrWork: past it, by name alone.
// Each attribute, when the commit's .gitattributes say anything of it for
// the path, decides its half as linguist reads it (set or any value but
// "false": yes; "-name" or "=false": no); when they say nothing (or
// "!name"), the name does.
func (g *Generated) decide(ctx context.Context, paths []string) error {
	m := git.AttrMatcher{Budget: maxAttrWork}
	for i, p := range paths {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		a, ok := m.Check(g.stack(p), p, attrGenerated, attrVendored)
		if !ok {
			g.Notes = append(g.Notes, fmt.Sprintf("the .gitattributes patterns cost too much to match: %d of %d paths are flagged by name alone", len(paths)-i, len(paths)))
			for _, p := range paths[i:] {
				g.flags[p] = IsGeneratedName(p)
			}
			return nil
		}
		g.flags[p] = linguistFlag(a[0], generatedName(p)) || linguistFlag(a[1], vendoredName(p))
	}
	return nil
}

// Is reports whether path is generated or vendored. A path that was not
// given to GeneratedRules, or a nil Generated, goes by the name alone.
func (g *Generated) Is(path string) bool {
	if g != nil {
		if flag, ok := g.flags[path]; ok {
			return flag
		}
	}
	return IsGeneratedName(path)
}

// stack lists the .gitattributes files read above path, root first.
func (g *Generated) stack(path string) []*git.AttrFile {
	var stack []*git.AttrFile
	for _, dir := range ancestors(path) {
		if f := g.files[dir]; f != nil {
			stack = append(stack, f)
		}
	}
	return stack
}

func linguistFlag(a git.Attr, byName bool) bool {
	switch a.State {
	case git.AttrUnspecified:
		return byName
	case git.AttrSet:
		return true
	case git.AttrUnset:
		return false
	}
	return a.Value != "false"
}

// ancestors lists the directories above path, root ("") first.
func ancestors(path string) []string {
	dirs := []string{""}
	for i := range len(path) {
		if path[i] == '/' {
			dirs = append(dirs, path[:i])
		}
	}
	return dirs
}

// attrDirs lists the directories above any of paths once each,
// shallowest first, so that a bound keeps the files that apply widest.
func attrDirs(paths []string) []string {
	seen := map[string]bool{}
	var dirs []string
	for _, p := range paths {
		for _, d := range ancestors(p) {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	slices.SortFunc(dirs, func(a, b string) int {
		return cmp.Or(cmp.Compare(depth(a), depth(b)), strings.Compare(a, b))
	})
	return dirs
}

func depth(dir string) int {
	if dir == "" {
		return 0
	}
	return strings.Count(dir, "/") + 1
}

func attrPath(dir string) string {
	if dir == "" {
		return ".gitattributes"
	}
	return dir + "/.gitattributes"
}

// attrEntry is what one directory of one commit holds: a file, a note
// saying why it was not read, or neither.
type attrEntry struct {
	file *git.AttrFile
	note string
}

// attrFile reads dir/.gitattributes at commit, through attrCache.
func (r *Repository) attrFile(ctx context.Context, commit, dir string) (attrEntry, error) {
	key := commit + ":" + dir
	if e, ok := attrCache.get(key); ok {
		return e, nil
	}
	f, err := r.Git.ReadAttrFile(ctx, commit, dir, maxAttrFileSize)
	e := attrEntry{file: f}
	switch {
	case errors.Is(err, git.ErrAttrIgnored):
		e.note = err.Error()
	case err != nil:
		return attrEntry{}, err
	}
	cost := len(key) + 64
	if f != nil {
		cost += f.Size
	}
	attrCache.put(key, e, cost)
	return e, nil
}

// attrCache keeps what directories of commits hold: a commit id fixes its
// tree, so an entry never goes stale, and the pages of one change list
// read the same directories again. Bounded in bytes (about); emptied when
// full, like the git package's memo.
var attrCache = attrMemo{limit: 4 << 20}

type attrMemo struct {
	mu    sync.Mutex
	limit int
	items map[string]attrEntry
	cost  int
}

func (m *attrMemo) get(key string) (attrEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.items[key]
	return e, ok
}

func (m *attrMemo) put(key string, e attrEntry, cost int) {
	if cost > m.limit/4 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.items == nil || m.cost+cost > m.limit {
		m.items, m.cost = map[string]attrEntry{}, 0
	}
	m.items[key] = e
	m.cost += cost
}
