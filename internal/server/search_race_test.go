package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// raceTries is how many searches a work-tree race test makes: 400 in
// the normal suite (50 with -short), MCP_REPO_TOOLS_RACE_TRIES (2000 for the
// full run the review asked for) when set.
func raceTries(t *testing.T) int {
	if s := os.Getenv("MCP_REPO_TOOLS_RACE_TRIES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("MCP_REPO_TOOLS_RACE_TRIES=%q: want a count", s)
		}
		return n
	}
	if testing.Short() {
		return 50
	}
	return 400
}

// raceSearches runs search_code on the work tree tries times while flip
// runs in a loop, and counts the replies whose text holds secret.
func raceSearches(t *testing.T, h *harness, query, secret string, flip func()) (leaks int) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				flip()
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for range raceTries(t) {
		if strings.Contains(h.ok("search_code", searchArgs(query)), secret) {
			leaks++
		}
	}
	return leaks
}

// A work-tree search reads a tracked file while it is a hard link to a file
// outside the repository: the content must never reach the reply, whatever
// the file is when the server looks at the path again (docs/security.md,
// finding 01).
func TestSearchCodeWorkTreeHardLinkRace(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "hostsecret.txt")
	if err := os.WriteFile(outside, []byte("top\nHOST-SECRET-MARKER outside the repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testrepo.New(t)
	r.Write("notes.txt", "harmless notes\n")
	r.Commit("one")
	h := serve(t, r)
	notes, a, b := filepath.Join(r.Dir, "notes.txt"), filepath.Join(r.Dir, ".a"), filepath.Join(r.Dir, ".b")
	// Control: not racing, the hard link is refused.
	os.Remove(notes)
	if err := os.Link(outside, notes); err != nil {
		t.Skipf("no hard link to the outside file: %v", err)
	}
	if got := h.ok("search_code", searchArgs("HOST-SECRET")); strings.Contains(got, "HOST-SECRET-MARKER") {
		t.Fatalf("control: the hard-linked outside file is searched: %s", got)
	}
	flip := func() {
		os.Remove(a)
		os.Link(outside, a)
		os.Rename(a, notes)
		os.WriteFile(b, []byte("harmless notes\n"), 0o644)
		os.Rename(b, notes)
	}
	if leaks := raceSearches(t, h, "HOST-SECRET", "HOST-SECRET-MARKER", flip); leaks > 0 {
		t.Errorf("%d of %d searches returned the outside file's line", leaks, raceTries(t))
	}
}

// A work-tree search reads a tracked file through a directory that flips
// to a symlink to .git: the live git config's token must never reach the
// reply (docs/security.md, finding 02).
func TestSearchCodeWorkTreeSymlinkDirRace(t *testing.T) {
	r := testrepo.New(t)
	r.Write("pub/config", "harmless\n")
	r.Commit("one")
	r.Git("config", "remote.origin.url", "https://bot:SECRET-TOKEN-123@git.example.com/acme/x.git")
	h := serve(t, r)
	pub, tmp, dir := filepath.Join(r.Dir, "pub"), filepath.Join(r.Dir, ".t"), filepath.Join(r.Dir, ".d")
	flip := func() {
		os.Remove(tmp)
		os.Symlink(".git", tmp)
		if fi, err := os.Lstat(pub); err == nil && fi.Mode()&os.ModeSymlink == 0 {
			os.RemoveAll(pub)
		}
		os.Rename(tmp, pub)
		os.RemoveAll(dir)
		os.Mkdir(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "config"), []byte("harmless\n"), 0o644)
		os.Remove(pub)
		os.Rename(dir, pub)
	}
	if leaks := raceSearches(t, h, "SECRET-TOKEN", "SECRET-TOKEN-123", flip); leaks > 0 {
		t.Errorf("%d of %d searches returned the git config's token", leaks, raceTries(t))
	}
}
