package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitattr"
)

// ReadAttrFile reads dir/.gitattributes ("" is the root) in commit, a full
// commit id. No such file is (nil, nil). A symbolic link (git ignores
// in-tree ones since 2.32), a directory or submodule of that name, or a
// file over limit bytes is an error wrapping gitattr.ErrIgnored that says
// which.
func (r *Repo) ReadAttrFile(ctx context.Context, commit, dir string, limit int64) (*gitattr.File, error) {
	p := ".gitattributes"
	if dir != "" {
		p = dir + "/" + p
	}
	if !strings.Contains(p, "\n") {
		// Most directories have none: one round trip says so.
		o, err := r.Info(ctx, commit+":"+p)
		if err != nil {
			return nil, noneIfMissing(err)
		}
		if o.Type == "blob" && o.Size > limit {
			return nil, fmt.Errorf("%w: %q is %d bytes, over the %d-byte limit", gitattr.ErrIgnored, p, o.Size, limit)
		}
	}
	// Only the tree entry tells a symbolic link from a file.
	e, err := r.Lookup(ctx, commit, p)
	if err != nil {
		return nil, noneIfMissing(err)
	}
	if k := e.Kind(); k != KindFile {
		return nil, fmt.Errorf("%w: %q is a %s, not a file", gitattr.ErrIgnored, p, k)
	}
	var data []byte
	err = r.ReadObject(ctx, e.OID, func(o Object, body io.Reader) error {
		if o.Size > limit {
			return fmt.Errorf("%w: %q is %d bytes, over the %d-byte limit", gitattr.ErrIgnored, p, o.Size, limit)
		}
		var err error
		data, err = io.ReadAll(body)
		return err
	})
	if err != nil {
		return nil, err
	}
	return gitattr.Parse(dir, data), nil
}

func noneIfMissing(err error) error {
	if errors.Is(err, ErrMissing) {
		return nil
	}
	return err
}
