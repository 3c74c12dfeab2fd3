package paging

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// The patch cache: a diff read part by part would run git diff once per
// part, and a file whose patch spans 30 parts would be diffed 30 times.
// So the git diff a part starts is kept going after the part is cut: in
// the background, it fills a run (what git printed, up to a bound) while
// the reply goes out and the agent reads it, and the next parts are cut
// from the run, waiting for git only when they are ahead of it. Cursors
// stay self-contained: the cache only saves work, a part cut from it is
// the part git would give, and a restarted server or another replica runs
// git instead. A run is not used once the repository's object store
// changed (its commits may have been pruned).

// patchRun is one diff's patch as one git diff printed it: the sections
// of kept[0:], where kept[0] is change first of the diff's file list.
type patchRun struct {
	key     string
	first   int
	total   int          // changes in the whole diff
	kept    []git.Change // the changes the git diff was given, in order
	skipped map[string]int64
	// stamp is the object store's state before git read the run
	// (git.Repo.ObjectsStamp of the diff's commits).
	stamp string
	limit int // the most bytes text may hold

	mu     sync.Mutex
	grew   sync.Cond // signalled when text grows or the run ends
	text   runText
	starts []int // the section starts found in text
	// offsets[j] is where kept[j]'s sections start (for a change that has
	// none, where the next one's do), for the sections mapped so far.
	offsets []int
	mapped  int // sections of starts matched to their changes
	// wanted is how far the fill may read: fillAhead past the furthest a
	// reader has asked for. Past it git waits (its pipe full), and after
	// fillPause with no reader asking for more it is stopped: a first
	// part that nobody continues costs fillAhead of git's work, not the
	// run's bound.
	wanted int
	over   bool
	done   bool
	whole  bool // done, and text is all git printed
	used   time.Time
	ahead  *aheadCut // the part cut ahead of its call (patchahead.go)
}

// errRunCut: a reader reached where a run stopped short of git's output.
var errRunCut = errors.New("patch run cut short")

func newPatchRun(key string, first, total int, kept []git.Change, skipped map[string]int64, stamp string, limit int) *patchRun {
	r := &patchRun{key: key, first: first, total: total, kept: kept, skipped: skipped, stamp: stamp, limit: limit}
	r.grew.L = &r.mu
	return r
}

// Write keeps what git printed (the run is where a part's read is teed).
func (r *patchRun) Write(p []byte) (int, error) {
	r.keep(p)
	return len(p), nil
}

// keep adds what git printed, up to the run's limit, and finds the
// sections in it.
func (r *patchRun) keep(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.over || r.done {
		return
	}
	if r.text.len()+len(p) > r.limit {
		r.over = true
		r.grew.Broadcast()
		return
	}
	from := max(0, r.text.len()-len(sectionLine))
	r.text.append(p)
	r.findSections(from)
	r.grew.Broadcast()
}

// findSections notes the section starts in text from byte from on, and
// matches those whose header lines are in to their changes.
func (r *patchRun) findSections(from int) {
	if len(r.starts) == 0 && bytes.HasPrefix(r.text.slice(0, min(r.text.len(), len(sectionLine))), []byte(sectionLine)) {
		r.starts = append(r.starts, 0)
	}
	for at := from; ; {
		i := r.text.index(at, []byte("\n"+sectionLine))
		if i < 0 {
			break
		}
		r.starts = append(r.starts, i+1)
		at = i + 1
	}
	for r.mapped < len(r.starts) {
		start := r.starts[r.mapped]
		end := r.text.len()
		if r.mapped+1 < len(r.starts) {
			end = r.starts[r.mapped+1]
		}
		window := min(end, start+maxRunHeader)
		lines, whole := headerLines(r.text.slice(start, window))
		if !whole && window == r.text.len() && !r.done {
			return // the header lines are not all in yet
		}
		if !whole && window < end {
			r.over = true // header lines longer than any git prints: give up the run
			return
		}
		h, err := diff.ParseHeader(lines)
		j := len(r.offsets)
		if len(r.offsets) > 0 {
			j = len(r.offsets) - 1 // a type change's second section
		}
		for j < len(r.kept) && !sectionOf(h, r.kept[j]) {
			j++
		}
		if err != nil || j == len(r.kept) {
			// Not what the file list says git prints: give up on the run.
			r.over = true
			return
		}
		for len(r.offsets) <= j {
			r.offsets = append(r.offsets, start)
		}
		r.mapped++
	}
}

// finish ends the run: whole when git printed everything (err nil, nothing
// left out); a run that failed is marked over, so nothing reads past what
// it holds.
func (r *patchRun) finish(err error, eof bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	if err != nil || !eof {
		r.over = true
	}
	r.whole = !r.over
	if r.whole {
		r.findSections(r.text.len())
		for len(r.offsets) < len(r.kept) {
			r.offsets = append(r.offsets, r.text.len())
		}
	}
	r.grew.Broadcast()
}

// size is what the run takes in memory: its bound while git fills it.
func (r *patchRun) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return r.text.len()
	}
	return r.limit
}

// offsetOf waits until the run knows where change i's sections start;
// false when it never will (git stopped before them).
func (r *patchRun) offsetOf(ctx context.Context, i int) (int, bool) {
	stop := context.AfterFunc(ctx, r.wake)
	defer stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	j := i - r.first
	for j >= len(r.offsets) { // an offset, once known, is final
		if r.over || r.done || ctx.Err() != nil {
			return 0, false
		}
		r.want(r.text.len())
		r.grew.Wait()
	}
	return r.offsets[j], true
}

// want lets the fill read fillAhead past at (r.mu held).
func (r *patchRun) want(at int) {
	if at+fillAhead > r.wanted {
		r.wanted = at + fillAhead
		r.grew.Broadcast()
	}
}

// wantMore lets the fill read fillAhead past what the run holds.
func (r *patchRun) wantMore() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.want(r.text.len())
}

func (r *patchRun) wake() {
	r.mu.Lock()
	r.grew.Broadcast()
	r.mu.Unlock()
}

// reader reads the run from byte at on, waiting for git as needed. Past
// where a run stopped short it fails with errRunCut, and notes it: a part
// must not end there as if the patch did, nor anywhere its reader looked
// past it (diff.ReadPage ends a part early on a read error met while
// looking ahead, where git would have let it go on).
func (r *patchRun) reader(ctx context.Context, at int) *runReader {
	return &runReader{run: r, ctx: ctx, pos: at}
}

type runReader struct {
	run *patchRun
	ctx context.Context
	pos int
	cut bool // it met where the run stopped short of the diff's end
}

func (rr *runReader) Read(p []byte) (int, error) {
	r := rr.run
	stop := context.AfterFunc(rr.ctx, r.wake)
	defer stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.want(rr.pos)
	for rr.pos >= r.text.len() && !r.done && !r.over {
		if err := context.Cause(rr.ctx); err != nil {
			return 0, err
		}
		r.grew.Wait()
	}
	if rr.pos < r.text.len() {
		n := r.text.readAt(p, rr.pos)
		rr.pos += n
		return n, nil
	}
	if r.whole {
		// The end of the diff, or of the changes the run was given (the
		// diff goes on: a reader that met it is cut as well).
		rr.cut = r.first+len(r.kept) < r.total
		return 0, io.EOF
	}
	rr.cut = true
	return 0, errRunCut
}

// fill reads the rest of git's output into the run, as far as readers
// want it, until its end, the run's bound, the run's deadline, or
// fillPause with nobody wanting more.
func (r *patchRun) fill(src io.Reader) (eof bool, err error) {
	buf := make([]byte, 64<<10)
	for {
		if !r.waitForDemand() {
			return false, nil
		}
		n, err := src.Read(buf)
		r.keep(buf[:n])
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		r.mu.Lock()
		over := r.over
		r.mu.Unlock()
		if over {
			return false, nil
		}
	}
}

// waitForDemand waits until a reader wants more than the run holds;
// false after fillPause without one.
func (r *patchRun) waitForDemand() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.text.len() < r.wanted {
		return true
	}
	timer := time.AfterFunc(fillPause, r.wake)
	defer timer.Stop()
	since := time.Now()
	for r.text.len() >= r.wanted && !r.over {
		if time.Since(since) >= fillPause {
			r.over = true // what is kept stays usable; past it, git again
			return false
		}
		r.grew.Wait()
	}
	return !r.over
}

// covers: the run was given change i of the diff's file list.
func (r *patchRun) covers(i int) bool {
	return i >= r.first && i < r.first+len(r.kept)
}

// patchCache holds a few runs, the least recently used dropped first, in
// at most limit bytes (none when limit is not positive), and lets at most
// maxFills git diffs fill runs after their calls returned.
type patchCache struct {
	limit int
	mu    sync.Mutex
	runs  []*patchRun // least recently used first
	hits  atomic.Int64
	// aheadHits counts the parts taken cut ahead, for the tests.
	aheadHits atomic.Int64
	fills     chan struct{}
	// totals are the patch totals counted (patchTotal), by cache key: the
	// diff of two commits never changes. At most maxTotals.
	totals map[string]diff.Total
}

const maxTotals = 1024

// total is the total counted for key, if any.
func (c *patchCache) total(key string) (diff.Total, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.totals[key]
	return t, ok
}

// keepTotal remembers a total counted for key.
func (c *patchCache) keepTotal(key string, t diff.Total) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.totals == nil || len(c.totals) >= maxTotals {
		c.totals = map[string]diff.Total{}
	}
	c.totals[key] = t
}

// MaxRunBytes bounds one run (and half the cache's bound does), so that
// one file's patch of up to that size is diffed once. runIdle is how long
// an unused run is kept: a diff read by an agent part by part, thinking
// between the calls. maxFills bounds the git processes that go on filling
// runs after their call returned (the rest read their part only),
// fillTimeout how long one may, and fillAhead and fillPause how far past
// its readers and how long without one (patchRun.wanted). Variables for
// the tests.
var (
	MaxRunBytes = 8 << 20
	runIdle     = 5 * time.Minute
	fillTimeout = 30 * time.Second
	fillAhead   = 1 << 20
	fillPause   = 5 * time.Second
)

const maxFills = 2

// runLimit is the most bytes one run may hold; 0 when the cache is off.
func (c *patchCache) runLimit() int {
	return max(0, min(MaxRunBytes, c.limit/2))
}

// startFill takes a fill slot; false when none is free (or the cache is
// off). done gives it back.
func (c *patchCache) startFill() (done func(), ok bool) {
	if c.runLimit() == 0 {
		return nil, false
	}
	c.mu.Lock()
	if c.fills == nil {
		c.fills = make(chan struct{}, maxFills)
	}
	c.mu.Unlock()
	select {
	case c.fills <- struct{}{}:
		return func() { <-c.fills }, true
	default:
		return nil, false
	}
}

// find returns the run of key that was given change i, if any.
func (c *patchCache) find(key string, i int, now time.Time) *patchRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	for k := len(c.runs) - 1; k >= 0; k-- { // the newest first
		if r := c.runs[k]; r.key == key && r.covers(i) {
			r.used = now
			c.runs = append(append(c.runs[:k:k], c.runs[k+1:]...), r)
			return r
		}
	}
	return nil
}

// put keeps r, in place of the runs of its key it overlaps.
func (c *patchCache) put(r *patchRun, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r.used = now
	kept := c.runs[:0]
	for _, o := range c.runs {
		overlaps := o.key == r.key && o.first < r.first+len(r.kept) && r.first < o.first+len(o.kept)
		if !overlaps {
			kept = append(kept, o)
		}
	}
	c.runs = append(kept, r)
	c.expire(now)
}

// expire drops the runs unused for runIdle, and the least recently used
// while the runs take more than the bound.
func (c *patchCache) expire(now time.Time) {
	kept := c.runs[:0]
	for _, r := range c.runs {
		if now.Sub(r.used) < runIdle {
			kept = append(kept, r)
		}
	}
	c.runs = kept
	total := 0
	for _, r := range c.runs {
		total += r.size()
	}
	for total > c.limit && len(c.runs) > 0 {
		total -= c.runs[0].size()
		c.runs = c.runs[1:]
	}
}

// maxRunHeader bounds the header lines of a section the run reads to
// match it to its change: git's are a few lines.
const maxRunHeader = 64 << 10

// sectionLine starts each file section of a patch (in a hunk, a line that
// reads so has a "+", "-" or " " before it).
const sectionLine = "diff --git "

// headerLines are the lines of a section up to its first hunk, and
// whether they end there (a hunk or a binary line follows).
func headerLines(section []byte) ([]string, bool) {
	var lines []string
	for len(section) > 0 {
		i := bytes.IndexByte(section, '\n')
		if i < 0 {
			return lines, false // a line not yet ended
		}
		line := section[:i+1]
		if bytes.HasPrefix(line, []byte("@@")) {
			return lines, true
		}
		lines = append(lines, string(line))
		section = section[len(line):]
		if strings.HasPrefix(lines[len(lines)-1], "Binary files ") {
			return lines, true
		}
	}
	return lines, false
}
