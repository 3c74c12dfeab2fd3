package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/globs"
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
func (r *Repo) grepWorkTree(ctx context.Context, c *gitexec.Cmd, o GrepOptions) (large []string, _ *SearchedFiles, err error) {
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
		if s.dir, err = r.env.TempDir(); err != nil {
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
		c.Flags("--cached")
		return large, s, nil
	}
	index := filepath.Join(s.dir, "index")
	if err := r.writeIndex(ctx, index, entries); err != nil {
		s.Close()
		return nil, nil, err
	}
	c.OnPrivateCopy(index, filepath.Join(s.dir, "tree"))
	return large, s, nil
}

// copyChanged copies the changed files the search would read (selected by
// the globs, not excluded) into s.dir/tree, each read through a checked
// handle (checkedRead). A copy that hashes to the file's blob in the index
// (a file only touched, or racily clean) is dropped and the file marked
// clean. It returns the paths not copied for being over MaxFileBytes, and
// whether a file the search reads differs from its blob (or could not be
// read, and must not be searched as its blob either).
func (r *Repo) copyChanged(ctx context.Context, s *SearchedFiles, changed []*indexEntry, o GrepOptions) (large []string, differ bool, err error) {
	include, exclude := globs.Compile(globs.TranslateAll(o.Globs), false), globs.Compile(o.Exclude, true)
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
