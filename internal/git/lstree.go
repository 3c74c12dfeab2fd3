package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

// TreeEntry is one entry of a ListTree.
type TreeEntry struct {
	Path string // from the root of the commit's tree
	Mode uint32
	Type string // git's object type: "blob" (files and symlinks), "tree", "commit" (a submodule)
	OID  string
	Size int64 // a blob's size in bytes; -1 for trees and submodules
}

// Kind classifies the entry by its mode, as Entry.Kind does: KindFile,
// KindDir, KindSymlink (mode 120000) or KindSubmodule.
func (e TreeEntry) Kind() string { return Entry{Mode: e.Mode}.Kind() }

// ErrNotDir is returned for a directory path that names a file, a symlink
// or a submodule.
var ErrNotDir = errors.New("not a directory")

// maxTreePath caps the length of a path read from git ls-tree (a directory
// 300 levels deep of 200-byte names); a longer one is an error.
const maxTreePath = 64 << 10

// ListTree hands each the entries under dir ("" for the root; clean,
// relative) in commit (a full commit id), in git's order: the directory's
// own entries, or with recursive every file, symlink and submodule below
// it (directories themselves are not listed then). When each returns
// ErrStop, git is stopped and ListTree returns nil. A dir commit does not
// have is ErrMissing; one that is not a directory, ErrNotDir.
//
// dir is looked up in the tree by object id first (Lookup, through the
// cat-file reader) and git ls-tree is given the directory's tree id: a
// submodule's commit, which "commit:dir" would name and ls-tree would list
// as if it were a directory, is told apart, and no path reaches git's
// command line.
func (r *Repo) ListTree(ctx context.Context, commit, dir string, recursive bool, each func(TreeEntry) error) error {
	if !IsObjectID(commit) {
		return fmt.Errorf("git ls-tree: %q is not a full commit id", commit)
	}
	if dir != "" && !isCleanPath(dir) {
		return fmt.Errorf("git ls-tree: path %q is not a clean relative path", dir)
	}
	e, err := r.Lookup(ctx, commit, dir)
	if errors.Is(err, ErrMissing) {
		return fmt.Errorf("%w: no %q in commit %s", ErrMissing, dir, commit)
	}
	if err != nil {
		return err
	}
	if kind := e.Kind(); kind != KindDir {
		return fmt.Errorf("%w: %q is a %s", ErrNotDir, dir, kind)
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	err = r.run.Stream(ctx, lsTreeCommand(e.OID, recursive), func(stdout io.Reader) error {
		return readError(ctx, parseLsTree(ctx, bufio.NewReaderSize(stdout, 64<<10), prefix, each))
	})
	return stopped(err)
}

// lsTreeCommand lists a tree (by id) with each blob's size (-l: read from
// the object's header, not its content). Nothing a repository configures
// changes what ls-tree prints in -z form.
func lsTreeCommand(tree string, recursive bool) *gitexec.Cmd {
	c := gitexec.Command("ls-tree", "-z", "-l", "--full-tree")
	if recursive {
		c.Flags("-r")
	}
	return c.Revs(tree)
}

// parseLsTree reads "MODE TYPE OID SIZE\tNAME\0" records, SIZE padded with
// spaces and "-" for what is not a blob.
func parseLsTree(ctx context.Context, br *bufio.Reader, prefix string, each func(TreeEntry) error) error {
	z := newNulRecords(ctx, br, maxTreePath+256, checkEvery)
	for {
		rec, cut, err := z.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				err = fmt.Errorf("git ls-tree: %w", io.ErrUnexpectedEOF)
			}
			return err
		}
		if cut {
			return fmt.Errorf("git ls-tree: a path over %d bytes", maxTreePath)
		}
		e, err := parseTreeRecord(string(rec))
		if err != nil {
			return err
		}
		e.Path = prefix + e.Path
		if err := each(e); err != nil {
			return err
		}
	}
}

func parseTreeRecord(rec string) (TreeEntry, error) {
	head, path, ok := strings.Cut(rec, "\t")
	f := strings.Fields(head)
	if !ok || len(f) != 4 || path == "" {
		return TreeEntry{}, fmt.Errorf("git ls-tree: unexpected record %q", rec)
	}
	mode, err := strconv.ParseUint(f[0], 8, 32)
	if err != nil {
		return TreeEntry{}, fmt.Errorf("git ls-tree: unexpected record %q", rec)
	}
	e := TreeEntry{Path: path, Mode: uint32(mode), Type: f[1], OID: f[2], Size: -1}
	if f[3] != "-" {
		if e.Size, err = strconv.ParseInt(f[3], 10, 64); err != nil {
			return TreeEntry{}, fmt.Errorf("git ls-tree: unexpected record %q", rec)
		}
	}
	return e, nil
}
