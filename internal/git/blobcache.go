package git

import (
	"container/list"
	"strings"
	"sync"
)

// Objects never change, and an object name that starts with an object id
// ("<commit>:<path>", "<id>") always names the same object: so the answers
// for such names are kept (Repo.memo), and the content of small blobs
// recently read (blobCache). A file read in slices, an agent reading the
// same file again, cost no pipe round trip and no inflating in git.

// blobCacheBytes bounds the blobs kept, for all repositories together;
// maxCachedBlob bounds one.
const (
	blobCacheBytes = 8 << 20
	maxCachedBlob  = 512 << 10
)

// blobCache keeps blob contents by repository and object id, the least
// recently used dropped first.
type blobCache struct {
	mu    sync.Mutex
	bytes int
	items map[blobKey]*list.Element
	order list.List // of *cachedBlob, most recently used first
}

type blobKey struct{ gitDir, oid string }

type cachedBlob struct {
	key  blobKey
	data []byte
}

func (c *blobCache) get(k blobKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedBlob).data, true
}

func (c *blobCache) put(k blobKey, data []byte) {
	if len(data) > maxCachedBlob {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[blobKey]*list.Element{}
	}
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.order.PushFront(&cachedBlob{k, data})
	c.bytes += cachedBytes(k, data)
	for c.bytes > blobCacheBytes {
		last := c.order.Back()
		b := c.order.Remove(last).(*cachedBlob)
		delete(c.items, b.key)
		c.bytes -= cachedBytes(b.key, b.data)
	}
}

// cachedBytes is what a kept blob costs: its content, its key and the
// list and map entries (so a thousand empty blobs are not free).
func cachedBytes(k blobKey, data []byte) int {
	return len(data) + len(k.gitDir) + len(k.oid) + 128
}

// fixedName: name names one object for ever: an object id, peeled to its
// commit or tree or not, or a path in one ("<id>:<path>").
func fixedName(name string) bool {
	peeled := strings.TrimSuffix(strings.TrimSuffix(name, "^{commit}"), "^{tree}")
	id, _, _ := strings.Cut(peeled, ":")
	return IsObjectID(id)
}
