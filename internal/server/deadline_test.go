//go:build unix

package server

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Finding: a commit of 200,000 files with ~1.8 KB paths (a 756 KB
// repository) kept get_diff busy for 97 s past a 30 s deadline, and three
// such calls held 2.4 GiB of heap (list_changed_files limit=1: 0.8 GiB):
// loops over the file list never looked at the deadline, and whole lists
// were held. Here, 40,000 files of ~1.8 KB paths and a 1 s deadline: every
// diff tool answers, or fails with the deadline, within it plus 1 s, three
// at a time, while the heap stays far below the list's size (73 MB of
// paths).
func TestWideRangeKeepsDeadlineAndMemory(t *testing.T) {
	r := newPRRepo(t).Repo
	wide := r.CommitWide(r.Head(), 12_000, 5, "wide")
	r.Git("update-ref", "refs/pull/30/head", wide)
	h := serve(t, r, withTimeout(10*time.Second))
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_diff", map[string]any{"base": wide + "~1", "head": wide, "mode": "direct"}},
		{"list_changed_files", map[string]any{"base": wide + "~1", "head": wide, "mode": "direct", "limit": 1}},
		{"list_pull_request_files", map[string]any{"owner": "acme", "repo": "widgets", "index": 30, "limit": 1}},
		{"get_pull_request_diff", map[string]any{"owner": "acme", "repo": "widgets", "index": 30, "file_path": "nope.txt"}},
		{"get_pull_request_diff", map[string]any{"owner": "acme", "repo": "widgets", "index": 30}},
	}
	// The heap is sampled for what the calls hold: with the collector's
	// default pacing, garbage not yet collected can double what is held,
	// and the peak then follows the collector's timing, not the calls.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}()
	for _, c := range calls {
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				start := time.Now()
				res := h.call(c.tool, c.args)
				if d := time.Since(start); d > 11*time.Second {
					t.Errorf("%s took %v with a 10 s deadline", c.tool, d)
				}
				if msg := textOf(res); res.IsError && !strings.HasPrefix(msg, "UNAVAILABLE") && !strings.HasPrefix(msg, "NOT_FOUND") && !strings.HasPrefix(msg, "TOO_LARGE") && !strings.HasPrefix(msg, "PATH_DENIED") {
					t.Errorf("%s: %.200s", c.tool, msg)
				}
			})
		}
		wg.Wait()
	}
	close(stop)
	<-sampled
	// Two calls at a time, each holding a part's changes and text and a
	// read buffer: well under the 73 MB of paths the range lists.
	if grew := (peak - min(peak, base)) >> 20; grew > 10 {
		t.Errorf("the heap grew by %d MiB while listing 12 MB of paths", grew)
	}
}

// A commit naming one blob over the search limit under 4,000 paths of
// ~800 bytes: search_code matched every path against the secrets policy's
// globs with no look at the deadline, 12 s past a 1 s one here (17 s past
// 5 s in the review). It answers (TOO_LARGE: too many large files to skip)
// or fails with the deadline, within the deadline plus a few seconds, and
// leaves no git running (docs/security.md, finding 11).
func TestSearchCodeLargeFileListKeepsDeadline(t *testing.T) {
	r := testrepo.New(t)
	r.Write("README", "hello\n")
	r.Commit("one")
	blob := strings.TrimSpace(r.GitInput(strings.Repeat("z", 2048), "hash-object", "-w", "--stdin"))
	var leaves strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&leaves, "100644 blob %s\tf%05d\n", blob, i)
	}
	tree := strings.TrimSpace(r.GitInput(leaves.String(), "mktree"))
	for d := 3; d >= 0; d-- {
		tree = strings.TrimSpace(r.GitInput(fmt.Sprintf("040000 tree %s\td%03d%s\n", tree, d, strings.Repeat("x", 196)), "mktree"))
	}
	wide := strings.TrimSpace(r.Git("commit-tree", tree, "-m", "wide"))
	h := serve(t, r, withMaxSearchFileBytes(1024), withTimeout(time.Second))
	start := time.Now()
	res := h.call("search_code", searchArgs("hello", "ref", wide))
	took := time.Since(start)
	msg := textOf(res)
	if res.IsError && !strings.HasPrefix(msg, "UNAVAILABLE") && !strings.HasPrefix(msg, "TOO_LARGE") {
		t.Errorf("search_code: %.200s", msg)
	}
	if took > 5*time.Second {
		t.Errorf("search_code took %v with a 1 s deadline: %.120s", took, msg)
	}
	hostileGitStopped(t, r.Dir)
}
