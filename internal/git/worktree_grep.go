package git

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// A work-tree search never lets git read the work tree by name: git would
// follow a directory swapped for a symlink, or read a file swapped for a
// hard link to one outside, between any check of the path and its read.
// What it searches instead, for each regular file of the index:
//
//   - a file whose work-tree stat is the one the index recorded (and not
//     racily so), or that the index marks assume-unchanged or
//     skip-worktree: its blob in the index, content git has already
//     hashed, which is what the file holds;
//   - any other (modified, unmerged, intent-to-add): the server opens it
//     itself, one name at a time without following any symlink, checks the
//     open file (a regular file with one link, not in the git directory,
//     not hidden, under the size limit) and copies what it read into a
//     private directory; git searches the copy there, or the blob when
//     the copy hashes to it. A file that fails a check is not searched.
//
// git grep runs on the index (--cached) when no file it reads differs from
// its blob, else on a private index naming the same blobs, the clean ones
// assume-unchanged, with the private directory as its work tree: one
// search, in git's order.

// Index entry flags, as ls-files --debug prints git's ce_flags.
const (
	ceValid        = 0x8000
	ceIntentToAdd  = 1 << 29
	ceSkipWorktree = 1 << 30
)

// searchesDir is the directory of the private home that holds each
// work-tree search's copies while it runs.
const searchesDir = "searches"

// maxWorkTreeCopy bounds the bytes of modified files one search copies.
const maxWorkTreeCopy = 256 << 20

// WorkTreeChangedError: the work tree's modified files are more than one
// search copies.
type WorkTreeChangedError struct {
	Files int
	Bytes int64
}

func (e *WorkTreeChangedError) Error() string {
	return fmt.Sprintf("%d files of the work tree differ from the index, over %d bytes", e.Files, e.Bytes)
}

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

// SearchedFiles is what a work-tree search read: context lines come from
// the same content the matches came from. Close removes the copies.
type SearchedFiles struct {
	r      *Repo
	dir    string            // private directory ("" when nothing was copied)
	blobs  map[string]string // path → blob id, for files searched in the index
	copied map[string]bool   // paths searched as copies in dir/tree
}

// Read hands read the content of path as the search saw it.
func (s *SearchedFiles) Read(ctx context.Context, path string, read func(io.Reader) error) error {
	if s.copied[path] {
		f, err := os.Open(filepath.Join(s.dir, "tree", filepath.FromSlash(path)))
		if err != nil {
			return err
		}
		defer f.Close()
		return read(f)
	}
	oid, ok := s.blobs[path]
	if !ok {
		return fmt.Errorf("%q was not searched", path)
	}
	return s.r.ReadObject(ctx, oid, func(_ Object, body io.Reader) error { return read(body) })
}

// Close removes the private copies.
func (s *SearchedFiles) Close() {
	if s != nil && s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// grepWorkTree prepares a work-tree search: it lists the index, finds the
// clean files, copies the others it would search, and sets c to run on
// what it made: the index itself (--cached) when no file it reads differs
// from its blob, else a private index. It returns the large files (for
// grepSkips) and what was searched.
func (r *Repo) grepWorkTree(ctx context.Context, c *command, o GrepOptions) (large []string, _ *SearchedFiles, err error) {
	if r.workTree == "" {
		return nil, nil, errors.New("git: a bare repository has no work tree to search")
	}
	entries, err := r.listIndex(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := r.markClean(ctx, entries); err != nil {
		return nil, nil, err
	}
	s := &SearchedFiles{r: r, blobs: map[string]string{}, copied: map[string]bool{}}
	var changed []*indexEntry
	for i := range entries {
		e := &entries[i]
		switch {
		case e.clean:
			s.blobs[e.path] = e.oid
			if o.MaxFileBytes > 0 && int64(e.st.size) > o.MaxFileBytes {
				large = append(large, e.path)
			}
		case e.flags&(ceValid|ceSkipWorktree) == 0:
			changed = append(changed, e)
		}
	}
	differ := false
	if len(changed) > 0 {
		if s.dir, err = os.MkdirTemp(filepath.Join(r.env.dir, searchesDir), ""); err != nil {
			return nil, nil, err
		}
		var changedLarge []string
		if changedLarge, differ, err = r.copyChanged(ctx, s, changed, o); err != nil {
			s.Close()
			return nil, nil, err
		}
		large = append(large, changedLarge...)
	}
	if !differ {
		// Every file the search reads is in the index as it is.
		c.flags("--cached")
		return large, s, nil
	}
	index := filepath.Join(s.dir, "index")
	if err := r.writeIndex(ctx, index, entries); err != nil {
		s.Close()
		return nil, nil, err
	}
	c.env = append(c.env, "GIT_INDEX_FILE="+index)
	c.privateTree = filepath.Join(s.dir, "tree")
	return large, s, nil
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
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return indexFileID{}, false
	}
	return indexFileID{uint64(st.Dev), st.Ino, st.Size, [2]int64{st.Mtim.Sec, st.Mtim.Nsec}, [2]int64{st.Ctim.Sec, st.Ctim.Nsec}}, true
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
	err := r.stream(ctx, gitCommand("ls-files", "-z", "--stage", "--debug").inCallersSlot(), func(stdout io.Reader) error {
		br := bufio.NewReaderSize(stdout, 64<<10)
		var rec, line []byte
		for n := 0; ; n++ {
			if n%checkEvery == checkEvery-1 && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			var cut bool
			var err error
			rec, cut, err = readField(br, 0, grepPathMax+128, rec)
			if err == io.EOF && len(rec) == 0 {
				return nil
			}
			if err != nil {
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
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			indexTime = [2]int64{st.Mtim.Sec, st.Mtim.Nsec}
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
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() || (fi.Mode()&0o100 != 0) != (e.mode == "100755") {
		return false
	}
	mtime := [2]int64{st.Mtim.Sec, st.Mtim.Nsec}
	racy := mtime[0] > indexTime[0] || (mtime[0] == indexTime[0] && mtime[1] >= indexTime[1])
	return !racy && mtime == e.st.mtime && [2]int64{st.Ctim.Sec, st.Ctim.Nsec} == e.st.ctime &&
		uint32(st.Dev) == e.st.dev && uint32(st.Ino) == e.st.ino && st.Uid == e.st.uid && st.Gid == e.st.gid &&
		uint32(st.Size) == e.st.size && st.Size <= 1<<32-1
}

// copyChanged copies the changed files the search would read (selected by
// the globs, not excluded) into s.dir/tree, each read through a checked
// handle (checkedRead). A copy that hashes to the file's blob in the index
// (a file only touched, or racily clean) is dropped and the file marked
// clean. It returns the paths not copied for being over MaxFileBytes, and
// whether a file the search reads differs from its blob (or could not be
// read, and must not be searched as its blob either).
func (r *Repo) copyChanged(ctx context.Context, s *SearchedFiles, changed []*indexEntry, o GrepOptions) (large []string, differ bool, err error) {
	include, exclude := globMatcher(TranslateGlobs(o.Globs), false), globMatcher(o.Exclude, true)
	store := r.storeInWorkTree()
	storeIDs := r.storeIDs(store)
	wt, err := os.Open(r.workTree)
	if err != nil {
		return nil, false, err
	}
	defer wt.Close()
	if err := os.Mkdir(filepath.Join(s.dir, "tree"), 0o700); err != nil {
		return nil, false, err
	}
	dst, err := os.OpenRoot(filepath.Join(s.dir, "tree"))
	if err != nil {
		return nil, false, err
	}
	defer dst.Close()
	var total int64
	for i, e := range changed {
		if i%64 == 63 && ctx.Err() != nil {
			return nil, false, context.Cause(ctx)
		}
		if (exclude != nil && exclude.MatchString(e.path)) || (include != nil && !include.MatchString(e.path)) ||
			slicesAnyWithin(store, e.path) || (o.Hidden != nil && o.Hidden(e.path)) {
			continue // never searched
		}
		n, id, err := copyChecked(wt, storeIDs, dst, e.path, o.MaxFileBytes, len(e.oid))
		switch {
		case errors.Is(err, errTooLarge):
			large = append(large, e.path) // skipped either way
		case err != nil:
			// Not a file the search may read (a symlink on the way, a
			// hard link, gone): not searched, as git skips what it
			// cannot read.
			differ = true
		case id == e.oid && !e.unmerged && e.flags&ceIntentToAdd == 0:
			e.clean = true
			s.blobs[e.path] = e.oid
			_ = dst.Remove(filepath.FromSlash(e.path)) // a copy not needed; the directory goes at Close
		default:
			s.copied[e.path], differ = true, true
			if total += n; total > maxWorkTreeCopy {
				return nil, false, &WorkTreeChangedError{Files: len(changed), Bytes: maxWorkTreeCopy}
			}
		}
	}
	return large, differ, nil
}

// storeInWorkTree lists the repository's directories that lie inside its
// work tree, as paths relative to it.
func (r *Repo) storeInWorkTree() []string {
	st, err := r.storeLayout()
	dirs := []string{r.gitDir}
	if err == nil {
		dirs = st.Dirs()
	}
	var in []string
	for _, d := range dirs {
		if Within(r.workTree, d) && d != r.workTree {
			if rel, err := filepath.Rel(r.workTree, d); err == nil {
				in = append(in, filepath.ToSlash(rel))
			}
		}
	}
	return in
}

// slicesAnyWithin reports whether path is one of dirs or below one.
func slicesAnyWithin(dirs []string, path string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

var errTooLarge = errors.New("over the size limit")

// inodeID is a file's identity: its device and inode.
type inodeID struct{ dev, ino uint64 }

func idOf(st *unix.Stat_t) inodeID { return inodeID{uint64(st.Dev), st.Ino} }

// storeIDs are the identities of the repository's directories that lie
// inside the work tree: a directory renamed onto the path of a tracked
// directory is still the git directory.
func (r *Repo) storeIDs(inTree []string) map[inodeID]bool {
	ids := map[inodeID]bool{}
	for _, rel := range inTree {
		var st unix.Stat_t
		if unix.Stat(filepath.Join(r.workTree, filepath.FromSlash(rel)), &st) == nil {
			ids[idOf(&st)] = true
		}
	}
	return ids
}

// copyChecked copies the work-tree file path (below the directory wt) to
// the same path below dst, through checkedRead. It returns the bytes
// copied and the id git would give them as a blob (hexLen: SHA-1 or
// SHA-256).
func copyChecked(wt *os.File, store map[inodeID]bool, dst *os.Root, path string, max int64, hexLen int) (int64, string, error) {
	if dir := filepath.Dir(filepath.FromSlash(path)); dir != "." {
		if err := dst.MkdirAll(dir, 0o700); err != nil {
			return 0, "", err
		}
	}
	out, err := dst.OpenFile(filepath.FromSlash(path), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, "", err
	}
	var n int64
	var id string
	err = checkedRead(wt, store, path, max, func(f *os.File, size int64) error {
		h := sha1.New() //nolint:gosec // G401: git's object id, not a secret's hash
		if hexLen == 64 {
			h = sha256.New()
		}
		fmt.Fprintf(h, "blob %d\x00", size)
		src := io.Reader(f)
		if max > 0 {
			src = io.LimitReader(f, max+1)
		}
		var err error
		n, err = io.Copy(io.MultiWriter(out, h), src)
		switch {
		case err == nil && max > 0 && n > max:
			err = errTooLarge // it grew since
		case err == nil && n == size:
			id = hex.EncodeToString(h.Sum(nil))
		}
		return err
	})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = dst.Remove(filepath.FromSlash(path)) // a partial copy; the directory goes at Close
	}
	return n, id, err
}

// checkedRead hands read the work-tree file path, opened below the
// directory wt one name at a time with O_NOFOLLOW (a symlink anywhere on
// the way fails the open; no directory on the way may be the git
// directory, whatever its name). What read read counts only if the file
// was, before and after, a regular file of at most max bytes (0: no limit)
// with one link, and that link its name in the directory opened: a file
// that is, or was while it was read, a hard link to one outside the
// repository fails, as does one renamed away meanwhile.
func checkedRead(wt *os.File, store map[inodeID]bool, path string, max int64, read func(f *os.File, size int64) error) error {
	names := strings.Split(path, "/")
	parent, err := unix.Dup(int(wt.Fd()))
	if err != nil {
		return err
	}
	defer func() { unix.Close(parent) }()
	for _, name := range names[:len(names)-1] {
		if !cleanName(name) {
			return fmt.Errorf("%q is not a clean path", path)
		}
		next, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return &os.PathError{Op: "open", Path: path, Err: err}
		}
		unix.Close(parent)
		parent = next
		var st unix.Stat_t
		if err := unix.Fstat(parent, &st); err != nil {
			return err
		}
		if store[idOf(&st)] {
			return fmt.Errorf("%q is in the git directory", path)
		}
	}
	last := names[len(names)-1]
	if !cleanName(last) {
		return fmt.Errorf("%q is not a clean path", path)
	}
	fd, err := unix.Openat(parent, last, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var size int64
	check := func() error {
		var st, named unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		size = st.Size
		if err := unix.Fstatat(parent, last, &named, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		switch {
		case st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 || idOf(&st) != idOf(&named):
			return fmt.Errorf("%q is not a file with one name", path)
		case max > 0 && st.Size > max:
			return errTooLarge
		}
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	if err := read(f, size); err != nil {
		return err
	}
	return check()
}

func cleanName(name string) bool { return name != "" && name != "." && name != ".." }

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
	env := "GIT_INDEX_FILE=" + path
	if err := r.feed(ctx, gitCommand("update-index", "-z", "--index-info").privateIndex(env).inCallersSlot(), info.Bytes()); err != nil {
		return err
	}
	if clean.Len() == 0 {
		return nil
	}
	return r.feed(ctx, gitCommand("update-index", "--assume-unchanged", "-z", "--stdin").privateIndex(env).inCallersSlot(), clean.Bytes())
}

// feed runs a command with input on its stdin, to its end.
func (r *Repo) feed(ctx context.Context, c *command, input []byte) error {
	p, err := r.start(ctx, ctx, c, true)
	if err != nil {
		return err
	}
	go func() {
		_, _ = p.stdin.Write(input) // a write that fails is git gone: wait says why
		p.stdin.Close()
	}()
	_, _ = io.Copy(io.Discard, p.stdout)
	if err := p.wait(); err != nil {
		if ctxErr := context.Cause(ctx); ctxErr != nil {
			return ctxErr
		}
		return fmt.Errorf("git %s: %v: %s", c.sub(), err, strings.TrimSpace(p.stderr.String()))
	}
	return nil
}
