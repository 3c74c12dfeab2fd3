package server

import (
	"sync"
	"time"
)

// viewCache keeps views made lately (a diff folded by collapseRepeated,
// or widened by functionContext),
// by what they are of, within a bound of bytes: an agent reads a view's
// parts one after another, and a count of its parts reads them all.
type viewCache[V interface{ size() int }] struct {
	mu    sync.Mutex
	views map[string]*keptOf[V]
	bytes int
}

type keptOf[V any] struct {
	v    V
	used time.Time
}

const (
	viewCacheBytes = 64 << 20
	viewIdle       = 10 * time.Minute
)

// get is the view kept for key, or the one make makes (kept, when it is
// not larger than half the bound).
func (c *viewCache[V]) get(key string, make func() (V, error)) (V, error) {
	c.mu.Lock()
	if k, ok := c.views[key]; ok {
		k.used = time.Now()
		c.mu.Unlock()
		return k.v, nil
	}
	c.mu.Unlock()
	v, err := make()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.views == nil {
		c.views = map[string]*keptOf[V]{}
	}
	if _, ok := c.views[key]; !ok && v.size() <= viewCacheBytes/2 {
		c.views[key] = &keptOf[V]{v: v, used: time.Now()}
		c.bytes += v.size()
		c.evict()
	}
	return v, nil
}

// evict drops views idle too long, then the least recently used until the
// bytes are within the bound.
func (c *viewCache[V]) evict() {
	for key, k := range c.views {
		if time.Since(k.used) > viewIdle {
			c.bytes -= k.v.size()
			delete(c.views, key)
		}
	}
	for c.bytes > viewCacheBytes {
		oldest := ""
		for key, k := range c.views {
			if oldest == "" || k.used.Before(c.views[oldest].used) {
				oldest = key
			}
		}
		c.bytes -= c.views[oldest].v.size()
		delete(c.views, oldest)
	}
}
