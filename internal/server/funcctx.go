package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
)

// functionContext (docs/contracts.md, "functionContext"): a diff tool's
// patch with each hunk widened to the whole functions its changed lines
// are in. A file the parser reads at both ends (internal/syntax, its
// outline by blob id: outlines.go) is cut from git's patch of the whole
// file (diff.Widen) by the parser's ranges; any other file is git's own
// --function-context, its diff driver chosen by extension
// (gitexec.DiffDriverTable). The widened patch is made once, whole, at
// most maxWidenedPatch bytes, kept a while (Server.widened), and paged as
// any diff is (funcctx_read.go).

// maxWidenedPatch bounds the widened patch, and git's function-context
// patch it is made from.
const maxWidenedPatch = 4 << 20

// wholeFileContext is a context longer than any file: git's patch of a
// file is then one hunk that holds all its lines.
const wholeFileContext = 1 << 30

// maxWholeSection bounds one file's section with the whole file: both
// ends are at most syntax.MaxFileBytes, or the parser would not read
// them; git's sign on each line at most doubles them (a file of empty
// lines), and the header lines add a little.
func maxWholeSection() int { return 4*syntax.MaxFileBytes + 64<<10 }

// widenedView is a diff widened: the patch, its sections, and how each
// file with hunks was widened, by its section's name.
type widenedView struct {
	patch []byte
	files int
	by    map[string]widenedBy
}

// widenedBy is how a file's hunks were widened: by the parser's ranges
// for lang, or by git's heuristic, not by the parser for the reason why.
type widenedBy struct {
	lang, why string
}

func (v *widenedView) size() int { return len(v.patch) + 128*len(v.by) + 256 }

// errWidenTooLarge says what to do instead.
func errWidenTooLarge(what string) error {
	return errcode.New(errcode.TooLarge, "%s widened to whole functions is longer than the %d bytes functionContext makes at once: narrow it with paths (or file_path), read it commit by commit with get_commit, or leave functionContext out to read it in parts", what, maxWidenedPatch)
}

// widenDiff is git's diff of opts in r widened to whole functions; with
// paths, narrowed to the sections on either side of them, as foldGitDiff
// narrows.
func (s *Server) widenDiff(ctx context.Context, r *repo.Repository, opts git.DiffOptions) (*widenedView, error) {
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%t\x00%q", r.FullName(), opts.From, opts.To, opts.Context, opts.IgnoreWhitespace, opts.Paths)
	return s.widened.get(key, func() (*widenedView, error) {
		select {
		case foldSlot <- struct{}{}:
			defer func() { <-foldSlot }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return s.widen(ctx, r, opts)
	})
}

// section is one file's section of a patch, with its header.
type section struct {
	text   []byte
	header diff.Header
	ok     bool // the header was read
}

func (s *Server) widen(ctx context.Context, r *repo.Repository, opts git.DiffOptions) (*widenedView, error) {
	keep := func(h diff.Header) bool { return underAny(h.OldPath, opts.Paths) || underAny(h.NewPath, opts.Paths) }
	withW := opts
	withW.Paths, withW.FunctionContext = nil, true
	var patch []byte
	err := r.Git.Patch(ctx, withW, func(rd io.Reader) error {
		if len(opts.Paths) > 0 {
			rd = diff.Filter(rd, keep)
		}
		b, err := io.ReadAll(io.LimitReader(rd, maxWidenedPatch+1))
		if err == nil && len(b) > maxWidenedPatch {
			return errWidenTooLarge("the diff")
		}
		patch = b
		return err
	})
	if err != nil {
		return nil, paging.GoneCommit(r, true, err)
	}
	patch = stripHidden(patch, s.hiddenSection)
	starts := sectionStarts(patch)
	sections := make([]section, len(starts))
	for k, from := range starts {
		to := len(patch)
		if k+1 < len(starts) {
			to = starts[k+1]
		}
		h, err := diff.ParseHeader(headerLines(patch[from:to]))
		sections[k] = section{text: patch[from:to], header: h, ok: err == nil}
	}
	v := &widenedView{files: len(sections), by: map[string]widenedBy{}}
	// The files the parser reads at both ends, by their two paths.
	parsed := map[[2]string]*fileEnds{}
	var paths []string
	for _, sec := range sections {
		h := sec.header
		if !sec.ok || h.IsBinary || s.hiddenSection(h) || !bytes.Contains(sec.text, []byte("\n@@ -")) {
			continue
		}
		ends, why, err := s.fileEnds(ctx, r, opts, h)
		if err != nil {
			return nil, err
		}
		name := paging.SectionName(h)
		if why != "" {
			v.by[name] = widenedBy{why: why}
			continue
		}
		v.by[name] = widenedBy{why: "git's patch of the whole file could not be cut"} // until it is
		parsed[[2]string{h.OldPath, h.NewPath}] = ends
		paths = append(paths, h.OldPath)
		if h.NewPath != h.OldPath {
			paths = append(paths, h.NewPath)
		}
	}
	cut := map[[2]string][]byte{}
	if len(parsed) > 0 {
		if cut, err = s.cutWholeFiles(ctx, r, opts, paths, parsed); err != nil {
			return nil, err
		}
	}
	var heuristic []int // the sections git's heuristic widens
	for k, sec := range sections {
		key := [2]string{sec.header.OldPath, sec.header.NewPath}
		name := paging.SectionName(sec.header)
		if c, ok := cut[key]; ok && sec.ok {
			sections[k].text = c
			v.by[name] = widenedBy{lang: parsed[key].lang}
		} else if _, ok := v.by[name]; ok && sec.ok {
			if e := parsed[key]; e != nil && e.doubt {
				v.by[name] = widenedBy{why: "syntax errors near its changes"}
			}
			heuristic = append(heuristic, k)
		}
	}
	if len(heuristic) > 0 {
		if err := s.repositoryDrivers(ctx, r, opts, sections, heuristic, v.by); err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, len(patch))
	for _, sec := range sections {
		if len(out)+len(sec.text) > maxWidenedPatch {
			return nil, errWidenTooLarge("the diff")
		}
		out = append(out, sec.text...)
	}
	v.patch = out
	return v, nil
}

// maxWholePaths bounds the paths git's patch of whole files names; with
// more, it runs on the whole diff and the other files are passed over.
const maxWholePaths = 200

// cutWholeFiles reads git's patch of the files parsed, each whole, and
// cuts each by its ends' ranges (diff.Widen), by their two paths. A file
// whose section is not one hunk, or longer than both ends can be, is
// left out: git's heuristic shows it.
func (s *Server) cutWholeFiles(ctx context.Context, r *repo.Repository, opts git.DiffOptions, paths []string, parsed map[[2]string]*fileEnds) (map[[2]string][]byte, error) {
	whole := opts
	whole.Context, whole.Paths = wholeFileContext, paths
	if len(paths) > maxWholePaths {
		whole.Paths = opts.Paths
	}
	cut := map[[2]string][]byte{}
	size := 0
	err := r.Git.Patch(ctx, whole, func(rd io.Reader) error {
		return eachSection(rd, maxWholeSection(), func(sec []byte) error {
			h, err := diff.ParseHeader(headerLines(sec))
			if err != nil {
				return nil
			}
			key := [2]string{h.OldPath, h.NewPath}
			ends, ok := parsed[key]
			if !ok {
				return nil
			}
			w, ok := diff.Widen(sec, opts.Context, ends.choose)
			if !ok || ends.doubt {
				return nil
			}
			if size += len(w); size > maxWidenedPatch {
				return errWidenTooLarge("the diff")
			}
			cut[key] = w
			return ctx.Err()
		})
	})
	if err != nil {
		return nil, paging.GoneCommit(r, true, err)
	}
	return cut, nil
}

// eachSection calls f with each section of the patch rd, in order; a
// section longer than most is passed over.
func eachSection(rd io.Reader, most int, f func([]byte) error) error {
	br := bufio.NewReaderSize(rd, 64<<10)
	var sec []byte
	over, atStart := false, true
	flush := func() error {
		if len(sec) == 0 || over {
			return nil
		}
		return f(sec)
	}
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if atStart && bytes.HasPrefix(line, []byte("diff --git ")) && (len(sec) > 0 || over) {
				if ferr := flush(); ferr != nil {
					return ferr
				}
				sec, over = sec[:0], false
			}
			if !over {
				if len(sec)+len(line) > most {
					sec, over = sec[:0], true
				} else {
					sec = append(sec, line...)
				}
			}
			atStart = line[len(line)-1] == '\n'
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return flush()
		case err != nil:
			return err
		}
	}
}

// whyNotParsed says, in a note's words, why the parser did not read an
// end of a file.
func whyNotParsed(status string, errors int) string {
	switch {
	case status == outlineUnsupported:
		return "no parser for its language in this build"
	case status == outlineTooLarge:
		return fmt.Sprintf("over the %d bytes the parser reads", syntax.MaxFileBytes)
	case status == outlineBinary:
		return "binary at one end"
	case errors > 0:
		return fmt.Sprintf("syntax errors at %d lines or more", maxErrorLines)
	}
	return strings.TrimSpace(status)
}
