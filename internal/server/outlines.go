package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"

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
	o, _, err := s.parseAt(ctx, r, commit, refName, path, "")
	return o, err
}

// namedIn are the identifiers of a name in a file (syntax.Identifiers),
// each with its line's text (at most text.MaxShownLine bytes of it) and
// the line's length.
type namedIn struct {
	Refs  []syntax.Ref
	Texts []string
	Bytes []int
}

// parseAt is outlineOf, and with name the identifiers of that name too.
// The blob is read, then parsed once its reader is given back: the parse
// holds no git process, so that files are parsed side by side.
func (s *Server) parseAt(ctx context.Context, r *repo.Repository, commit, refName, path, name string) (outline, *namedIn, error) {
	lang, ok := syntax.LanguageOf(path)
	var out outline
	var key outlineKey
	var src []byte
	var kept *parsedBlob
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
		key = outlineKey{blob.OID, lang, name}
		if p, ok := s.outlines.get(key); ok {
			kept = p
			return nil
		}
		var err error
		src, err = io.ReadAll(io.LimitReader(body, int64(syntax.MaxFileBytes)+1))
		return err
	})
	switch {
	case err == nil && kept != nil:
		out.File, out.Status = kept.file, outlineComplete
		return out, kept.named, nil
	case err != nil || src == nil:
		return out, nil, err
	case text.IsBinary(src[:min(len(src), text.SniffLen)]):
		out.Status = outlineBinary
		return out, nil, nil
	}
	var f *syntax.File
	var named *namedIn
	if name == "" {
		f, err = syntax.Outline(ctx, path, src)
	} else {
		var refs []syntax.Ref
		refs, f, err = syntax.Identifiers(ctx, path, src, name)
		if err == nil {
			named = refLines(src, refs)
		}
	}
	switch {
	case errors.Is(err, syntax.ErrTooLarge):
		out.Status = outlineTooLarge
		return out, nil, nil
	case err != nil:
		return out, nil, err
	}
	s.outlines.put(key, &parsedBlob{f, named})
	out.File, out.Status = f, outlineComplete
	return out, named, nil
}

// refLines is refs with their lines' text.
func refLines(src []byte, refs []syntax.Ref) *namedIn {
	n := &namedIn{Refs: refs}
	line, at := 1, 0
	for _, ref := range refs {
		for line < ref.Line {
			i := bytes.IndexByte(src[at:], '\n')
			if i < 0 {
				at = len(src)
				break
			}
			at += i + 1
			line++
		}
		end := bytes.IndexByte(src[at:], '\n')
		if end < 0 {
			end = len(src) - at
		}
		l := strings.TrimSuffix(string(src[at:at+end]), "\r")
		shown, _ := text.CutUTF8(l, text.MaxShownLine)
		n.Texts = append(n.Texts, shown)
		n.Bytes = append(n.Bytes, len(l))
	}
	return n
}

// outlineCacheBytes bounds the outlines kept, for all repositories.
const outlineCacheBytes = 16 << 20

// outlineCache keeps outlines by blob id, language and name.
type outlineCache struct{ lru[outlineKey, *parsedBlob] }

// outlineKey names a parse: a blob as a language, and the name whose
// identifiers were asked for ("" for the outline alone).
type outlineKey struct{ oid, lang, name string }

// parsedBlob is what a parse kept: the outline, and the identifiers of
// the key's name.
type parsedBlob struct {
	file  *syntax.File
	named *namedIn
}

func (c *outlineCache) put(k outlineKey, p *parsedBlob) {
	f := p.file
	cost := len(k.oid) + len(k.lang) + len(k.name) + 128 + 8*len(f.ErrorLines)
	for _, s := range f.Symbols {
		cost += len(s.Name) + len(s.Kind) + len(s.Container) + 96
	}
	if p.named != nil {
		for _, t := range p.named.Texts {
			cost += len(t) + 64
		}
	}
	c.lru.put(k, p, cost, outlineCacheBytes)
}
