//go:build unix

package git

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
)

// A blob read by a name that starts with an object id is kept: read again,
// it is the same bytes and no reader is asked (none is even alive). A blob
// read in part is kept only once its rest was read too (drained), a blob
// larger than maxCachedBlob and a name that can change (a branch) never.
func TestBlobCache(t *testing.T) {
	r, oids, want := blobRepo(t, 3)
	big := bigBlob(t, r, maxCachedBlob+1)
	g := open(t, r)
	// The first slice of a file read in slices: read stops early.
	err := g.ReadObject(context.Background(), oids[0], func(_ Object, body io.Reader) error {
		_, err := io.ReadFull(body, make([]byte, 3))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	readBlob(t, g, big)
	readBlob(t, g, "main:f001.txt")
	asked := func(name string) bool {
		t.Helper()
		before := g.objects.requests.Load()
		readBlob(t, g, name)
		return g.objects.requests.Load() > before
	}
	if asked(oids[0]) {
		t.Error("a blob read before was asked for again")
	}
	if got := readBlob(t, g, oids[0]); got != want[oids[0]] {
		t.Fatalf("the kept blob differs: %q, want %q", got, want[oids[0]])
	}
	if !asked(big) {
		t.Errorf("a blob of %d bytes, over %d, was kept", maxCachedBlob+1, maxCachedBlob)
	}
	if !asked("main:f001.txt") {
		t.Error("a name that can change was answered from memory")
	}
}

// The cache holds at most blobCacheBytes, the least recently used out first
// (each blob a little smaller than the largest kept, so that 16 fit with
// their keys).
func TestBlobCacheBound(t *testing.T) {
	var c blobCache
	blob := make([]byte, maxCachedBlob-256)
	n := blobCacheBytes/maxCachedBlob + 3
	for i := range n {
		if i == n-3 {
			c.get(blobKey{"repo", "0"}) // used again before the cache overflows: stays
		}
		c.put(blobKey{"repo", fmt.Sprint(i)}, blob)
	}
	if c.bytes > blobCacheBytes || c.order.Len() != len(c.items) {
		t.Fatalf("%d bytes in %d blobs, over %d", c.bytes, c.order.Len(), blobCacheBytes)
	}
	if _, ok := c.get(blobKey{"repo", "0"}); !ok {
		t.Error("the blob used again was dropped")
	}
	if _, ok := c.get(blobKey{"repo", "1"}); ok {
		t.Error("the least recently used blob was kept")
	}
	if _, ok := c.get(blobKey{"other", fmt.Sprint(n - 1)}); ok {
		t.Error("a blob was found under another repository")
	}
}

// Names that start with an object id name one object for ever; a branch,
// an abbreviated id or a path after a peel that is not the last do not.
func TestFixedName(t *testing.T) {
	id := strings.Repeat("ab", 20)
	for name, want := range map[string]bool{
		id: true, id + "^{commit}": true, id + "^{tree}": true, id + ":a/b.go": true,
		strings.Repeat("ab", 32): true,
		"main":                   false, "main^{tree}": false, id[:12]: false, id[:12] + "^{tree}": false,
		id + "^{tree}x": false, strings.ToUpper(id): false, id + "~1": false,
	} {
		if got := fixedName(name); got != want {
			t.Errorf("fixedName(%q) = %v, want %v", name, got, want)
		}
	}
}
