package server

import (
	"container/list"
	"context"
	"errors"
	"io"
	"sync"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// A file's outline at a ref: its blob read through the object reader and
// parsed by internal/syntax, the only package that parses. Outlines are
// kept by blob id (a blob never changes), within outlineCacheBytes, each
// charged what it holds.

// What a file read for parsing turned out to be, besides parsed.
const (
	outlineComplete    = "complete"
	outlineUnsupported = "unsupported"
	outlineTooLarge    = "tooLarge"
	outlineBinary      = "binary"
)

// outline is a file's outline at commit, or why there is none (status,
// with a nil File).
type outline struct {
	File   *syntax.File
	Status string
	Size   int64 // the blob's bytes
}

// outlineOf parses path at commit (refName: as the caller named it, for
// its errors).
func (s *Server) outlineOf(ctx context.Context, r *repo.Repository, commit, refName, path string) (outline, error) {
	lang, ok := syntax.LanguageOf(path)
	var out outline
	err := r.ReadAt(ctx, commit, refName, path, func(blob git.Object, body io.Reader) error {
		out.Size = blob.Size
		switch {
		case !ok:
			out.Status = outlineUnsupported
			return nil
		case blob.Size > int64(syntax.MaxFileBytes):
			out.Status = outlineTooLarge
			return nil
		}
		if f, ok := s.outlines.get(blob.OID, lang); ok {
			out.File, out.Status = f, outlineComplete
			return nil
		}
		src, err := io.ReadAll(io.LimitReader(body, int64(syntax.MaxFileBytes)+1))
		if err != nil {
			return err
		}
		if text.IsBinary(src[:min(len(src), text.SniffLen)]) {
			out.Status = outlineBinary
			return nil
		}
		f, err := syntax.Outline(ctx, path, src)
		switch {
		case errors.Is(err, syntax.ErrTooLarge):
			out.Status = outlineTooLarge
			return nil
		case err != nil:
			return err
		}
		s.outlines.put(blob.OID, lang, f)
		out.File, out.Status = f, outlineComplete
		return nil
	})
	return out, err
}

// outlineCacheBytes bounds the outlines kept, for all repositories.
const outlineCacheBytes = 16 << 20

// outlineCache keeps outlines by blob id and language, the least recently
// used dropped first.
type outlineCache struct {
	mu    sync.Mutex
	bytes int
	items map[outlineKey]*list.Element
	order list.List // of *keptOutline, most recently used first
}

type outlineKey struct{ oid, lang string }

type keptOutline struct {
	key  outlineKey
	file *syntax.File
	cost int
}

func (c *outlineCache) get(oid, lang string) (*syntax.File, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[outlineKey{oid, lang}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*keptOutline).file, true
}

func (c *outlineCache) put(oid, lang string, f *syntax.File) {
	k := outlineKey{oid, lang}
	cost := len(oid) + len(lang) + 128 + 8*len(f.ErrorLines)
	for _, s := range f.Symbols {
		cost += len(s.Name) + len(s.Kind) + len(s.Container) + 96
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[outlineKey]*list.Element{}
	}
	if _, ok := c.items[k]; ok || cost > outlineCacheBytes/4 {
		return
	}
	c.items[k] = c.order.PushFront(&keptOutline{k, f, cost})
	c.bytes += cost
	for c.bytes > outlineCacheBytes {
		o := c.order.Remove(c.order.Back()).(*keptOutline)
		delete(c.items, o.key)
		c.bytes -= o.cost
	}
}
