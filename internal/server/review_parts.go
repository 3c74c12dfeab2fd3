package server

import (
	"context"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// A thread's part: when a file's patch does not fit one reply, the
// get_pull_request_diff call with file_path shows only its first part,
// and the thread's line may be parts later. locateThreadParts reads the
// file's parts as an agent would (the tool itself, at this server's reply
// limit, pinned to the same head) and names, for each thread, the call of
// the first part whose hunks hold its line.

// Bounds on that reading, each part one diff: the files located per
// listing (in the order of their first thread), and the parts read of one.
const (
	maxLocatedFiles = 10
	maxLocatedParts = 16
)

// locateThreadParts sets ShowIn (and Part) of the threads whose file is
// in the diff to the call of the part that shows their line. A thread
// whose line no part reached (the file is past the bounds, or the line
// is outside every hunk) keeps the call of the file's first part.
func (s *Server) locateThreadParts(ctx context.Context, in listPullRequestReviewsIn, threads []reviewThread) error {
	var files []string
	byFile := map[string][]*reviewThread{}
	for i := range threads {
		t := &threads[i]
		if t.ShowIn == nil {
			continue
		}
		if _, seen := byFile[t.Path]; !seen {
			files = append(files, t.Path)
		}
		byFile[t.Path] = append(byFile[t.Path], t)
	}
	if len(files) == 0 {
		return nil
	}
	// A pull request whose whole diff fits one reply has no file whose
	// patch does not: one diff tells, rather than one per file.
	whole, err := s.getPullRequestDiff(ctx, getPullRequestDiffIn{Owner: in.Owner, Repo: in.Repo, Index: in.Index, ContextLines: defaultContextLines})
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err == nil && whole.Next == nil {
		return nil
	}
	for _, path := range files[:min(len(files), maxLocatedFiles)] {
		call := getPullRequestDiffIn{Owner: in.Owner, Repo: in.Repo, Index: in.Index, FilePath: path, ContextLines: defaultContextLines}
		left := byFile[path]
		for part := 1; part <= maxLocatedParts && len(left) > 0; part++ {
			r, err := s.getPullRequestDiff(ctx, call)
			if err != nil {
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
				break // the first part's call stays: it says what is wrong
			}
			if part == 1 && r.Next == nil {
				break // the whole patch is in the first part's call
			}
			hunks := hunksOf(r.Text)
			kept := left[:0]
			for _, t := range left {
				if hunks.hold(t.Side, t.Line) {
					t.ShowIn, t.Part = paging.Continue("get_pull_request_diff", call), part
					continue
				}
				kept = append(kept, t)
			}
			left = kept
			if r.Next == nil {
				break
			}
			cursor, _ := r.Next.Arguments["cursor"].(string)
			if cursor == "" {
				break
			}
			call.Cursor = cursor
		}
	}
	return nil
}

// hunkSpans are the old and new lines the hunks of a patch span, one
// span per hunk ([first, last]; an empty side spans nothing).
type hunkSpans struct{ old, new [][2]int }

// hunksOf reads the hunk headers ("@@ -a,b +c,d @@") of a part's text. A
// part is a patch by itself: a hunk it continues has a header of its own.
// Only a hunk header starts with "@@ " in a patch (a line of content
// starts with " ", "+", "-" or "\").
func hunksOf(patch string) hunkSpans {
	var h hunkSpans
	for line := range strings.Lines(patch) {
		rest, ok := strings.CutPrefix(line, "@@ -")
		if !ok {
			continue
		}
		oldSpan, rest, _ := strings.Cut(rest, " +")
		newSpan, _, ok := strings.Cut(rest, " @@")
		if !ok {
			continue
		}
		if sp, ok := lineSpan(oldSpan); ok {
			h.old = append(h.old, sp)
		}
		if sp, ok := lineSpan(newSpan); ok {
			h.new = append(h.new, sp)
		}
	}
	return h
}

// lineSpan reads "a,b" (b lines from a) or "a" (one line).
func lineSpan(s string) ([2]int, bool) {
	first, count, hasCount := strings.Cut(s, ",")
	a, err := strconv.Atoi(first)
	if err != nil {
		return [2]int{}, false
	}
	n := 1
	if hasCount {
		if n, err = strconv.Atoi(count); err != nil {
			return [2]int{}, false
		}
	}
	if n == 0 {
		return [2]int{}, false
	}
	return [2]int{a, a + n - 1}, true
}

// hold: a hunk spans line of side ("new" or "old").
func (h hunkSpans) hold(side string, line int) bool {
	spans := h.new
	if side == "old" {
		spans = h.old
	}
	for _, sp := range spans {
		if sp[0] <= line && line <= sp[1] {
			return true
		}
	}
	return false
}
