package paging

import (
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// The cache holds at most its limit, drops the least recently used run
// first and a run unused for runIdle, and a new run of a stretch of a diff
// replaces the run it overlaps.
func TestPatchCacheBounds(t *testing.T) {
	now := time.Now()
	run := func(key string, first, n, size int) *patchRun {
		r := newPatchRun(key, first, first+n, make([]git.Change, n), nil, "", size)
		r.keep(make([]byte, size))
		r.finish(nil, true)
		return r
	}
	c := patchCache{limit: 1000}
	bytes := func() int {
		n := 0
		for _, r := range c.runs {
			n += r.size()
		}
		return n
	}
	c.put(run("a", 0, 5, 400), now)
	c.put(run("b", 0, 5, 400), now)
	if c.find("a", 4, now) == nil || c.find("a", 5, now) != nil || c.find("b", 0, now) == nil {
		t.Fatal("find does not find the run that holds a change, or finds one that does not")
	}
	c.put(run("c", 0, 5, 400), now) // over the bound: a, used before b, goes
	if c.find("a", 0, now) != nil || c.find("b", 0, now) == nil || c.find("c", 0, now) == nil || bytes() != 800 {
		t.Fatalf("after a third run: %d bytes; want a dropped, b and c kept (800 bytes)", bytes())
	}
	c.put(run("c", 3, 5, 100), now) // overlaps c's first run: replaces it
	if r := c.find("c", 0, now); r != nil || bytes() != 500 {
		t.Fatalf("an overlapped run is kept (%d bytes)", bytes())
	}
	c.put(run("d", 0, 1, 2000), now) // larger than the whole cache
	if bytes() > c.limit {
		t.Fatalf("%d bytes, over the bound %d", bytes(), c.limit)
	}
	if c.find("b", 0, now.Add(runIdle)) != nil || bytes() != 0 {
		t.Fatalf("runs unused for %v are kept (%d bytes)", runIdle, bytes())
	}
}
