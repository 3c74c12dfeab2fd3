package server

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// patchCacheRepo is a pull request (refs/pull/3/head, branch feature) whose
// diff has what a run of the patch cache must keep whole or cut right:
// files larger than a run, a type change (two sections), renames, a file
// too large to diff, a secret, binary files.
func patchCacheRepo(t *testing.T) *testrepo.Repo {
	r := testrepo.New(t)
	r.Write("big.txt", numberedLines(900))
	r.Write("huge.txt", numberedLines(3000))
	r.Write("move/old.txt", numberedLines(120))
	r.Symlink("big.txt", "link")
	r.Write(".env", "TOKEN=one\n")
	r.Write("bin.dat", "\x00\x01\x02")
	for i := range 30 {
		r.Write(fmt.Sprintf("dir/f%02d.txt", i), numberedLines(40+i))
	}
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("big.txt", editEvery(numberedLines(900), 7, "edited"))
	r.Write("huge.txt", editEvery(numberedLines(3000), 3, "changed"))
	r.Git("mv", "move/old.txt", "move/new.txt")
	r.Write("move/new.txt", editEvery(numberedLines(120), 50, "moved"))
	r.Git("rm", "-q", "link")
	r.Write("link", "a file now\n")
	r.Write(".env", "TOKEN=two\n")
	r.Write("bin.dat", "\x00\x03")
	r.Write("toolarge.txt", strings.Repeat("too large to diff\n", 4000))
	for i := range 30 {
		r.Write(fmt.Sprintf("dir/f%02d.txt", i), editEvery(numberedLines(40+i), 9, "f"))
	}
	r.Write("dir/f31_test.go", "package dir\n")
	r.Commit("feature")
	r.Git("update-ref", "refs/pull/3/head", "feature")
	r.Git("checkout", "-q", "main")
	return r
}

// A part cut from the patch cache is the part git gives: every reply of a
// drain through next calls is the same, byte for byte and next call for
// next call, on a server that keeps runs and on one with the cache off
// (what a restarted server or another replica does). Runs are made
// small here, so that drains cross runs, a file is larger than a run, and a
// run stops inside a type change.
func TestPatchCacheGivesWhatGitGives(t *testing.T) {
	defer func(b int, c int64) { paging.MaxRunBytes, paging.MaxDiffBlob = b, c }(paging.MaxRunBytes, paging.MaxDiffBlob)
	paging.MaxRunBytes, paging.MaxDiffBlob = 24<<10, 50<<10
	r := patchCacheRepo(t)
	before := r.Snapshot()
	cases := []struct {
		tool string
		args map[string]any
		// larger: the patch is one file's, larger than a run: git diffs
		// it again past the run's bound.
		larger bool
	}{
		{"get_diff", args("base", "main", "head", "feature", "maxBytes", 1500), false},
		{"get_diff", args("base", "main", "head", "feature", "maxBytes", 900, "contextLines", 0), false},
		{"get_diff", args("base", "main", "head", "feature", "paths", []string{"move/old.txt", "link", "dir"}), false},
		{"get_pull_request_diff", prArgs(3), false},
		{"get_pull_request_diff", prArgs(3, "file_path", "big.txt"), false},
		{"get_pull_request_diff", prArgs(3, "file_path", "huge.txt"), true},
		{"get_commit", args("ref", "feature", "maxBytes", 2000), false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %v", c.tool, c.args), func(t *testing.T) {
			key := randomCursorKey(t) // one key: each continues the other's cursors
			warm := serve(t, r, withTextOnly(), withMaxBytes(6000), withCursorKey(key))
			cold := serve(t, r, withTextOnly(), withMaxBytes(6000), withCursorKey(key), func(c *Config) { c.PatchCacheBytes = -1 })
			a, calls := maps.Clone(c.args), 0
			for ; a != nil; calls++ {
				if calls > 500 {
					t.Fatal("more than 500 parts")
				}
				w := warm.call(c.tool, a)
				g := cold.call(c.tool, a)
				// The run the call left filling is filled before the
				// next call, as between an agent's calls: on a slow
				// machine (-race, a loaded CI) the next call could
				// otherwise come first and go to git, and no part would
				// be cut from the cache.
				fillsIdle(t, warm.server)
				if textOf(w) != textOf(g) || w.IsError != g.IsError {
					t.Fatalf("part %d (%v): the cache's reply differs from git's:\n%s\n-- git --\n%s", calls, a, textOf(w), textOf(g))
				}
				if w.IsError {
					t.Fatalf("part %d: %s", calls, textOf(w))
				}
				a = nil
				if n := nextOf(t, w); n != nil {
					a = n.Arguments
				}
			}
			if hits := cold.server.diffs.Hits(); hits != 0 {
				t.Errorf("a server with the cache off cut %d parts from it", hits)
			}
			hits, ahead := warm.server.diffs.Hits(), warm.server.diffs.AheadHits()
			// A file larger than a run is diffed again past the run's
			// bound: most of its parts come from git. Whether its first
			// parts come from the run depends on how far the fill got
			// before the next call (none, seen on a loaded machine); the
			// other cases hold the cache to being used.
			// A hit is a read: FitPart reads a part again to fill it, so a
			// part may be several; and the first part of a reply in parts
			// counts them by draining it once more (partcount.go).
			if (!c.larger && hits == 0) || (c.larger && hits >= int64(4*calls)) {
				t.Errorf("%d parts, %d cut from the cache", calls, hits)
			}
			// A part cut from a run has the next one cut ahead, from the
			// same run: where consecutive parts come from one run (not
			// where one file is larger than a run, and every run holds a
			// part or two), some are taken so.
			if !c.larger && hits >= 3 && ahead == 0 {
				t.Errorf("%d parts, %d cut from the cache, none ahead of its call", calls, hits)
			}
			t.Logf("%d parts, %d cut from the cache, %d of them ahead of their call", calls, hits, ahead)
		})
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("the repository changed:\n%s\n%s", before, after)
	}
}

// fillsIdle waits until no run of s's patch cache is being filled.
func fillsIdle(t *testing.T, s *Server) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if !s.diffs.Filling() {
			return
		}
	}
	t.Fatal("the patch cache's fills did not end in 10 s")
}
