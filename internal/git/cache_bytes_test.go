package git

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Every cache is charged the bytes it holds, not its entries: the list of
// large files of a commit that names one large blob under many long paths
// is charged its paths' bytes (it was charged one unit a path), and is not
// kept when that is more than a quarter of the memo (docs/security.md,
// finding 11).
func TestLargeBlobListChargedInBytes(t *testing.T) {
	r := testrepo.New(t)
	r.Write("README", "hello\n")
	r.Commit("one")
	blob := strings.TrimSpace(r.GitInput(strings.Repeat("z", 2048), "hash-object", "-w", "--stdin"))
	dir := strings.Repeat("d", 200) + "/" + strings.Repeat("e", 200)
	var leaves strings.Builder
	for i := range 100 {
		fmt.Fprintf(&leaves, "100644 blob %s\tf%05d\n", blob, i)
	}
	tree := strings.TrimSpace(r.GitInput(leaves.String(), "mktree"))
	tree = strings.TrimSpace(r.GitInput("040000 tree "+tree+"\t"+strings.Repeat("e", 200)+"\n", "mktree"))
	tree = strings.TrimSpace(r.GitInput("040000 tree "+tree+"\t"+strings.Repeat("d", 200)+"\n", "mktree"))
	commit := strings.TrimSpace(r.Git("commit-tree", tree, "-m", "wide"))
	g := open(t, r)
	large, err := g.largeBlobs(context.Background(), commit, 1024)
	if err != nil || len(large) != 100 || !strings.HasPrefix(large[0], dir+"/") {
		t.Fatalf("largeBlobs: %d paths, %v", len(large), err)
	}
	paths := 0
	for _, p := range large {
		paths += len(p)
	}
	if g.memo.cost < paths {
		t.Errorf("the memo is charged %d for a list of %d bytes of paths", g.memo.cost, paths)
	}
}

// The blob cache charges each blob's key and entry besides its content: a
// great many empty blobs are bounded too.
func TestBlobCacheChargesEntries(t *testing.T) {
	var c blobCache
	for i := range 200_000 {
		c.put(blobKey{"repo", fmt.Sprintf("%040d", i)}, nil)
	}
	if len(c.items) > blobCacheBytes/100 || c.bytes > blobCacheBytes {
		t.Fatalf("%d empty blobs kept, charged %d bytes", len(c.items), c.bytes)
	}
}

// The ref cache charges names, ids and the paths of their stamps: long
// names fill it sooner than short ones, and it never holds more than
// refCacheBytes.
func TestRefCacheChargesBytes(t *testing.T) {
	c := &refCache{}
	st := refStamp{files: []stamped{{path: strings.Repeat("p", 1000)}}, taken: time.Now()}
	for i := range 2000 {
		c.put(fmt.Sprintf("%s%05d", strings.Repeat("n", 1000), i), strings.Repeat("a", 40), st)
	}
	if c.bytes > refCacheBytes || len(c.entries)*2000 > refCacheBytes {
		t.Fatalf("%d entries of 2 KB kept, charged %d bytes", len(c.entries), c.bytes)
	}
}
