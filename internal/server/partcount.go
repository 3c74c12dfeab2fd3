package server

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// Every part of a paged diff says "part k of n", and n is what the drain
// takes: the first part counts the parts by draining the reply in the
// server, through the tool's own code, before it answers (countParts). A
// part's cut depends on its first line's length, which holds n itself:
// the count runs with the n it assumes written in, and again while the
// parts it counts have another number of digits, so that the parts it
// counted are cut as the parts an agent gets.

// partPlace is where a part is in its reply: part k of n (0: not counted).
type partPlace struct{ k, n int }

func (p partPlace) String() string {
	if p.n == 0 {
		return fmt.Sprintf("part %d", p.k)
	}
	return fmt.Sprintf("part %d of %d", p.k, p.n)
}

// placeOf is where the part a call asks for is: from its cursor, or the
// first part of n.
func placeOf(cur paging.Cursor, first bool, n int) partPlace {
	if first {
		return partPlace{k: 1, n: n}
	}
	return partPlace{k: max(cur.Part, 1), n: cur.Parts}
}

// carry puts into the cursor of the part after p where it is.
func (p partPlace) carry(c *paging.Cursor) { c.Part, c.Parts = p.k+1, p.n }

// countingKey marks a context in which a count runs (countParts), with the
// number of parts the parts it cuts say.
type countingKey struct{}

// assumedParts: the call is a count's (countParts), whose parts say they
// are of n; ok false when it is an agent's.
func assumedParts(ctx context.Context) (n int, ok bool) {
	n, ok = ctx.Value(countingKey{}).(int)
	return n, ok
}

// countTime bounds a count of parts, within a third of what the call has
// left: past it a part says "part k", and the reply's count is left out
// rather than late. A variable for the tests, which run under -race on
// loaded machines, where a count is tens of times slower.
var countTime = 3 * time.Second

// countWait is how long a count may take in ctx: countTime, within a
// third of what the call has left.
func countWait(ctx context.Context) time.Duration {
	wait := countTime
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)/3)
	}
	return wait
}

// maxCountedFiles is the most files a diff whose parts are counted has: a
// count reads the diff again as many times as its parts, and one of 12,000
// files was not counted in 3 s, having read much.
const maxCountedFiles = 2000

// maxCountedParts bounds the parts a count follows.
const maxCountedParts = 5000

// partCall answers one part of a paged reply, the part cursor points at
// ("": the first), with the next call (nil after the last part).
type partCall func(ctx context.Context, cursor string) (*paging.Call, error)

// countParts is how many parts the reply of call, a diff of files files,
// takes, counted by following its next calls to the end at ctx's budget,
// the first part's n being guess (an estimate, at least 1); 0 when it
// cannot be counted in time, or holds more than maxCountedFiles files. Counts are kept by key (partCounts).
func (s *Server) countParts(ctx context.Context, key string, files, guess int, call partCall) int {
	if _, counting := assumedParts(ctx); counting || files > maxCountedFiles {
		return 0
	}
	key = fmt.Sprintf("%s\x00%+v", key, s.budget(ctx))
	if n, ok := s.partCounts.get(key); ok {
		return n
	}
	call0 := ctx
	ctx, cancel := context.WithTimeout(ctx, countWait(ctx))
	defer cancel()
	shared := &countShared{}
	defer shared.close()
	ctx = context.WithValue(ctx, countSharedKey{}, shared)
	n := max(guess, 1)
	for range 4 {
		counted := s.drainCount(context.WithValue(ctx, countingKey{}, n), call)
		if counted == 0 {
			if ctx.Err() != nil && call0.Err() == nil {
				// Too long to count: the next call would give up too.
				s.partCounts.put(key, 0)
			}
			return 0
		}
		if len(strconv.Itoa(counted)) == len(strconv.Itoa(n)) {
			// Parts that say n are cut as parts that say counted.
			s.partCounts.put(key, counted)
			return counted
		}
		n = counted
	}
	return 0
}

// countShared is what the parts of one count share: a forge's diff, kept
// once for all of them (forge.go), and where its sections begin, so that
// each part reads it from the last section before its start that an
// earlier part passed, not from the diff's start: a count of a diff's n
// parts reads it about twice, not n/2 times.
type countShared struct {
	stream   *paging.Replay
	sections []diff.Checkpoint // in the diff's order
}

// passed notes where a section begins.
func (c *countShared) passed(at diff.Checkpoint) {
	if n := len(c.sections); n == 0 || at.File > c.sections[n-1].File {
		c.sections = append(c.sections, at)
	}
}

// before is the last section noted that begins at or before file; the
// diff's start when none is.
func (c *countShared) before(file int) diff.Checkpoint {
	i, _ := slices.BinarySearchFunc(c.sections, file, func(at diff.Checkpoint, f int) int { return cmp.Compare(at.File, f) })
	if i < len(c.sections) && c.sections[i].File == file {
		return c.sections[i]
	}
	if i == 0 {
		return diff.Checkpoint{}
	}
	return c.sections[i-1]
}

type countSharedKey struct{}

func (c *countShared) close() {
	if c.stream != nil {
		c.stream.Close()
	}
}

// sharedByCount is what the count ctx is in shares; nil outside a count.
func sharedByCount(ctx context.Context) *countShared {
	c, _ := ctx.Value(countSharedKey{}).(*countShared)
	return c
}

// drainCount follows call's parts to the end: how many there are, or 0
// when one fails (the deadline, say) or there are too many.
func (s *Server) drainCount(ctx context.Context, call partCall) int {
	cursor := ""
	for n := 1; n <= maxCountedParts; n++ {
		next, err := call(ctx, cursor)
		if errcode.Of(err) == errcode.TooLarge {
			// As the tool-call wrapper does: an item larger than the
			// call's maxBytes comes whole, within the client's budget.
			if b := s.budget(ctx); b.Ceiling > b.MaxBytes {
				next, err = call(paging.WithBudget(ctx, b.Widened()), cursor)
			}
		}
		if err != nil || ctx.Err() != nil {
			return 0
		}
		if next == nil {
			return n
		}
		c, ok := next.Arguments["cursor"].(string)
		if !ok || c == "" {
			return 0
		}
		cursor = c
	}
	return 0
}

// memo keeps what counts made lately (a count of parts, a routes note),
// so that the count an overview gives (get_pull_request) is not made again
// by the diff's first part. Bounded: when full it starts again.
type memo[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

const maxMemo = 1024

func (c *memo[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *memo[V]) put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxMemo {
		c.m = map[string]V{}
	}
	c.m[key] = v
}
