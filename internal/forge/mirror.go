package forge

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// Mirrors keeps bare mirrors of forge repositories in a cache directory, for
// the tools that need git itself (diffs between any two commits, reads at a
// ref, search). A mirror holds branches, tags and refs/pull/*/head.
//
// The cache is bounded (Limits): past its size or count, the mirrors used
// least recently are removed, never one a call is reading or a fetch is
// writing. A removed mirror is fetched again when next asked for.
type Mirrors struct {
	client *Client
	env    *git.Env
	dir    string // DIR/HOST
	ttl    time.Duration
	limits Limits
	// MinRefresh is the shortest time between two fetches of one mirror,
	// even when a ref is missing: an agent asking for bad refs must not
	// make every call a fetch.
	MinRefresh time.Duration

	fetches singleflight.Group
	running chan struct{} // bounds the fetches running at once
	mu      sync.Mutex
	mirrors map[string]*mirror // by git directory
	// handedOut are the git directories a reader opened in this run: a
	// git.Repo may hold sandbox rules naming them (see removeMirror).
	handedOut map[string]bool
}

// Limits bound the mirror cache.
type Limits struct {
	MaxBytes int64 // all mirrors together, on disk; 0: no bound
	MaxRepos int   // mirrors kept; 0: no bound
}

// Defaults of the mirror cache's limits (--cache-max-bytes,
// --cache-max-repos).
const (
	DefaultMaxBytes = 10 << 30
	DefaultMaxRepos = 1000
)

// mirror is what the cache knows of one mirror.
type mirror struct {
	fetched  time.Time     // last successful fetch in this run; zero: none yet
	used     time.Time     // last handed out (from an earlier run: last written)
	size     int64         // bytes on disk, measured after each fetch (and during one)
	pins     int           // calls reading it and fetches writing it: never evicted while > 0
	evicting chan struct{} // closed once an eviction has removed its files
}

// NewMirrors keeps mirrors under dir, refreshed when older than ttl, within
// limits. Mirrors left by an earlier run count against the limits from the
// start, their age taken from the disk.
func NewMirrors(c *Client, env *git.Env, dir string, ttl time.Duration, limits Limits) (*Mirrors, error) {
	dir = filepath.Join(dir, strings.ReplaceAll(c.base.Host, ":", "_"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--cache-dir: %w", err)
	}
	c.SetListTTL(ttl)
	m := &Mirrors{client: c, env: env, dir: dir, ttl: ttl, limits: limits, MinRefresh: 5 * time.Second,
		running: make(chan struct{}, maxFetches), mirrors: map[string]*mirror{}, handedOut: map[string]bool{}}
	m.scan()
	m.evict()
	return m, nil
}

// scan counts the mirrors already on disk.
func (m *Mirrors) scan() {
	owners, _ := os.ReadDir(m.dir)
	for _, o := range owners {
		if !o.IsDir() {
			continue
		}
		repos, _ := os.ReadDir(filepath.Join(m.dir, o.Name()))
		for _, r := range repos {
			if !strings.HasSuffix(r.Name(), ".git") || !r.IsDir() {
				continue
			}
			gitDir := filepath.Join(m.dir, o.Name(), r.Name())
			m.mirrors[gitDir] = &mirror{used: lastWritten(gitDir), size: diskSize(gitDir)}
		}
	}
}

// refspecs are what a mirror fetches.
var refspecs = []string{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", "+refs/pull/*/head:refs/pull/*/head"}

// maxFetches bounds the fetches running at once, apart from the git
// processes that serve reads.
const maxFetches = 2

// fetchTimeout bounds one fetch, which callers share; it does not end with
// the first caller's call.
const fetchTimeout = 10 * time.Minute

// Open returns the mirror of owner/repo, fetched within the TTL, or now when
// refresh is set (a ref was missing). Concurrent callers share one fetch.
// When a refresh fails and a copy exists, the copy is served and Stale says so.
//
// The mirror stays pinned until ctx ends: the cache never removes it under
// the call reading it. Errors and the stale note are scrubbed of secrets.
func (m *Mirrors) Open(ctx context.Context, owner, name string, refresh bool) (o repo.Opened, err error) {
	defer func() {
		m.client.secrets.clean(&err)
		m.client.secrets.clean(&o.Stale)
	}()
	if !repo.ValidName(owner) || !repo.ValidName(name) {
		return repo.Opened{}, errcode.New(errcode.InvalidArgument, "%q/%q is not a repository name: names use letters, digits, '-', '_' and '.'", owner, name)
	}
	gitDir := filepath.Join(m.dir, strings.ToLower(owner), strings.ToLower(name)+".git")
	e, err := m.pin(ctx, gitDir)
	if err != nil {
		return repo.Opened{}, err
	}
	defer func() {
		if err != nil {
			m.unpin(gitDir, e)
			return
		}
		m.mu.Lock()
		m.handedOut[gitDir] = true
		m.mu.Unlock()
		context.AfterFunc(ctx, func() { m.unpin(gitDir, e) })
	}()
	m.mu.Lock()
	last := e.fetched
	m.mu.Unlock()
	ok := !last.IsZero()
	if ok && (time.Since(last) < m.MinRefresh || !refresh && time.Since(last) < m.ttl) {
		return repo.Opened{GitDir: gitDir}, nil
	}
	ch := m.fetches.DoChan(gitDir, func() (any, error) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
		defer cancel()
		// The fetch pins the mirror itself: it goes on when its first
		// caller gives up, and must not be evicted under it.
		fe, err := m.pin(fctx, gitDir)
		if err != nil {
			return nil, err
		}
		defer m.unpin(gitDir, fe)
		err = m.fetch(fctx, owner, name, gitDir, fe)
		if size := m.measured(gitDir, fe); err == nil && m.limits.MaxBytes > 0 && size > m.limits.MaxBytes {
			err = m.tooLarge(owner, name)
		}
		if errcode.Of(err) == errcode.TooLarge {
			// Not served: the first mirror evicted once nobody reads it.
			m.mu.Lock()
			fe.fetched, fe.used = time.Time{}, time.Time{}
			m.mu.Unlock()
		}
		return nil, err
	})
	select {
	case res := <-ch:
		if res.Err == nil {
			return repo.Opened{GitDir: gitDir}, nil
		}
		if errcode.Of(res.Err) == errcode.TooLarge {
			return repo.Opened{}, res.Err
		}
		// A copy from before (this run or an earlier one) still serves.
		if fi, err := os.Stat(filepath.Join(gitDir, "refs")); err == nil && hasRefs(gitDir) {
			if !ok {
				last = fi.ModTime()
			}
			return repo.Opened{GitDir: gitDir, Stale: fmt.Errorf("the mirror of %s/%s was last refreshed %s ago; refreshing it failed: %w",
				owner, name, time.Since(last).Round(time.Second), res.Err)}, nil
		}
		return repo.Opened{}, res.Err
	case <-ctx.Done():
		return repo.Opened{}, context.Cause(ctx)
	}
}

// pin marks gitDir in use, waiting for its removal if one is under way.
func (m *Mirrors) pin(ctx context.Context, gitDir string) (*mirror, error) {
	for {
		m.mu.Lock()
		e := m.mirrors[gitDir]
		if e == nil {
			e = &mirror{}
			m.mirrors[gitDir] = e
		}
		if e.evicting == nil {
			e.pins++
			e.used = time.Now()
			m.mu.Unlock()
			return e, nil
		}
		gone := e.evicting
		m.mu.Unlock()
		select {
		case <-gone:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// unpin lets go of a pin, forgets a mirror that holds nothing, and evicts
// what the pin held back.
func (m *Mirrors) unpin(gitDir string, e *mirror) {
	m.mu.Lock()
	e.pins--
	if e.pins == 0 && e.size == 0 && e.fetched.IsZero() && m.mirrors[gitDir] == e {
		delete(m.mirrors, gitDir) // a name that never made a mirror
	}
	m.mu.Unlock()
	m.evict()
}

// measured records a mirror's size after a fetch (or a failed one) and
// makes room for it.
func (m *Mirrors) measured(gitDir string, e *mirror) int64 {
	size := diskSize(gitDir)
	m.mu.Lock()
	e.size = size
	m.mu.Unlock()
	if m.limits.MaxBytes == 0 || size <= m.limits.MaxBytes {
		m.evict() // else it goes itself, not everything else
	}
	return size
}

// tooLarge is the error for a repository whose mirror alone is larger than
// the cache.
func (m *Mirrors) tooLarge(owner, name string) error {
	return errcode.New(errcode.TooLarge, "%s/%s is larger than the whole mirror cache (%d bytes, --cache-max-bytes): it is not mirrored, so get_diff, list_changed_files, read_file and search_code cannot read it; get_file_content and the pull request tools still can",
		owner, name, m.limits.MaxBytes)
}

// usageLocked is what the mirrors take: bytes and how many. Mirrors holding
// nothing on disk, or being removed, do not count.
func (m *Mirrors) usageLocked() (total int64, count int) {
	for _, e := range m.mirrors {
		if e.size > 0 && e.evicting == nil {
			total += e.size
			count++
		}
	}
	return total, count
}

func (m *Mirrors) over(total int64, count int) bool {
	return m.limits.MaxBytes > 0 && total > m.limits.MaxBytes || m.limits.MaxRepos > 0 && count > m.limits.MaxRepos
}

// evict removes the least recently used mirrors nobody holds until the
// cache is within its limits (or only pinned mirrors are left).
func (m *Mirrors) evict() {
	type victim struct {
		gitDir  string
		e       *mirror
		keepDir bool
	}
	var victims []victim
	m.mu.Lock()
	if total, count := m.usageLocked(); m.over(total, count) {
		var free []victim
		for d, e := range m.mirrors {
			if e.pins == 0 && e.evicting == nil && e.size > 0 {
				free = append(free, victim{gitDir: d, e: e})
			}
		}
		sort.Slice(free, func(i, j int) bool { return free[i].e.used.Before(free[j].e.used) })
		for _, v := range free {
			if !m.over(total, count) {
				break
			}
			total, count = total-v.e.size, count-1
			v.e.evicting = make(chan struct{})
			v.keepDir = m.handedOut[v.gitDir]
			victims = append(victims, v)
		}
	}
	m.mu.Unlock()
	for _, v := range victims {
		removeMirror(v.gitDir, v.keepDir)
		m.mu.Lock()
		if m.mirrors[v.gitDir] == v.e {
			delete(m.mirrors, v.gitDir)
		}
		close(v.e.evicting)
		m.mu.Unlock()
	}
}

// removeMirror deletes a mirror's files. A mirror a reader opened in this
// run keeps its (empty) directory: the git sandbox's rules for that
// repository name the directory itself, and a new directory at the same
// path would be out of their reach when the mirror is fetched again.
func removeMirror(gitDir string, keepDir bool) {
	if !keepDir {
		os.RemoveAll(gitDir)
		os.Remove(filepath.Dir(gitDir)) // the owner's directory, once empty
		return
	}
	entries, _ := os.ReadDir(gitDir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(gitDir, e.Name()))
	}
}

func (m *Mirrors) fetch(ctx context.Context, owner, repo, gitDir string, e *mirror) error {
	select {
	case m.running <- struct{}{}:
		defer func() { <-m.running }()
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	info, err := m.client.Repo(ctx, owner, repo)
	if err != nil {
		return err
	}
	// The token goes only to the forge it belongs to.
	clone, err := url.Parse(info.CloneURL)
	if err != nil || !sameOrigin(m.client.base, clone) {
		return errcode.New(errcode.Unavailable, "the forge gives %q as the clone URL of %s/%s: not on %s, so it is not fetched", info.CloneURL, owner, repo, m.client.base.Host)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(gitDir), 0o700); err != nil {
			return err
		}
		if err := git.InitBare(ctx, m.env, gitDir); err != nil {
			return err
		}
	}
	g := git.Open(m.env, gitDir, "")
	defer g.Close()
	header := ""
	if m.client.token != "" {
		header = "Authorization: token " + m.client.token
	}
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := m.watch(fctx, cancel, owner, repo, gitDir, e)
	err = g.Fetch(fctx, info.CloneURL, header, refspecs...)
	stop()
	if err != nil {
		removeTemporary(gitDir)
		if cause := context.Cause(fctx); errcode.Of(cause) == errcode.TooLarge {
			return cause
		}
		return errcode.New(errcode.Unavailable, "fetching %s/%s from the forge failed: %s", owner, repo, err)
	}
	if info.DefaultBranch != "" {
		if err := g.SetHead(ctx, info.DefaultBranch); err != nil {
			return err
		}
	}
	m.mu.Lock()
	e.fetched = time.Now()
	m.mu.Unlock()
	return nil
}

// watchEvery is how often a running fetch's mirror is measured.
const watchEvery = 250 * time.Millisecond

// watch measures a fetch's mirror as it grows: others are evicted to make
// room, and a mirror that alone outgrows the cache ends the fetch.
func (m *Mirrors) watch(ctx context.Context, cancel context.CancelCauseFunc, owner, repo, gitDir string, e *mirror) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			size := diskSize(gitDir)
			m.mu.Lock()
			e.size = size
			m.mu.Unlock()
			if m.limits.MaxBytes > 0 && size > m.limits.MaxBytes {
				cancel(m.tooLarge(owner, repo))
				return
			}
			m.evict()
		}
	}()
	return func() { close(done); <-finished }
}

// removeTemporary deletes what an interrupted fetch leaves: packs being
// received. Fetches of one mirror never overlap, so none is in use.
func removeTemporary(gitDir string) {
	tmp, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "tmp_*"))
	incoming, _ := filepath.Glob(filepath.Join(gitDir, "objects", "incoming-*"))
	for _, p := range append(tmp, incoming...) {
		os.RemoveAll(p)
	}
}

// diskSize is what a directory takes on disk, each file rounded up to
// whole 4 KiB blocks.
func diskSize(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error { // what cannot be read is not counted
		if err != nil {
			return nil
		}
		size := int64(0)
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size = fi.Size()
			}
		}
		total += (size + 4095) / 4096 * 4096
		if d.IsDir() {
			total += 4096
		}
		return nil
	})
	return total
}

// lastWritten is when a mirror from an earlier run last changed: a fetch
// writes its refs (and packed-refs) and packs.
func lastWritten(gitDir string) time.Time {
	var t time.Time
	for _, p := range []string{gitDir, filepath.Join(gitDir, "refs"), filepath.Join(gitDir, "packed-refs"), filepath.Join(gitDir, "objects", "pack")} {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(t) {
			t = fi.ModTime()
		}
	}
	return t
}

// hasRefs reports whether a mirror holds anything yet.
func hasRefs(gitDir string) bool {
	if fi, err := os.Stat(filepath.Join(gitDir, "packed-refs")); err == nil && fi.Size() > 0 {
		return true
	}
	entries, _ := os.ReadDir(filepath.Join(gitDir, "refs", "heads"))
	return len(entries) > 0
}

// Describe says what is served, for errors about names.
func (m *Mirrors) Describe() string {
	return m.client.Scrub("this server serves the repositories of " + m.client.Kind + " at " + m.client.BaseURL() + "; list_repositories lists them")
}

// List lists the forge's repositories the token can see.
func (m *Mirrors) List(ctx context.Context) (_ []repo.Info, err error) {
	defer m.client.secrets.clean(&err)
	repos, err := m.client.Repos(ctx)
	if err != nil {
		return nil, err
	}
	return infos(repos), nil
}

// infos turns a listing into what list_repositories shows.
func infos(repos []RepoSummary) []repo.Info {
	out := make([]repo.Info, len(repos))
	for i, r := range repos {
		out[i] = repo.Info{Owner: r.Owner.Login, Name: r.Name, Bare: true, DefaultBranch: r.DefaultBranch}
	}
	return out
}
