package git

import "sync"

// memoLimit bounds what one repository keeps of immutable answers (merge
// bases, file lists between two commits), counted in bytes (about).
const memoLimit = 8 << 20

// memoEntryBytes is what one answer costs beyond its key and value: the
// map entry and the interface holding the value.
const memoEntryBytes = 64

// memo keeps answers that can never change because they depend only on
// commit ids. When full it is emptied: simple, and bounded.
type memo struct {
	mu    sync.Mutex
	items map[string]any
	cost  int
}

func (m *memo) get(key string) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.items[key]
	return v, ok
}

// put keeps v, which costs about cost bytes of memory: the bytes of its
// key and of what it holds (an answer's strings, a list's paths).
func (m *memo) put(key string, v any, cost int) {
	if cost > memoLimit/4 {
		return // too large to be worth keeping
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.items == nil || m.cost+cost > memoLimit {
		m.items, m.cost = map[string]any{}, 0
	}
	m.items[key] = v
	m.cost += cost
}
