package repo

// What is served, listed: for list_repositories, and named in errors.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
)

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

// Info describes a served repository for list_repositories.
type Info struct {
	Owner         string `json:"owner"`
	Name          string `json:"repo"`
	Bare          bool   `json:"bare"`
	DefaultBranch string `json:"defaultBranch"`
	// PullRequestRefs: where its pull requests are, locally (PullRefs;
	// "none" in a plain clone); empty in forge mode.
	PullRequestRefs string `json:"pullRequestRefs,omitempty" jsonschema:"where its pull requests are: refs/pull/<n>/head, refs/merge-requests/<n>/head, or none (a plain clone: get_pull_request's error gives the git fetch command)"`
}

// List returns every served repository, sorted by name. In root mode it
// reads the directory tree, not git, at most once per listTTL.
func (s *Served) List(ctx context.Context) ([]Info, error) {
	if s.rooted != nil {
		cur, err := s.rooted.current(ctx)
		if err != nil {
			return nil, err
		}
		return cur.List(ctx)
	}
	if s.source != nil {
		return s.source.List(ctx)
	}
	if s.single != nil {
		return []Info{s.single.info()}, nil
	}
	if s.set != nil {
		list := make([]Info, len(s.set))
		for i, r := range s.set {
			list[i] = r.info()
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Owner+"/"+list[i].Name < list[j].Owner+"/"+list[j].Name })
		return list, nil
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
	data, err := gitdir.ReadSmallFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/heads/")
	if !ok {
		return ""
	}
	return ref
}

// info describes a repository served alone or by the client's roots.
func (r *Repository) info() Info {
	return Info{Owner: r.Owner, Name: r.Name, Bare: r.Bare(), DefaultBranch: headBranch(r.Git.GitDir())}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// describe says what is served, for errors about names.
// describeRoom bounds the names describe lists.
const describeRoom = 2000

func (s *Served) describe(ctx context.Context) string {
	if s.rootsNote != "" {
		return s.describeServed(ctx) + "; of the client's MCP roots, " + s.rootsNote
	}
	return s.describeServed(ctx)
}

func (s *Served) describeServed(ctx context.Context) string {
	if s.source != nil {
		return s.source.Describe()
	}
	if s.single != nil {
		return "this server serves " + s.single.FullName()
	}
	if s.set != nil {
		list, _ := s.List(ctx)
		return describeList(list)
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
	return describeList(list)
}

// describeList names the served repositories, boundedly.
func describeList(list []Info) string {
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
