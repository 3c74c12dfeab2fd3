package forge

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// RepoSummary is a repository in a listing.
type RepoSummary struct {
	Name  string `json:"name"`
	Owner struct {
		Login string `json:"login"`
	} `json:"owner"`
	DefaultBranch string `json:"default_branch"`
}

// maxForgeRepos bounds how many repositories a whole listing (Repos) walks.
const maxForgeRepos = 5000

// apiPageSize is the page asked of /repos/search: Gitea's and Forgejo's
// default most (MAX_RESPONSE_ITEMS). A forge configured lower answers
// shorter pages, which ReposPage notices.
const apiPageSize = 50

// maxCachedPages bounds the listing cache (at apiPageSize, the first 10,000
// repositories); past it, the cache starts over.
const maxCachedPages = 200

// listCache keeps pages of /repos/search for a TTL, so that paging through
// list_repositories costs one API call per forge page, once per TTL.
type listCache struct {
	ttl time.Duration

	mu    sync.Mutex
	size  int // the forge's page size as observed; 0 until known (apiPageSize)
	pages map[int]listPage
}

// listPage is one page of the forge's listing.
type listPage struct {
	repos []RepoSummary
	total int // X-Total-Count; -1 when the forge did not say
	at    time.Time
}

// SetListTTL sets how long a page of the repository listing is reused
// (NewMirrors sets it to the mirrors' TTL).
func (c *Client) SetListTTL(ttl time.Duration) {
	c.repos.mu.Lock()
	defer c.repos.mu.Unlock()
	c.repos.ttl = ttl
}

func (l *listCache) pageSize() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pageSizeLocked()
}

// page returns page n (1-based) of size entries, from the cache within the
// TTL, else from the forge.
func (c *Client) page(ctx context.Context, n, size int) (listPage, error) {
	l := &c.repos
	l.mu.Lock()
	p, ok := l.pages[n]
	fresh := ok && l.pageSizeLocked() == size && time.Since(p.at) < l.ttl
	l.mu.Unlock()
	if fresh {
		return p, nil
	}
	var res struct {
		Data []RepoSummary `json:"data"`
	}
	// Sorted by owner and name (older forges: by name), so pages are stable.
	q := url.Values{"page": {strconv.Itoa(n)}, "limit": {strconv.Itoa(size)}, "sort": {"alpha"}, "order": {"asc"}}
	data, h, err := c.getRaw(ctx, "repos/search", q)
	if err != nil {
		return listPage{}, err
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return listPage{}, errcode.New(errcode.Unavailable, "the forge's repository list is not the JSON expected: %v", err)
	}
	p = listPage{repos: res.Data, total: -1, at: time.Now()}
	if t, err := strconv.Atoi(h.Get("X-Total-Count")); err == nil && t >= 0 {
		p.total = t
	}
	l.mu.Lock()
	if l.pageSizeLocked() == size {
		if l.pages == nil || len(l.pages) >= maxCachedPages {
			l.pages = map[int]listPage{}
		}
		l.pages[n] = p
	}
	l.mu.Unlock()
	return p, nil
}

func (l *listCache) pageSizeLocked() int {
	if l.size == 0 {
		return apiPageSize
	}
	return l.size
}

// shrink notes that the forge answers pages of at most size entries, and
// forgets the pages cached at another size.
func (l *listCache) shrink(size int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.size, l.pages = size, nil
}

// ReposPage lists the repositories the token can see from offset on, at
// most limit of them, and how many there are: it asks the forge only for
// the pages that cover them (list_repositories limit=1: one API call), and
// reuses each page for the TTL.
func (c *Client) ReposPage(ctx context.Context, offset, limit int) (_ []RepoSummary, total int, err error) {
	defer c.secrets.clean(&err)
	if offset < 0 || limit < 1 {
		return nil, 0, errcode.New(errcode.InvalidArgument, "offset must be at least 0 and limit at least 1")
	}
	for {
		size := c.repos.pageSize()
		out, total, short, err := c.walk(ctx, offset, limit, size)
		if err != nil {
			return nil, 0, err
		}
		if short > 0 && short < size {
			c.repos.shrink(short) // the forge caps pages lower: walk again at its size
			continue
		}
		if total < 0 {
			// The forge does not count: the whole listing does.
			all, err := c.Repos(ctx)
			if err != nil {
				return nil, 0, err
			}
			from := min(offset, len(all))
			return all[from:min(from+limit, len(all))], len(all), nil
		}
		return out, total, nil
	}
}

// walk collects the entries offset..offset+limit from pages of size. short
// is the length of a page shorter than size that is not the last one (the
// forge caps pages lower), else 0.
func (c *Client) walk(ctx context.Context, offset, limit, size int) (out []RepoSummary, total, short int, err error) {
	total = -1
	for n := offset/size + 1; len(out) < limit; n++ {
		p, err := c.page(ctx, n, size)
		if err != nil {
			return nil, 0, 0, err
		}
		total = p.total
		if len(p.repos) < size && p.total > (n-1)*size+len(p.repos) && len(p.repos) > 0 {
			return nil, total, len(p.repos), nil
		}
		if skip := offset - (n-1)*size; skip < len(p.repos) {
			out = append(out, p.repos[max(skip, 0):]...)
		}
		if len(p.repos) < size || (total >= 0 && n*size >= total) {
			break
		}
	}
	return out[:min(len(out), limit)], total, 0, nil
}

// Repos lists the repositories the token can see, up to maxForgeRepos,
// through the same cached pages.
func (c *Client) Repos(ctx context.Context) (_ []RepoSummary, err error) {
	defer c.secrets.clean(&err)
	var all []RepoSummary
	size := c.repos.pageSize()
	for n := 1; len(all) < maxForgeRepos; n++ {
		p, err := c.page(ctx, n, size)
		if err != nil {
			return nil, err
		}
		if len(p.repos) > 0 && len(p.repos) < size && p.total > len(all)+len(p.repos) {
			// The forge caps pages lower: start again at its size.
			c.repos.shrink(len(p.repos))
			all, size, n = nil, len(p.repos), 0
			continue
		}
		all = append(all, p.repos...)
		if len(p.repos) < size || (p.total >= 0 && len(all) >= p.total) {
			break
		}
	}
	return all[:min(len(all), maxForgeRepos)], nil
}

// ListPage lists the repositories from offset on, at most limit, and how
// many there are, asking the forge only for the pages that hold them.
func (c *Client) ListPage(ctx context.Context, offset, limit int) ([]repo.Info, int, error) {
	repos, total, err := c.ReposPage(ctx, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	return infos(repos), total, nil
}
