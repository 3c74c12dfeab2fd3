package paging

import (
	"io"
	"sync"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Lines pages through a blob's lines: a part is the lines from a start
// on that fit a room, measured by the budget's Cost (text.Slicer cuts
// them). A blob's
// line count, once known, is kept by its id (a blob never changes), so
// that a later part stops reading at its last line instead of counting
// to the end.
type Lines struct{ counts lineCache }

// Slice reads the lines from–to of body (to 0: as many as fit) within
// room, counted by cost, and, when lines is not 0, that many lines;
// binary files told, not read. A first line that does not fit alone is
// Oversized. blob is the blob body reads; a work-tree file has no id, and
// its count is not kept.
func (l *Lines) Slice(blob git.Object, body io.Reader, from, to, room, lines int, cost Cost) (text.Slice, error) {
	used, kept := 0, 0
	slicer := text.Slicer{From: from, To: to, MaxLine: cost.Span(room), SkipBinary: true, Accept: func(line []byte) bool {
		used += cost.Bytes(text.FrameBytes(line)) + 2 // as shown, and its "\n"
		kept++
		return used <= room && (lines == 0 || kept <= lines)
	}}
	total, known := l.counts.get(blob.OID)
	slicer.StopEarly = known
	res, err := slicer.Read(body)
	if res.Stopped && res.Oversized == 0 && res.Last < res.First {
		res.Oversized = max(from, 1) // shorter than the span, but over the room
	}
	if known {
		res.Total = total
	} else if err == nil && !res.Binary && blob.OID != "" {
		l.counts.put(blob.OID, res.Total)
	}
	return res, err
}

// Count is the number of lines of blob, read from body unless it is kept;
// binary when the blob is binary.
func (l *Lines) Count(blob git.Object, body io.Reader) (total int, binary bool, err error) {
	if n, ok := l.counts.get(blob.OID); ok {
		return n, false, nil
	}
	res, err := text.Slicer{From: 1<<31 - 1, SkipBinary: true}.Read(body)
	if err != nil || res.Binary {
		return 0, res.Binary, err
	}
	l.counts.put(blob.OID, res.Total)
	return res.Total, false, nil
}

// lineCache keeps the line counts of blobs (by object id: a blob never
// changes), bounded; emptied when full.
type lineCache struct {
	mu     sync.Mutex
	counts map[string]int
	bytes  int // what counts costs: its keys and entries
}

// lineCacheBytes bounds the line counts kept; lineEntryBytes is what one
// costs beyond its key.
const (
	lineCacheBytes = 8 << 20
	lineEntryBytes = 48
)

func (c *lineCache) get(oid string) (int, bool) {
	if oid == "" {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.counts[oid]
	return n, ok
}

func (c *lineCache) put(oid string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cost := len(oid) + lineEntryBytes
	if c.counts == nil || c.bytes+cost > lineCacheBytes {
		c.counts, c.bytes = map[string]int{}, 0
	}
	c.counts[oid] = n
	c.bytes += cost
}
