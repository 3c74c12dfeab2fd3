package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/fold"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// collapseRepeated (docs/contracts.md, "Repeated changes folded"): a diff
// tool's patch folded by internal/fold, its patterns, git's diff of the
// rest, then the sites. The fold needs the whole patch at once, and
// allocates 6 to 50 times its size (prometheus 4679, 2.3 MB, 5.7 times;
// 1054's short lines, 52): it reads at most maxFoldedPatch bytes of it,
// and at most foldSlots folds run at once, so that what folds hold stays
// bounded whatever the repository. The folded text is kept a while
// (viewCache), so that its parts, and their count, fold it once.

// maxFoldedPatch bounds the patch a fold holds, foldSlots the folds that
// run at once.
const (
	maxFoldedPatch = 4 << 20
	foldSlots      = 2
)

// foldSlot holds one of the foldSlots while a fold runs.
var foldSlot = make(chan struct{}, foldSlots)

// foldedView is a diff folded: head is the folded text up to and with the
// line that starts git's diff of the rest, rest is that diff, tail the
// sites from the line that ends it.
type foldedView struct {
	head, rest, tail []byte
	view             *fold.View
	// patchBytes is the whole patch's, as git printed it; files its
	// sections; restFiles the rest's, as the pager numbers them.
	patchBytes int64
	files      int
	restFiles  int
}

// size is what a view holds in memory, for the cache's bound.
func (v *foldedView) size() int { return len(v.head) + len(v.rest) + len(v.tail) + 256 }

// Where a part of a folded view starts: in its patterns, its rest or its
// sites.
const (
	zoneHead = iota
	zoneRest
	zoneTail
)

// locate reads a cursor's Folded: a byte offset in the head, len(head) for
// the rest (where the cursor's other fields say), or past it for the
// tail, at folded-len(head)-1; ok false for an offset that is none of
// these or not at a character's start.
func (v *foldedView) locate(folded int) (zone, at int, ok bool) {
	switch {
	case folded < 0:
		return 0, 0, false
	case folded < len(v.head):
		return zoneHead, folded, utf8.RuneStart(v.head[folded])
	case folded == len(v.head):
		return zoneRest, 0, true
	}
	at = folded - len(v.head) - 1
	return zoneTail, at, at < len(v.tail) && utf8.RuneStart(v.tail[at])
}

// bytes is the folded text's size.
func (v *foldedView) bytes() int { return len(v.head) + len(v.rest) + len(v.tail) }

// errFoldTooLarge says what to do instead.
func errFoldTooLarge(what string) error {
	return errcode.New(errcode.TooLarge, "%s is longer than the %d bytes collapseRepeated folds at once: leave collapseRepeated out to read it in parts, or narrow it with paths, or read it commit by commit with get_commit", what, maxFoldedPatch)
}

// foldPatch folds git's patch, its hidden files' sections (hide) cut to
// their header lines so that no line of them is in a pattern, a site or
// the rest.
func foldPatch(patch []byte, hide func(diff.Header) bool) (*foldedView, error) {
	kept := stripHidden(patch, hide)
	v, err := fold.Fold(kept, fold.Options{})
	if err != nil {
		// A patch that is not git's plain output, or a fold that does
		// not rebuild it (ErrCheck: a bug), is not shown folded at all.
		return nil, errcode.New(errcode.Unavailable, "the diff could not be folded (%v): leave collapseRepeated out to read it as git prints it", err)
	}
	fv := &foldedView{view: v, patchBytes: int64(len(patch))}
	at := bytes.Index(v.Text, []byte("\n"+fold.Separator)) + 1 + len(fold.Separator)
	end := bytes.LastIndex(v.Text, []byte("\n"+fold.SitesSeparator)) + 1
	if at <= len(fold.Separator) || end < at {
		return nil, fold.ErrCheck
	}
	fv.head, fv.rest, fv.tail = v.Text[:at], v.Text[at:end], v.Text[end:]
	fv.files = len(sectionStarts(kept))
	if len(fv.rest) > 0 {
		total, err := diff.Count(bytes.NewReader(fv.rest), hide, nil)
		if err != nil {
			return nil, fmt.Errorf("the rest of a folded diff: %w", err)
		}
		fv.restFiles = total.Files
	}
	return fv, nil
}

// readPatch reads all of a patch, or fails with errFoldTooLarge.
func readPatch(rd io.Reader, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(rd, maxFoldedPatch+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFoldedPatch {
		return nil, errFoldTooLarge(what)
	}
	return b, nil
}

// sectionStarts are the offsets of patch's "diff --git " lines.
func sectionStarts(patch []byte) []int {
	var at []int
	for i := 0; i < len(patch); {
		if bytes.HasPrefix(patch[i:], []byte("diff --git ")) {
			at = append(at, i)
		}
		j := bytes.IndexByte(patch[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return at
}

// stripHidden is patch with each hidden section cut to its header lines
// but "---" and "+++" (a section as git writes a mode change): the pager
// still lists the file as hidden, and nothing of its lines is folded.
func stripHidden(patch []byte, hide func(diff.Header) bool) []byte {
	starts := sectionStarts(patch)
	if hide == nil || len(starts) == 0 {
		return patch
	}
	var out []byte
	copied := 0
	for k, from := range starts {
		to := len(patch)
		if k+1 < len(starts) {
			to = starts[k+1]
		}
		lines := headerLines(patch[from:to])
		h, err := diff.ParseHeader(lines)
		if err == nil && !hide(h) {
			continue
		}
		// Hidden, or a header that cannot be read: only its header.
		out = append(out, patch[copied:from]...)
		for _, l := range lines {
			if !strings.HasPrefix(l, "--- ") && !strings.HasPrefix(l, "+++ ") && !strings.HasPrefix(l, "Binary files ") && !strings.HasPrefix(l, "GIT binary patch") {
				out = append(out, l...)
			}
		}
		copied = to
	}
	if out == nil {
		return patch
	}
	return append(out, patch[copied:]...)
}

// headerLines are a section's lines up to its first hunk, each with its
// newline.
func headerLines(section []byte) []string {
	var lines []string
	for i := 0; i < len(section); {
		j := bytes.IndexByte(section[i:], '\n')
		end := len(section)
		if j >= 0 {
			end = i + j + 1
		}
		line := string(section[i:end])
		if strings.HasPrefix(line, "@@ ") {
			break
		}
		lines = append(lines, line)
		i = end
	}
	return lines
}

// foldGitDiff is the folded view of git's diff of opts in r; with paths,
// git's whole diff narrowed to the sections on either side of them, as a
// plain diff's parts are (a rename whose one side is under paths stays
// whole).
func (s *Server) foldGitDiff(ctx context.Context, r *repo.Repository, opts git.DiffOptions) (*foldedView, error) {
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%t\x00%q", r.FullName(), opts.From, opts.To, opts.Context, opts.IgnoreWhitespace, opts.Paths)
	return s.folded.get(key, func() (*foldedView, error) {
		select {
		case foldSlot <- struct{}{}:
			defer func() { <-foldSlot }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		whole := opts
		whole.Paths = nil
		var patch []byte
		err := r.Git.Patch(ctx, whole, func(rd io.Reader) error {
			if len(opts.Paths) > 0 {
				rd = diff.Filter(rd, func(h diff.Header) bool { return underAny(h.OldPath, opts.Paths) || underAny(h.NewPath, opts.Paths) })
			}
			var err error
			patch, err = readPatch(rd, "the diff's patch")
			return err
		})
		if err != nil {
			return nil, paging.GoneCommit(r, true, err)
		}
		return foldPatch(patch, s.hiddenSection)
	})
}

// underAny: p is at or under one of paths.
func underAny(p string, paths []string) bool {
	for _, q := range paths {
		if p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}
