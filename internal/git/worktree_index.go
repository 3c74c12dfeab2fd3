package git

// The index as a work-tree search uses it: its regular files with their
// stat data (kept while the index file stays the same), which of them the
// work tree holds as recorded, and the private index a search may run on.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

// Index entry flags, as ls-files --debug prints git's ce_flags.
const (
	ceValid        = 0x8000
	ceIntentToAdd  = 1 << 29
	ceSkipWorktree = 1 << 30
)

// indexEntry is one regular file of the index, as ls-files --debug tells it.
type indexEntry struct {
	mode, oid, path string
	unmerged        bool
	flags           uint64
	st              indexStat
	clean           bool // its blob is what the work tree holds
}

// indexStat is the stat data the index keeps, each field cut to 32 bits
// as git keeps it.
type indexStat struct {
	ctime, mtime             [2]int64 // seconds, nanoseconds
	dev, ino, uid, gid, size uint32
}

// indexCacheBytes bounds the listing kept: a larger index is listed again
// for each search.
const indexCacheBytes = 4 << 20

// indexCache keeps the last listing of the index with the identity of the
// index file it came from. git writes the index to a new file and renames
// it into place, so a new index is a new inode.
type indexCache struct {
	mu      sync.Mutex
	id      indexFileID
	entries []indexEntry
}

// indexFileID is what lstat says of the index file.
type indexFileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime [2]int64
}

func statIndexFile(path string) (indexFileID, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return indexFileID{}, false
	}
	st, ok := statOf(fi)
	if !ok {
		return indexFileID{}, false
	}
	return indexFileID{st.dev, st.ino, fi.Size(), st.mtime, st.ctime}, true
}

// listIndex is readIndex, kept while the index file stays the same: a
// search then starts no git process but grep. Each caller gets its own
// copy (markClean writes to it).
func (r *Repo) listIndex(ctx context.Context) ([]indexEntry, error) {
	id, ok := statIndexFile(filepath.Join(r.gitDir, "index"))
	c := &r.index
	c.mu.Lock()
	if ok && c.id == id && c.entries != nil {
		entries := slices.Clone(c.entries)
		c.mu.Unlock()
		return entries, nil
	}
	c.mu.Unlock()
	entries, err := r.readIndex(ctx)
	if err != nil || !ok {
		return entries, err
	}
	if after, _ := statIndexFile(filepath.Join(r.gitDir, "index")); after == id && entriesBytes(entries) <= indexCacheBytes {
		c.mu.Lock()
		c.id, c.entries = id, slices.Clone(entries)
		c.mu.Unlock()
	}
	return entries, nil
}

// entriesBytes is what a listing costs in memory: its strings and, for
// each entry, about what the struct takes.
func entriesBytes(entries []indexEntry) int {
	n := 0
	for _, e := range entries {
		n += len(e.path) + len(e.oid) + len(e.mode) + 128
	}
	return n
}

// readIndex lists the regular files of the index with their stat data
// (git ls-files --stage --debug: git reads the index, never the work tree).
// An unmerged path comes once.
func (r *Repo) readIndex(ctx context.Context) ([]indexEntry, error) {
	var entries []indexEntry
	err := r.run.Stream(ctx, gitexec.Command("ls-files", "-z", "--stage", "--debug").InCallersSlot(), func(stdout io.Reader) error {
		br := bufio.NewReaderSize(stdout, 64<<10)
		// Each record is followed by its stat lines, read from br between
		// two records.
		z := newNulRecords(ctx, br, grepPathMax+128, checkEvery)
		var line []byte
		for {
			rec, cut, err := z.next()
			switch {
			case err == io.EOF:
				return nil
			case err != nil && ctx.Err() != nil:
				return context.Cause(ctx)
			case err != nil:
				return grepOutputError(err)
			}
			// "MODE OID STAGE\tPATH", then five lines of stat data.
			head, path, ok := strings.Cut(string(rec), "\t")
			f := strings.Fields(head)
			if !ok || len(f) != 3 {
				return fmt.Errorf("git ls-files: unexpected record %q", rec)
			}
			e := indexEntry{mode: f[0], oid: f[1], path: path, unmerged: f[2] != "0"}
			var nums []int64
			for range 5 {
				if line, _, err = readField(br, '\n', 256, line); err != nil {
					return grepOutputError(err)
				}
				nums = append(nums, statNumbers(string(line))...)
			}
			if len(nums) != 10 {
				return fmt.Errorf("git ls-files: unexpected stat data for %q", path)
			}
			e.st = indexStat{ctime: [2]int64{nums[0], nums[1]}, mtime: [2]int64{nums[2], nums[3]},
				dev: uint32(nums[4]), ino: uint32(nums[5]), uid: uint32(nums[6]), gid: uint32(nums[7]), size: uint32(nums[8])}
			e.flags = uint64(nums[9])
			if cut || (f[0] != "100644" && f[0] != "100755") {
				continue // not a file git grep reads
			}
			if last := len(entries) - 1; last >= 0 && entries[last].path == path {
				entries[last].unmerged = true // one more stage of it
				continue
			}
			entries = append(entries, e)
		}
	})
	return entries, err
}

// statNumbers reads the numbers of one stat line of ls-files --debug
// ("  ctime: S:N", "  dev: D\tino: I", "  size: S\tflags: F", the flags in
// hex).
func statNumbers(line string) []int64 {
	var out []int64
	for _, field := range strings.Split(strings.TrimSpace(line), "\t") {
		name, value, _ := strings.Cut(field, ": ")
		base := 10
		if name == "flags" {
			base = 16
		}
		for _, v := range strings.Split(value, ":") {
			n, err := strconv.ParseInt(v, base, 64)
			if err != nil {
				return nil
			}
			out = append(out, n)
		}
	}
	return out
}

// statWorkers is how many lstat calls run at once: over 20,000 files they
// cost about what git ls-files does.
const statWorkers = 4

// markClean finds the entries whose work-tree file is the one the index
// recorded: same stat data (as git compares it, all fields), and written
// before the index was (else git itself would compare the contents: a
// "racily clean" file). A file it cannot tell is taken as changed: the
// search then reads it itself, which is never wrong.
func (r *Repo) markClean(ctx context.Context, entries []indexEntry) error {
	var indexTime [2]int64
	if fi, err := os.Lstat(filepath.Join(r.gitDir, "index")); err == nil {
		if st, ok := statOf(fi); ok {
			indexTime = st.mtime
		}
	}
	work := make(chan int, 1024)
	var wg sync.WaitGroup
	for range statWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				e := &entries[i]
				if e.flags&(ceValid|ceSkipWorktree) != 0 {
					e.clean = !e.unmerged && e.flags&ceIntentToAdd == 0
					continue
				}
				if e.unmerged || e.flags&ceIntentToAdd != 0 {
					continue
				}
				fi, err := os.Lstat(filepath.Join(r.workTree, filepath.FromSlash(e.path)))
				e.clean = err == nil && sameStat(fi, e, indexTime)
			}
		}()
	}
	var err error
	for i := range entries {
		if i%checkEvery == checkEvery-1 && ctx.Err() != nil {
			err = context.Cause(ctx)
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	return err
}

// sameStat reports whether fi is what the index recorded for e, and not
// racily so.
func sameStat(fi os.FileInfo, e *indexEntry, indexTime [2]int64) bool {
	st, ok := statOf(fi)
	if !ok || !fi.Mode().IsRegular() || (fi.Mode()&0o100 != 0) != (e.mode == "100755") {
		return false
	}
	mtime := st.mtime
	racy := mtime[0] > indexTime[0] || (mtime[0] == indexTime[0] && mtime[1] >= indexTime[1])
	return !racy && mtime == e.st.mtime && st.ctime == e.st.ctime &&
		uint32(st.dev) == e.st.dev && uint32(st.ino) == e.st.ino && st.uid == e.st.uid && st.gid == e.st.gid &&
		uint32(fi.Size()) == e.st.size && fi.Size() <= 1<<32-1
}

// writeIndex writes a private index at path naming the entries' blobs,
// the clean ones assume-unchanged (git grep then reads their blobs, and
// the work tree for the rest). Only the private directory is written.
func (r *Repo) writeIndex(ctx context.Context, path string, entries []indexEntry) error {
	var info, clean bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&info, "%s %s 0\t%s\x00", e.mode, e.oid, e.path)
		if e.clean {
			clean.WriteString(e.path + "\x00")
		}
	}
	if err := r.feed(ctx, gitexec.Command("update-index", "-z", "--index-info").PrivateIndex(path).InCallersSlot(), info.Bytes()); err != nil {
		return err
	}
	if clean.Len() == 0 {
		return nil
	}
	return r.feed(ctx, gitexec.Command("update-index", "--assume-unchanged", "-z", "--stdin").PrivateIndex(path).InCallersSlot(), clean.Bytes())
}

// feed runs a command with input on its stdin, to its end.
func (r *Repo) feed(ctx context.Context, c *gitexec.Cmd, input []byte) error {
	p, err := r.run.Start(ctx, ctx, c, true)
	if err != nil {
		return err
	}
	go func() {
		_, _ = p.Stdin.Write(input) // a write that fails is git gone: wait says why
		p.Stdin.Close()
	}()
	_, _ = io.Copy(io.Discard, p.Stdout)
	if err := p.Wait(); err != nil {
		if ctxErr := context.Cause(ctx); ctxErr != nil {
			return ctxErr
		}
		return fmt.Errorf("git %s: %v: %s", c.Sub(), err, strings.TrimSpace(p.Stderr()))
	}
	return nil
}
