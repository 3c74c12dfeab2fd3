package server

import (
	"bytes"
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
// So when a part is full, its git diff is read on (readAhead more, and to
// the end of the file section that reaches past that) and the whole
// sections read are kept as a run; the next part is cut from them. Cursors stay self-contained:
// the cache only saves work, a part cut from it is the part git would give,
// and a restarted server or another replica runs git instead. A run is not
// used once the repository's object store changed (its commits may have
// been pruned).

// patchRun is a stretch of one diff's patch, as git printed it: the
// sections of changes[0:] of the diff's file list, from changes[0] on.
type patchRun struct {
	key   string
	first int // the file-list index of changes[0]
	// changes are the changes whose sections text holds whole; offsets
	// are where each one's sections start in text (for a change that has
	// none, where the next one's start).
	changes []git.Change
	offsets []int
	skipped map[string]int64 // tooLargeToDiff of the run's changes
	text    []byte
	// complete: text runs to the end of the diff.
	complete bool
	// stamp is the object store's state when git read the run
	// (git.Repo.ObjectsStamp of the diff's commits).
	stamp string
	used  time.Time
}

// covers: the run holds change i of the diff's file list.
func (r *patchRun) covers(i int) bool {
	return i >= r.first && i < r.first+len(r.changes)
}

// patchCache holds a few runs, the least recently used dropped first, in
// at most limit bytes (none when limit is not positive).
type patchCache struct {
	limit int
	mu    sync.Mutex
	runs  []*patchRun // least recently used first
	bytes int
	hits  atomic.Int64 // parts cut from a run
}

// maxRunBytes bounds one run (and half the cache's bound does), so that
// one file's patch of up to that size is diffed once. readAhead is about
// how far past a part a run reads: about 16 parts. runIdle is how long an
// unused run is kept: a diff read by an agent part by part, thinking
// between the calls. Variables for the tests.
var (
	maxRunBytes = 8 << 20
	readAhead   = 1 << 20
	runIdle     = 5 * time.Minute
)

// runLimit is the most bytes one run may hold; 0 when the cache is off.
func (c *patchCache) runLimit() int {
	return max(0, min(maxRunBytes, c.limit/2))
}

// find returns the run of key that holds change i, if any.
func (c *patchCache) find(key string, i int, now time.Time) *patchRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	for k, r := range c.runs {
		if r.key == key && r.covers(i) {
			r.used = now
			c.runs = append(append(c.runs[:k:k], c.runs[k+1:]...), r)
			return r
		}
	}
	return nil
}

// put keeps r, in place of the runs of its key it overlaps.
func (c *patchCache) put(r *patchRun, now time.Time) {
	if len(r.changes) == 0 || len(r.text) > c.runLimit() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r.used = now
	kept := c.runs[:0]
	c.bytes = 0
	for _, o := range c.runs {
		overlaps := o.key == r.key && o.first < r.first+len(r.changes) && r.first < o.first+len(o.changes)
		if !overlaps && now.Sub(o.used) < runIdle {
			kept = append(kept, o)
			c.bytes += len(o.text)
		}
	}
	c.runs = append(kept, r)
	c.bytes += len(r.text)
	for c.bytes > c.limit {
		c.bytes -= len(c.runs[0].text)
		c.runs = c.runs[1:]
	}
}

// expire drops the runs unused for runIdle.
func (c *patchCache) expire(now time.Time) {
	kept := c.runs[:0]
	for _, r := range c.runs {
		if now.Sub(r.used) < runIdle {
			kept = append(kept, r)
		} else {
			c.bytes -= len(r.text)
		}
	}
	c.runs = kept
}

// capture copies what is read of a patch stream, up to limit bytes.
type capture struct {
	src   io.Reader
	limit int
	buf   []byte
	over  bool // the stream went past limit: buf holds its start
	eof   bool
}

func (c *capture) Read(p []byte) (int, error) {
	n, err := c.src.Read(p)
	if !c.over {
		if len(c.buf)+n > c.limit {
			c.over = true
		} else {
			c.buf = append(c.buf, p[:n]...)
		}
	}
	if errors.Is(err, io.EOF) {
		c.eof = true
	}
	return n, err
}

// readOn reads past a part that stopped at byte partEnd: at least
// readAhead more and on to the end of the file section that reaches past
// that (a large file's patch is kept whole, to be diffed once), or to the
// end of the stream, or until the run is full.
func (c *capture) readOn(partEnd int) error {
	chunk := make([]byte, 64<<10)
	from := partEnd + readAhead // look for a section start after here
	for !c.eof && !c.over {
		if len(c.buf) > from {
			if lastSection(c.buf, from) > 0 {
				return nil
			}
			// Not in what was read: look only at what comes next.
			from = max(from, len(c.buf)-len(sectionLine))
		}
		if _, err := c.Read(chunk); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
	}
	return nil
}

// sectionLine starts each file section of a patch (in a hunk, a line that
// reads so has a "+", "-" or " " before it).
const sectionLine = "diff --git "

// lastSection is the offset of the last section start in buf after from,
// or -1.
func lastSection(buf []byte, from int) int {
	at := bytes.LastIndex(buf[from:], []byte("\n"+sectionLine))
	if at < 0 {
		return -1
	}
	return from + at + 1
}

// run makes the patch run of what c read for a part that started at
// change first (the changes kept for it; the diff has total): its sections
// that are whole, matched to their changes. Nil when nothing is whole.
func (c *capture) run(key string, first, total int, kept []git.Change, skipped map[string]int64) *patchRun {
	complete := c.eof && !c.over && first+len(kept) == total
	end := len(c.buf)
	if !(c.eof && !c.over) {
		// The stream goes on: the last section may be cut.
		if end = lastSection(c.buf, 0); end < 0 {
			return nil
		}
	}
	text := c.buf[:end]
	r := &patchRun{key: key, first: first, skipped: skipped, complete: complete}
	j := 0 // the change at hand
	for at := 0; at < len(text); {
		next := bytes.Index(text[at+1:], []byte("\n"+sectionLine))
		sectionEnd := len(text)
		if next >= 0 {
			sectionEnd = at + 1 + next + 1
		}
		h, err := diff.ParseHeader(headerLines(text[at:sectionEnd]))
		if err != nil {
			return nil
		}
		for j < len(kept) && !sectionOf(h, kept[j]) {
			j++
		}
		if j == len(kept) {
			return nil // a section git printed that the file list lacks
		}
		for len(r.offsets) <= j {
			r.offsets = append(r.offsets, at)
		}
		at = sectionEnd
	}
	covered, textEnd := len(r.offsets), end
	if c.eof && !c.over {
		// The changes after the last section have none (too large to diff).
		for len(r.offsets) < len(kept) {
			r.offsets = append(r.offsets, end)
		}
		covered = len(kept)
	} else if covered > 0 && kept[covered-1].Status == 'T' {
		// A type change has two sections: its second may be past the cut.
		covered--
		textEnd = r.offsets[covered]
	}
	if covered == 0 {
		return nil
	}
	r.changes, r.offsets = kept[:covered:covered], r.offsets[:covered]
	r.text = bytes.Clone(text[:textEnd])
	return r
}

// headerLines are the lines of a section up to its first hunk.
func headerLines(section []byte) []string {
	var lines []string
	for len(section) > 0 {
		line := section
		if i := bytes.IndexByte(section, '\n'); i >= 0 {
			line = section[:i+1]
		}
		if bytes.HasPrefix(line, []byte("@@")) {
			break
		}
		lines = append(lines, string(line))
		section = section[len(line):]
		if strings.HasPrefix(lines[len(lines)-1], "Binary files ") {
			break
		}
	}
	return lines
}
