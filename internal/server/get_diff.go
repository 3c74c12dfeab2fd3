package server

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

type getDiffIn struct {
	Owner        string   `json:"owner,omitempty"`
	Repo         string   `json:"repo,omitempty"`
	Base         string   `json:"base"`
	Head         string   `json:"head,omitempty" jsonschema:"head ref; omit for HEAD"`
	Mode         string   `json:"mode,omitempty" jsonschema:"merge-base (base...head) or direct (base..head)"`
	Paths        []string `json:"paths,omitempty" jsonschema:"only these files or directories (literal)"`
	MaxBytes     int      `json:"maxBytes,omitempty" jsonschema:"most patch bytes a part (0: as many as fit; raised to 256 if less)"`
	ContextLines int      `json:"contextLines,omitempty"`
	// IgnoreWhitespace is git's -w, in the patch and the line counts.
	IgnoreWhitespace bool `json:"ignoreWhitespace,omitempty"`
	// LineNumbers numbers the patch's hunk lines (diff_numbers.go).
	LineNumbers bool `json:"lineNumbers,omitempty" jsonschema:"old and new numbers on each diff line"`
	// CollapseRepeated folds the diff (folded.go).
	CollapseRepeated bool `json:"collapseRepeated,omitempty" jsonschema:"each repeated change shown once, with where"`
	// FunctionContext widens each hunk to its whole functions (funcctx.go).
	FunctionContext bool   `json:"functionContext,omitempty" jsonschema:"each hunk widened to its whole enclosing function"`
	Cursor          string `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
}

// diffFile is one file of a diff with its patch.
type diffFile struct {
	changedFile
	Patch        *string `json:"patch" jsonschema:"the file's diff --git section as git diff prints it (this part's share of it), or null"`
	PatchOmitted *string `json:"patchOmitted" jsonschema:"why patch is null: binary, denied (hidden by the secrets policy), tooLarge (its header lines alone are longer than a whole reply), whitespace (with ignoreWhitespace, its changes are all in whitespace; listed after the part's other files), or size_limit (a file after this part's, which the next parts hold; listed last); else null"`
	// Partial: the patch is this part's share of the file's section; the
	// rest is in the parts before or after it.
	Partial bool `json:"partial" jsonschema:"patch holds only part of the file's section: the rest is in the previous or next part"`
	// PatchBytes and the fields after it say where this part's share of
	// the file's patch is in it (splitShare).
	PatchBytes  *int64     `json:"patchBytes,omitempty" jsonschema:"bytes of the file's patch, as git prints it, that this part holds (all of it unless partial); absent when hidden or left out"`
	Part        *int       `json:"part,omitempty" jsonschema:"partial: which of the file's parts this is, from 1; absent when not known"`
	Parts       *int       `json:"parts,omitempty" jsonschema:"partial: how many parts the file's patch comes in, said in its last part only (how the rest is cut depends on each part's room)"`
	PatchOffset *int64     `json:"patchOffset,omitempty" jsonschema:"partial: where this part's share starts in the file's patch as git prints it, in bytes from 0"`
	PatchSize   *int64     `json:"patchSize,omitempty" jsonschema:"partial: bytes of the file's whole patch"`
	OldLines    *lineRange `json:"oldLines,omitempty" jsonschema:"partial: the old file's lines this share's hunks span (from its @@ lines); absent when none"`
	NewLines    *lineRange `json:"newLines,omitempty" jsonschema:"partial: the new file's lines this share's hunks span; absent when none"`
	// Hidden: the bidi controls and invisible characters patch holds.
	Hidden *text.HiddenChars `json:"hiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters the patch holds, shown as they are; absent when none"`
}

// lineRange is a first and last line, both included.
type lineRange struct {
	First int64 `json:"first"`
	Last  int64 `json:"last"`
}

func newLineRange(s diff.LineSpan) *lineRange {
	if s.First == 0 {
		return nil
	}
	return &lineRange{First: s.First, Last: s.Last}
}

// splitShare sets the fields that say where a partial patch is in the
// file's.
func (e *diffFile) splitShare(sh paging.Share) {
	e.PatchOffset, e.OldLines, e.NewLines = ptr(sh.From), newLineRange(sh.Old), newLineRange(sh.New)
	if sh.Part > 0 {
		e.Part = ptr(sh.Part)
	}
	if sh.Parts > 0 {
		e.Parts = ptr(sh.Parts)
	}
	if sh.Size > 0 {
		e.PatchSize = ptr(sh.Size)
	}
}

type getDiffOut struct {
	Base       string     `json:"base" jsonschema:"resolved base commit"`
	Head       string     `json:"head" jsonschema:"resolved head commit"`
	MergeBase  *string    `json:"mergeBase" jsonschema:"where the diff starts in merge-base mode; null in direct mode"`
	Files      []diffFile `json:"files" jsonschema:"the files this part holds, in git's order"`
	Truncated  bool       `json:"truncated" jsonschema:"true when the diff goes on in a next part"`
	TotalFiles int        `json:"totalFiles" jsonschema:"files in the whole diff"`
	PatchBytes int64      `json:"patchBytes" jsonschema:"bytes of the whole diff's patch as git prints it, hidden files not counted: what the parts hold put together"`
	// OmittedNotListed: seed 003's "files that don't fit have
	// patchOmitted: size_limit", in a reply that holds only some.
	OmittedNotListed int `json:"omittedNotListed" jsonschema:"files after this part's that the next parts hold, beyond those listed in files with patchOmitted size_limit (as many as the reply has room for)"`
	// after is the index of the first change after this part's (-1:
	// none), whose files are listed as size_limit.
	after int
	// EmptyReason tells an empty diff from paths that matched nothing.
	EmptyReason string `json:"emptyReason,omitempty" jsonschema:"set when the diff holds no file: noChange (no file differs between the commits) or noPathMatched (no changed file is at or under paths: they are literal paths, not globs; list_files with pathGlobs finds files by glob)"`
	// Folded: collapseRepeated's text (folded.go).
	Folded *string `json:"folded,omitempty" jsonschema:"with collapseRepeated: this part's share of the folded diff (files is then empty)"`
	paging.Paged
}

// getDiffTool is get_diff's definition (registry.go).
var getDiffTool = defineTool(toolSpec{
	Name:  "get_diff",
	Title: "Get diff",
	Description: "Get the unified diff from base to head (merge-base mode: head's changes since it branched). " +
		"For a pull request get_pull_request_diff, one commit get_commit, the file list list_changed_files. " +
		wholeDiff +
		partEnds,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetDefault(in, "head", "HEAD")
		argcheck.SetDefault(in, "mode", modeMergeBase)
		argcheck.Prop(in, "mode").Enum = []any{modeMergeBase, modeDirect}
		argcheck.SetInt(in, "maxBytes", 0, 0, 1<<31-1)
		argcheck.SetInt(in, "contextLines", defaultContextLines, 0, 10000)
		argcheck.Prop(in, "paths").MaxItems = ptr(maxDiffPaths)
	},
}, (*Server).getDiff)

func (s *Server) getDiff(ctx context.Context, in getDiffIn) (reply[getDiffOut], error) {
	const tool = "get_diff"
	q := diffRequest{owner: in.Owner, name: in.Repo, base: in.Base, head: in.Head, mode: in.Mode, paths: in.Paths, contextLines: in.ContextLines, ignoreWhitespace: in.IgnoreWhitespace}
	digest := paging.ArgsDigest(in, "cursor")
	var start paging.Pos
	var split paging.SplitPos
	var patchBytes int64 // the whole diff's, counted for the first part
	var cur paging.Cursor
	if in.Cursor != "" {
		var err error
		if cur, err = s.cursors.Decode(tool, in.Cursor, digest); err != nil {
			return reply[getDiffOut]{}, err
		}
		q.cur, start, split, patchBytes = &cur, cur.Start(), paging.SplitOf(cur), cur.Bytes
	}
	first := in.Cursor == ""
	place := placeOf(cur, first, 0)
	if n, ok := assumedParts(ctx); ok && first {
		place.n = n
	}
	sel, err := s.selectDiff(ctx, q)
	if err != nil {
		return reply[getDiffOut]{}, err
	}
	out := getDiffOut{Base: sel.base, Head: sel.head, MergeBase: sel.mergeBase, Files: []diffFile{}}
	title := fmt.Sprintf("%s: diff %s..%s", sel.repo.FullName(), git.Short(sel.base), git.Short(sel.head))
	if sel.mergeBase != nil {
		title += fmt.Sprintf(" from their merge base %s", git.Short(*sel.mergeBase))
	}
	if in.CollapseRepeated && in.FunctionContext {
		return reply[getDiffOut]{}, errFunctionContextFolded()
	}
	if in.CollapseRepeated {
		fv, err := s.foldGitDiff(ctx, sel.repo, sel.opts)
		if err != nil {
			return reply[getDiffOut]{}, err
		}
		if fv.files > 0 { // else the plain reply says why it is empty
			return s.getDiffFolded(ctx, in, digest, sel, fv, cur, place, title, out)
		}
	}
	header := func(p *paging.Part) string {
		var b strings.Builder
		b.WriteString(title)
		fmt.Fprintf(&b, ": %s changed", text.Count(p.Total, "file"))
		if patchBytes > 0 {
			fmt.Fprintf(&b, ", %d bytes of patch", patchBytes)
		}
		if p.Next != nil || p.First > 0 || (len(p.Page.Files) > 0 && p.Page.Files[0].Continued) {
			b.WriteString("; " + place.String() + ": " + p.Range())
		}
		return b.String() + "\n"
	}
	// What is not patch or notes: the header at its longest, and the next
	// call.
	probe := reply[getDiffOut]{
		Text: strings.Repeat("x", 200+len(sel.repo.FullName())),
		Out:  out,
		Next: paging.Continue(tool, withCursor(in, paging.CursorProbe)),
	}
	var only *paging.Filter // the latest read's, which noted the renames paths paired
	request := func(room int) paging.Request {
		// The first part counts the whole diff's patch, once: the parts
		// after it carry the count in their cursors.
		q := paging.Request{Repo: sel.repo, Opts: sel.opts, Start: start, Room: room, Cost: s.budget(ctx).Cost(), Hide: s.hiddenSection, Split: split,
			CountRest: in.Cursor == "" && patchBytes == 0}
		q.Only = paging.PathsFilter(sel.opts.Paths)
		only = q.Only
		return q
	}
	firstRoom := 0
	wide := s.widening(in.FunctionContext)
	read := func(room int) (*paging.Part, error) {
		firstRoom = cmp.Or(firstRoom, room)
		q := request(room)
		q.FirstRoom = firstRoom
		part, err := wide.read(ctx, q)
		if err == nil && part.Counted != nil {
			patchBytes = part.Counted.Bytes
		}
		return part, err
	}
	notes := func(p *paging.Part) string {
		s.flagGenerated(ctx, sel.repo, sel.head, p)
		n := wide.note(p) + only.Note() + p.Notes(s.noteRules(sel.head))
		if in.Cursor == "" {
			n = only.Missed() + n
		}
		return n
	}
	empty := "No file differs.\n"
	build := func(part *paging.Part, partNotes string) reply[getDiffOut] {
		out.PatchBytes = patchBytes
		patch, note := shownPatch(in.LineNumbers, part)
		return s.diffReply(tool, in, digest, sel, out, part, place, partNotesText(header(part), empty, part.Total, patch, note+partNotes))
	}
	patchBytesAsked(ctx, in.MaxBytes)
	res, err := paging.FitPart(s.budget(ctx), s.budget(ctx).PayloadRoom(probe), in.MaxBytes, read, notes, build)
	if _, counting := assumedParts(ctx); err == nil && first && res.Next != nil && !counting {
		// A diff in parts: counted, and its first part cut again saying
		// how many (partcount.go).
		key := fmt.Sprintf("get_diff %s %s %s", paging.PlainJSON(withCursor(in, "")), sel.base, sel.head)
		if place.n = s.countParts(ctx, key, res.Out.TotalFiles, guessParts(s.budget(ctx), patchBytes), func(ctx context.Context, cursor string) (*paging.Call, error) {
			r, err := s.getDiff(ctx, withCursor(in, cursor))
			return r.Next, err
		}); place.n > 0 {
			firstRoom = 0
			res, err = paging.FitPart(s.budget(ctx), s.budget(ctx).PayloadRoom(probe), in.MaxBytes, read, notes, build)
		}
	}
	switch {
	case err != nil:
		return res, err
	case res.Out.TotalFiles == 0:
		reason, all, err := whyNoFile(ctx, sel.repo, sel.opts)
		if err != nil {
			return reply[getDiffOut]{}, err
		}
		if reason == emptyNoPathMatched {
			// A short reply: it fits as the empty one did.
			empty = noPathMatchedText(all)
			res = build(&paging.Part{Page: &diff.Page{}}, "")
		}
		res.Out.EmptyReason = reason
		return res, nil
	case !s.cfg.Structured || res.Out.after < 0:
		return res, nil
	}
	later := request(0)
	if later.Only != nil {
		later.Only = &paging.Filter{Keep: later.Only.Again}
	}
	return s.withOmitted(ctx, later, sel.head, res)
}

// getDiffFolded is a part of the diff folded (collapseRepeated).
func (s *Server) getDiffFolded(ctx context.Context, in getDiffIn, digest string, sel *diffSelection, fv *foldedView, cur paging.Cursor, place partPlace, title string, out getDiffOut) (reply[getDiffOut], error) {
	const tool = "get_diff"
	fc := foldedCall{fv: fv, cur: cur, first: in.Cursor == "", place: place, title: title, maxBytes: in.MaxBytes, hide: s.hiddenSection, lineNumbers: in.LineNumbers,
		countKey: fmt.Sprintf("get_diff %s %s %s", paging.PlainJSON(withCursor(in, "")), sel.base, sel.head)}
	fc.next = func(c paging.Cursor) *paging.Call {
		c.Tool, c.Args, c.Commits = tool, digest, []string{sel.base, sel.head}
		next := paging.Continue(tool, withCursor(in, s.cursors.Encode(c, sel.repo.FullName())))
		next.Arguments["contextLines"] = in.ContextLines
		return next
	}
	fc.notes = func(p *paging.Part) string {
		s.flagGenerated(ctx, sel.repo, sel.head, p)
		return p.Notes(s.noteRules(sel.head))
	}
	fc.count = func(ctx context.Context, cursor string) (*paging.Call, error) {
		r, err := s.getDiff(ctx, withCursor(in, cursor))
		return r.Next, err
	}
	return foldedPart(ctx, s, fc, func(r textReply, payload string) reply[getDiffOut] {
		o := out
		o.TotalFiles, o.PatchBytes, o.Truncated = fv.files, fv.patchBytes, r.Next != nil
		if s.cfg.Structured {
			o.Folded = &payload
		}
		return reply[getDiffOut]{Text: r.Text, Out: o, Next: r.Next}
	})
}

// maxOmittedListed bounds the files a part lists as size_limit, as a part
// lists at most 1,000 files (diff.ReadPage).
const maxOmittedListed = 1000

// withOmitted lists, after a part's files, the files after them with
// patchOmitted size_limit (seed 003), as many as the reply has room for,
// and counts the others.
func (s *Server) withOmitted(ctx context.Context, q paging.Request, head string, r reply[getDiffOut]) (reply[getDiffOut], error) {
	// Only as many as could fit are looked at: an entry is at least its
	// paths, so that the time follows what is listed, not the range.
	var later []git.Change
	i, size, total := 0, 0, r.Out.TotalFiles
	_, err := q.Repo.Git.EachChange(ctx, q.ListOptions(), func(_ int, c git.Change) error {
		if q.Only != nil && !q.Only.Keep(c) {
			return nil
		}
		if i++; i <= r.Out.after {
			return nil
		}
		if size += paging.PathBytes(c); len(later) == maxOmittedListed || size > s.budget(ctx).MaxBytes {
			return git.ErrStop
		}
		later = append(later, c)
		return nil
	})
	if err != nil {
		return reply[getDiffOut]{}, paging.GoneCommit(q.Repo, true, err)
	}
	omitted := make([]changedFile, len(later))
	for i, c := range later {
		omitted[i] = s.changedFile(c)
		omitted[i].Additions, omitted[i].Deletions, omitted[i].IsBinary = nil, nil, nil
	}
	s.markGenerated(ctx, q.Repo, head, omitted)
	entries := make([]diffFile, len(omitted))
	for i, f := range omitted {
		why := "size_limit"
		if s.deniedChange(later[i]) {
			why = "denied"
		}
		entries[i] = diffFile{changedFile: f, PatchOmitted: ptr(why)}
	}
	listed := r.Out.Files
	return paging.FitList(s.budget(ctx), len(entries), func(n int) reply[getDiffOut] {
		out := r
		out.Out.Files = append(slices.Clip(listed), entries[:n]...)
		out.Out.OmittedNotListed = total - r.Out.after - n
		return out
	}), nil
}

// partNotesText is a part's text: its header, the patch (or empty, when
// the diff has no file) and notes.
func partNotesText(header, empty string, total int, patch, notes string) string {
	if total > 0 {
		empty = ""
	}
	return header + empty + patch + notes
}

// diffReply is get_diff's reply for a part, with its text.
func (s *Server) diffReply(tool string, in getDiffIn, digest string, sel *diffSelection, out getDiffOut, part *paging.Part, place partPlace, text string) reply[getDiffOut] {
	out.TotalFiles = part.Total
	out.Files = s.partFiles(part)
	out.after = firstAfter(part)
	r := reply[getDiffOut]{Text: text, Out: out}
	if part.Next != nil {
		r.Out.Truncated = true
		c := paging.Cursor{Tool: tool, Args: digest, Commits: []string{sel.base, sel.head}, Bytes: out.PatchBytes}
		part.CursorAt(&c)
		place.carry(&c)
		r.Next = paging.Continue(tool, withCursor(in, s.cursors.Encode(c, sel.repo.FullName())))
		// contextLines=0 would be left out (omitempty) and read back as
		// the default 3: the next call must say it.
		r.Next.Arguments["contextLines"] = in.ContextLines
	}
	return r
}

// firstAfter is the index of the first change after the part's (-1 when
// none): the next part's start, or the change after it when the next part
// goes on inside it.
func firstAfter(p *paging.Part) int {
	switch {
	case p.Next == nil:
		return -1
	case p.Next.Line > 0 || p.Next.Section > 0:
		return p.Next.Change + 1
	}
	return p.Next.Change
}

func withCursor(in getDiffIn, c string) getDiffIn {
	in.Cursor = c
	return in
}

// hiddenSection: the secrets policy hides a section (either side of it).
func (s *Server) hiddenSection(h diff.Header) bool {
	return s.cfg.Policy.Denied(h.OldPath) || s.cfg.Policy.Denied(h.NewPath)
}

// partFiles is the structured form of a part's files; none without
// --structured, where nothing sends it.
func (s *Server) partFiles(p *paging.Part) []diffFile {
	if !s.cfg.Structured {
		return nil
	}
	texts := paging.FilesOf(p.Page.Text)
	files := []diffFile{}
	ti := 0
	for i, f := range p.Page.Files {
		c := p.Changes[i]
		if i > 0 && p.Changes[i-1] == c && len(files) > 0 {
			// The second section of a type change: one entry.
			last := &files[len(files)-1]
			if !f.Hidden && ti < len(texts) {
				joined := *last.Patch + string(texts[ti])
				last.Patch = &joined
				last.PatchBytes = ptr(*last.PatchBytes + f.To - f.From)
				ti++
			}
			continue
		}
		e := diffFile{changedFile: s.changedFile(c)}
		e.Generated = p.Generated != nil && p.Generated(c.Path)
		e.Additions, e.Deletions, e.IsBinary = nil, nil, nil
		switch {
		case f.Hidden:
			e.PatchOmitted = ptr("denied")
		case f.Omitted:
			e.PatchOmitted = ptr("tooLarge")
		case f.Header.IsBinary:
			// The text carries git's "Binary files ... differ" section;
			// the contract's patch is null for a binary file.
			ti++
			e.IsBinary, e.PatchOmitted = ptr(true), ptr("binary")
			e.Additions, e.Deletions = ptr(0), ptr(0)
			e.PatchBytes = ptr(f.To - f.From)
		case ti < len(texts):
			e.Patch = ptr(string(texts[ti]))
			ti++
			e.IsBinary = ptr(f.Header.IsBinary)
			e.Partial = f.Continued || !f.Complete
			if !p.Terse {
				e.PatchBytes = ptr(f.To - f.From)
			}
			if e.Partial && !p.Terse {
				e.splitShare(p.ShareAt(i))
			} else if !e.Partial {
				e.Additions, e.Deletions = ptr(f.Added), ptr(f.Deleted)
			}
		}
		files = append(files, e)
	}
	for _, c := range p.Bare {
		e := diffFile{changedFile: s.changedFile(c), PatchOmitted: ptr("whitespace")}
		e.Generated = p.Generated != nil && p.Generated(c.Path)
		e.Additions, e.Deletions = ptr(0), ptr(0)
		files = append(files, e)
	}
	for i, f := range files {
		if f.Patch != nil {
			files[i].Hidden = text.NewHiddenChars(diff.ScanHidden([]byte(*f.Patch)))
		}
	}
	return files
}
