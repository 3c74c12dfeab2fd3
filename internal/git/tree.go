package git

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Entry is one entry of a tree object.
type Entry struct {
	Name string
	Mode uint32
	OID  string
}

// Kinds of tree entries, named as Gitea's contents API names them.
const (
	KindFile      = "file"
	KindDir       = "dir"
	KindSymlink   = "symlink"
	KindSubmodule = "submodule"
)

// Kind classifies the entry by its mode.
func (e Entry) Kind() string {
	switch e.Mode & 0o170000 {
	case 0o040000:
		return KindDir
	case 0o120000:
		return KindSymlink
	case 0o160000:
		return KindSubmodule
	default:
		return KindFile
	}
}

// maxTreeSize bounds a tree object read whole (a tree of ~300,000 entries).
const maxTreeSize = 16 << 20

// ReadTree lists the tree object oid, in git's order.
func (r *Repo) ReadTree(ctx context.Context, oid string) ([]Entry, error) {
	var entries []Entry
	err := r.ReadObject(ctx, oid, func(o Object, body io.Reader) error {
		if o.Type != "tree" {
			return fmt.Errorf("object %s is a %s, not a tree", oid, o.Type)
		}
		if o.Size > maxTreeSize {
			return fmt.Errorf("tree %s is too large (%d bytes)", oid, o.Size)
		}
		data, err := io.ReadAll(body)
		if err != nil {
			return err
		}
		entries, err = parseTree(data, len(o.OID)/2)
		return err
	})
	return entries, err
}

// parseTree decodes "<octal mode> <name>\0<raw oid>" records.
func parseTree(data []byte, hashLen int) ([]Entry, error) {
	var entries []Entry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+hashLen {
			return nil, errors.New("malformed tree object")
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, errors.New("malformed tree mode")
		}
		entries = append(entries, Entry{
			Name: string(data[sp+1 : nul]),
			Mode: uint32(mode),
			OID:  hex.EncodeToString(data[nul+1 : nul+1+hashLen]),
		})
		data = data[nul+1+hashLen:]
	}
	return entries, nil
}

// Lookup finds the entry at path (clean, relative, "" for the root tree) in
// commit (a full object id).
func (r *Repo) Lookup(ctx context.Context, commit, path string) (Entry, error) {
	root, err := r.Info(ctx, commit+"^{tree}")
	if err != nil {
		return Entry{}, err
	}
	if path == "" {
		return Entry{Name: "", Mode: 0o040000, OID: root.OID}, nil
	}
	dir, name := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, name = path[:i], path[i+1:]
	}
	parent := root.OID
	if dir != "" {
		if !strings.Contains(dir, "\n") {
			obj, err := r.Info(ctx, commit+":"+dir)
			if err != nil {
				return Entry{}, err
			}
			if obj.Type != "tree" {
				return Entry{}, ErrMissing
			}
			parent = obj.OID
		} else if parent, err = r.walk(ctx, root.OID, dir); err != nil {
			return Entry{}, err
		}
	}
	entries, err := r.ReadTree(ctx, parent)
	if err != nil {
		return Entry{}, err
	}
	for _, e := range entries {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, ErrMissing
}

// walk follows dir one tree at a time, by object id only.
func (r *Repo) walk(ctx context.Context, tree, dir string) (string, error) {
	for _, seg := range strings.Split(dir, "/") {
		entries, err := r.ReadTree(ctx, tree)
		if err != nil {
			return "", err
		}
		found := false
		for _, e := range entries {
			if e.Name == seg && e.Kind() == KindDir {
				tree, found = e.OID, true
				break
			}
		}
		if !found {
			return "", ErrMissing
		}
	}
	return tree, nil
}
