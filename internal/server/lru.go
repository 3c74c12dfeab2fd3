package server

import (
	"container/list"
	"sync"
)

// lru keeps values by key within a byte budget, each charged the cost it
// is put with, the least recently used dropped first. The zero value is
// empty and ready.
type lru[K comparable, V any] struct {
	mu    sync.Mutex
	bytes int
	items map[K]*list.Element
	order list.List // of *lruEntry, most recently used first
}

type lruEntry[K comparable, V any] struct {
	key  K
	val  V
	cost int
}

func (c *lru[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry[K, V]).val, true
}

// put keeps v unless k is kept already or v costs more than a quarter of
// budget, then drops the least recently used until the rest fits budget.
func (c *lru[K, V]) put(k K, v V, cost, budget int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[K]*list.Element{}
	}
	if _, ok := c.items[k]; ok || cost > budget/4 {
		return
	}
	c.items[k] = c.order.PushFront(&lruEntry[K, V]{k, v, cost})
	c.bytes += cost
	for c.bytes > budget {
		e := c.order.Remove(c.order.Back()).(*lruEntry[K, V])
		delete(c.items, e.key)
		c.bytes -= e.cost
	}
}
