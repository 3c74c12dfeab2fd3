package paging

import (
	"io"
	"sync"
	"unicode/utf8"

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

// LineRange is what Lines.Slice reads: lines From..To (1-based,
// inclusive; To 0: as many as fit), line From from byte FromByte of it on,
// within Room counted by Cost and, when Lines is not 0, that many lines.
type LineRange struct {
	From, To int
	FromByte int64
	Room     int
	Lines    int
	Cost     Cost
	// What names the lines' file in a piece's marker (text.PieceMarker):
	// a line longer than Room comes in pieces. "": such a line is not
	// kept (Oversized).
	What string
	// PieceCost is what each piece costs besides its marker and bytes,
	// out of Room: what a reply that holds one says more (a byte in its
	// next call, the piece in its structured output).
	PieceCost int
}

// minPieceShare: a first piece smaller than this share of the room (1/4)
// is not written after other lines: the line starts the next part, where
// its first piece is about a part's room (as in a diff).
const minPieceShare = 4

// Slice reads the lines q asks for from body, binary files told, not
// read. A line that no reply can hold whole (it costs more than q.Room)
// comes in pieces (text.Piece), each as large as the room left, never
// splitting a UTF-8 character; each costs its marker (text.PieceMarker)
// besides. blob is the blob body reads; a work-tree file has no id, and
// its count is not kept.
func (l *Lines) Slice(blob git.Object, body io.Reader, q LineRange) (text.Slice, error) {
	used, kept := 0, 0
	cost, room := q.Cost, q.Room
	refused := 0 // what the line Accept refused cost, counted in used
	slicer := text.Slicer{From: q.From, To: q.To, FromByte: q.FromByte, MaxLine: cost.Span(room), SkipBinary: true, Accept: func(line []byte) bool {
		c := cost.Bytes(text.FrameBytes(line)) + 2 // as shown, and its "\n"
		used += c
		kept++
		if used <= room && (q.Lines == 0 || kept <= q.Lines) {
			return true
		}
		refused = c
		return false
	}}
	if q.What != "" {
		slicer.Piece = func(p text.Piece, head []byte, n int) int64 {
			whole := p.From+int64(len(head)) == p.Bytes
			if refused > 0 { // Accept counted the line it refused
				if used, kept = used-refused, kept-1; refused <= room {
					refused = 0
					return 0 // a line that fits a part of its own starts the next
				}
				refused = 0
			}
			left := room - used - q.PieceCost
			if n > 0 && (left*minPieceShare < room || q.Lines != 0 && kept+2 > q.Lines) {
				return 0
			}
			marker := text.PieceMarker(q.What, text.Piece{Line: p.Line, From: p.From, To: p.Bytes - 1, Bytes: p.Bytes})
			avail := left - cost.Len(marker) - 1 - 2 // the marker's widest, and the piece's "\n"
			limit := len(head)
			if !whole {
				limit -= utf8.UTFMax // the character at the cut is decoded whole
			}
			k := fitPiece(head[:max(limit, 0)], avail, cost, whole)
			if k == 0 {
				if n > 0 {
					return 0
				}
				// A room smaller than a marker: one character, so that
				// the reading moves on.
				_, k = utf8.DecodeRune(head)
			}
			used += q.PieceCost + cost.Len(marker) + 1 + cost.Bytes(text.FrameBytes(head[:k])) + 2
			kept++
			return p.From + int64(k)
		}
	}
	total, known := l.counts.get(blob.OID)
	slicer.StopEarly = known
	res, err := slicer.Read(body)
	if res.Stopped && res.Oversized == 0 && res.Last < res.First && len(res.Pieces) == 0 && res.BadFromByte == "" {
		res.Oversized = max(q.From, 1) // shorter than the span, but over the room
	}
	if known {
		res.Total = total
	} else if err == nil && !res.Binary && blob.OID != "" {
		l.counts.put(blob.OID, res.Total)
	}
	return res, err
}

// fitPiece is how many bytes of b (a line's bytes from a piece's start;
// the rest of the line whole when whole) the largest piece that costs at
// most room as shown (framed) holds, cut on a UTF-8 character's boundary.
func fitPiece(b []byte, room int, cost Cost, whole bool) int {
	fits := func(n int) bool { return cost.Bytes(text.FrameBytes(b[:n])) <= room }
	if whole && fits(len(b)) {
		return len(b)
	}
	lo, hi := 0, min(len(b), max(cost.Span(room), 0))+1 // a cut at lo fits, at hi it does not
	if hi > len(b) && fits(len(b)) {
		return len(b)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if fits(text.CutPoint(b, mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return text.CutPoint(b, lo)
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
