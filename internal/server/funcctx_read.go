package server

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// widening reads a diff tool's parts: git's diff as the pager reads it,
// or with functionContext the widened diff (funcctx.go), cut by the same
// pager from the server's bytes; a part's cursor then holds its place in
// the widened diff, which the call's arguments (in the cursor's digest)
// say it pages.
type widening struct {
	s  *Server
	on bool
	// paths, when set, narrow the widened diff in place of the request's
	// (get_pull_request_diff's file_path).
	paths []string
	view  *widenedView
}

func (s *Server) widening(on bool) *widening { return &widening{s: s, on: on} }

// errFunctionContextFolded refuses functionContext with collapseRepeated.
func errFunctionContextFolded() error {
	return errcode.New(errcode.InvalidArgument, "functionContext and collapseRepeated cannot be given together: collapseRepeated folds git's diff, functionContext widens it; leave one out")
}

// read is the part q asks for.
func (w *widening) read(ctx context.Context, q paging.Request) (*paging.Part, error) {
	if !w.on {
		return w.s.diffs.ReadPart(ctx, q)
	}
	if w.view == nil {
		opts := q.Opts
		if w.paths != nil {
			opts.Paths = w.paths
		}
		v, err := w.s.widenDiff(ctx, q.Repo, opts)
		if err != nil {
			return nil, err
		}
		w.view = v
	}
	src, total := w.view.patch, w.view.files
	if q.Only != nil {
		src, total = keptSections(src, q.Only.Keep)
	}
	part, err := paging.ReadStreamPart(bytes.NewReader(src), paging.StreamRequest{Start: q.Start, Split: q.Split, Room: q.Room, Cost: q.Cost, Hide: q.Hide})
	if err != nil {
		return nil, err
	}
	part.Total = total
	for _, f := range part.Page.Files {
		part.Changes = append(part.Changes, changeOf(f.Header))
	}
	if q.CountRest {
		part.Counted = &diff.Total{Files: total, Bytes: int64(len(src))}
	}
	return part, nil
}

// keptSections are the sections of patch that keep keeps, and how many.
func keptSections(patch []byte, keep func(git.Change) bool) ([]byte, int) {
	var out []byte
	n := 0
	starts := sectionStarts(patch)
	for k, from := range starts {
		to := len(patch)
		if k+1 < len(starts) {
			to = starts[k+1]
		}
		h, err := diff.ParseHeader(headerLines(patch[from:to]))
		if err == nil && keep(changeOf(h)) {
			out = append(out, patch[from:to]...)
			n++
		}
	}
	return out, n
}

// changeOf is the change a section's header says.
func changeOf(h diff.Header) git.Change {
	c := git.Change{Status: 'M', OldPath: h.OldPath, Path: h.NewPath}
	switch h.Status {
	case diff.StatusAdded:
		c.Status = 'A'
	case diff.StatusDeleted:
		c.Status = 'D'
	case diff.StatusRenamed:
		c.Status = 'R'
	case diff.StatusCopied:
		c.Status = 'C'
	}
	return c
}

// maxNamedInNote bounds the files a note names by the way they were
// widened.
const maxNamedInNote = 10

// note says how the part's files were widened: by the parser's ranges
// (counted, with their languages) or by git's heuristic (named, with
// why); "" without functionContext.
func (w *widening) note(p *paging.Part) string {
	if !w.on || w.view == nil {
		return ""
	}
	var langs []string
	parsed := 0
	byWhy := map[string][]string{}
	var whys []string
	heuristic := 0
	seen := map[string]bool{}
	for _, f := range p.Page.Files {
		name := paging.SectionName(f.Header)
		b, ok := w.view.by[name]
		if f.Hidden || !ok || seen[name] {
			continue
		}
		seen[name] = true
		if b.lang != "" {
			parsed++
			if !slices.Contains(langs, b.lang) {
				langs = append(langs, b.lang)
			}
			continue
		}
		if heuristic++; heuristic <= maxNamedInNote {
			if byWhy[b.why] == nil {
				whys = append(whys, b.why)
			}
			byWhy[b.why] = append(byWhy[b.why], text.NoteName(name))
		}
	}
	if parsed == 0 && heuristic == 0 {
		return ""
	}
	var parts []string
	if parsed > 0 {
		slices.Sort(langs)
		parts = append(parts, fmt.Sprintf("by %s's ranges in %s (%s)", syntax.ParserName(), text.Count(parsed, "file"), strings.Join(langs, ", ")))
	}
	if heuristic > 0 {
		var named []string
		for _, why := range whys {
			named = append(named, strings.Join(byWhy[why], ", ")+" ("+why+")")
		}
		more := ""
		if heuristic > maxNamedInNote {
			more = fmt.Sprintf(" and %d more", heuristic-maxNamedInNote)
		}
		parts = append(parts, fmt.Sprintf("by git's --function-context heuristic in %s: %s%s", text.Count(heuristic, "file"), strings.Join(named, "; "), more))
	}
	return "[note: functionContext: this part's hunks are widened to whole functions " + strings.Join(parts, "; ") + "]\n"
}
