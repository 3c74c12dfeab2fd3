package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type getFileContentIn struct {
	Owner        string `json:"owner,omitempty"`
	Repo         string `json:"repo,omitempty"`
	Ref          string `json:"ref,omitempty" jsonschema:"commit, branch, tag or refs/pull/N/head; omit for the default branch"`
	FilePath     string `json:"filePath"`
	StartLine    int    `json:"start_line,omitempty"`
	EndLine      int    `json:"end_line,omitempty" jsonschema:"last line (inclusive)"`
	StartByte    int64  `json:"start_byte,omitempty" jsonschema:"bytes of start_line already read (a line in pieces)"`
	WithMetadata bool   `json:"with_metadata,omitempty" jsonschema:"JSON instead of text"`
}

// getFileContentTool is get_file_content's definition (registry.go).
var getFileContentTool = defineTool(toolSpec{
	Name:  "get_file_content",
	Title: "Get file content",
	Description: "Get a file's content at a ref as Gitea's API does: text (whole, or start_line..end_line) or ContentsResponse JSON (with_metadata). " +
		"Refuses a file too large for one reply, or binary without with_metadata: read_file pages, for code. " +
		"A first line longer than a reply comes in pieces after [line …] markers; start_byte goes on in it." + partialNext,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetDefault(in, "with_metadata", false)
		argcheck.SetInt(in, "start_byte", 0, 0, 1<<53)
	},
}, (*Server).getFileContent)

// getFileContent reads in.FilePath as given or, when no file has that name, as a
// rename line of a file list (orRenameLine).
func (s *Server) getFileContent(ctx context.Context, in getFileContentIn) (textReply, error) {
	return orRenameLine(ctx, "filePath", in.FilePath, func(path string) (textReply, error) {
		in.FilePath = path
		return s.getFileContentPath(ctx, in)
	})
}

func (s *Server) getFileContentPath(ctx context.Context, in getFileContentIn) (textReply, error) {
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return textReply{}, err
	}
	path, err := s.cfg.Policy.Check(in.FilePath)
	if err != nil {
		return textReply{}, err
	}
	if in.EndLine < 0 || (in.EndLine > 0 && in.StartLine > in.EndLine) {
		return textReply{}, inversion(in.StartLine, in.EndLine)
	}
	if in.StartByte != 0 && (in.StartLine < 1 || in.WithMetadata) {
		return textReply{}, errcode.New(errcode.InvalidArgument, "start_byte %d is a byte of start_line, which is not given: give start_line too (the next call a piece's reply ends with has both); with_metadata takes neither", in.StartByte)
	}
	return s.backend.fileContent(ctx, in, path)
}

func (b localBackend) fileContent(ctx context.Context, in getFileContentIn, path string) (textReply, error) {
	s := b.s
	r, err := s.served.Get(ctx, in.Owner, in.Repo, true)
	if err != nil {
		return textReply{}, err
	}
	commit, err := r.ResolveCommit(ctx, in.Ref)
	if err != nil {
		return textReply{}, err
	}
	if in.WithMetadata {
		return s.metadataReply(ctx, r, in.Ref, commit, path)
	}
	if path == "" {
		return textReply{}, errcode.New(errcode.InvalidArgument, "filePath is empty: give the path of a file")
	}
	var out textReply
	err = r.ReadAt(ctx, commit, in.Ref, path, func(blob git.Object, body io.Reader) error {
		var err error
		out, err = s.sliceFile(ctx, path, blob.Size, body, in)
		return err
	})
	return out, err
}

// sliceFile answers get_file_content's text mode from a file's bytes: the
// whole file, or lines start_line..end_line (split on "\n", clamped), as
// docs/contracts.md ("get_file_content") says; refused with TOO_LARGE when
// it does not fit. size is the file's size when known, else -1.
func (s *Server) sliceFile(ctx context.Context, path string, size int64, body io.Reader, in getFileContentIn) (textReply, error) {
	ranged := in.StartLine != 0 || in.EndLine != 0
	// What the reply can hold: the limit less the envelope of an empty reply.
	room := s.budget(ctx).MaxBytes - s.budget(ctx).ReplySize(textReply{}) - 2
	from, to := 1, 0
	if ranged {
		from, to = max(in.StartLine, 1), max(in.EndLine, 0)
	}
	if in.StartByte > 0 {
		to = from // pieces of one line, in replies of their own
	}
	// A reply of a piece ends with its next call, at its longest.
	probe := in
	probe.StartLine, probe.StartByte = 1<<31-1, 1<<53
	next := paging.Continue("get_file_content", probe)
	nextCost := paging.NextMetaSize(next) + s.budget(ctx).Len(next.Line())
	// The forge's blob comes without its id: its line count is not kept.
	res, err := s.lines.Slice(git.Object{}, body, paging.LineRange{From: from, To: to, FromByte: in.StartByte,
		Room: room, Lines: s.budget(ctx).LineRoom(1), Cost: s.budget(ctx).Cost(), What: text.NoteName(path), PieceCost: nextCost})
	if err != nil {
		return textReply{}, err
	}
	if res.Binary {
		return textReply{}, errcode.New(errcode.InvalidArgument, "%q is a binary file%s; with_metadata=true returns it base64-encoded", path, sizeNote(size))
	}
	if res.BadFromByte != "" {
		return textReply{}, badStartByte("start_byte", in.StartByte, from, path, res)
	}
	if len(res.Pieces) > 0 && res.Pieces[0].Line == from {
		return s.filePiece(ctx, path, in, res)
	}
	if len(res.Pieces) > 0 { // a line that no reply holds after lines that fit
		res.Last, res.Pieces, res.Stopped = res.Last-1, nil, true
	}
	if ranged {
		last := res.Total
		if in.EndLine > 0 {
			last = min(in.EndLine, res.Total)
		}
		if from > last {
			if res.Total == 0 {
				return textReply{}, pastTheEnd(path, "start_line", from, 0)
			}
			return textReply{}, inversionAfterClamp(path, from, last, res.Total)
		}
		if res.Stopped {
			return textReply{}, rangeTooLarge(path, from, last, res, s.budget(ctx).MaxBytes)
		}
		noteLines(ctx, path, res.Content, from)
		return textReply{Text: string(text.FrameBytes(res.Content))}, nil
	}
	if res.Stopped {
		return textReply{}, fileTooLarge(path, res, s.budget(ctx).MaxBytes)
	}
	content := res.Content
	if res.EndsWithNewline {
		content = append(content, '\n')
	}
	noteLines(ctx, path, content, from)
	return textReply{Text: string(text.FrameBytes(content))}, nil
}

// filePiece is get_file_content's reply of a piece of line
// res.Pieces[0].Line, the first of the range: after its marker, with the
// call that goes on inside the line, or after it within the range.
func (s *Server) filePiece(ctx context.Context, path string, in getFileContentIn, res text.Slice) (textReply, error) {
	p := res.Pieces[0]
	noteLines(ctx, path, res.Content[:p.To-p.From], p.Line)
	t := text.PieceMarker(text.Name(path), p) + string(text.FrameBytes(res.Content[:p.To-p.From])) + "\n"
	out := textReply{Text: t}
	last := res.Total
	if in.EndLine > 0 {
		last = min(in.EndLine, res.Total)
	}
	next := in
	next.StartLine, next.StartByte = p.Line, p.To
	if !p.More() {
		next.StartLine, next.StartByte = p.Line+1, 0
	}
	if next.StartLine <= last {
		out.Next = paging.Continue("get_file_content", next)
	}
	return out, nil
}

// noteLines leaves the notes on the hidden characters and framed lines of
// content, lines of path from line first, for the reply (renderNotes,
// within paging.NoteReserve): the text is the file's, byte for byte (a
// framed line's Mark aside).
func noteLines(ctx context.Context, path string, content []byte, first int) {
	noteHidden(ctx, text.Name(path), text.ScanText(content, first))
	if f := text.Plain.FramedLines(content, first); f.Found() {
		notes.Add(ctx, text.FramedNote(text.Name(path), "", f))
	}
}

// sizeNote is " (N bytes)" when the size is known.
func sizeNote(size int64) string {
	if size < 0 {
		return ""
	}
	return fmt.Sprintf(" (%d bytes)", size)
}

// inversion: start_line (as given; below 1 it counts as 1) is after
// end_line.
func inversion(start, end int) error {
	from := fmt.Sprintf("start_line %d", start)
	switch {
	case start == 0:
		from = "start_line 1 (its default)"
	case start < 1:
		from = fmt.Sprintf("start_line %d (1 once clamped)", start)
	}
	return errcode.New(errcode.InvalidArgument, "%s is after end_line %d: the range is inverted; end_line must be at least start_line, or 0 (or left out) for the last line", from, end)
}

// inversionAfterClamp: start_line is past the end of a file that is not
// empty, so that end_line, clamped to (or by default) its last line, comes
// before it.
func inversionAfterClamp(path string, from, last, total int) error {
	return errcode.New(errcode.InvalidArgument, "start_line %d is past the end of %q (%s): with end_line at the last line, %d, the range %d–%d is inverted; start_line must be at most %d",
		from, path, lineCount(total), last, from, last, total)
}

// pastTheEnd: the first line asked for (param, 1-based) is past the end of a
// file of total lines. An empty file is called empty, not a bad range.
func pastTheEnd(path, param string, first, total int) error {
	if total == 0 {
		return errcode.New(errcode.InvalidArgument, "%q is empty (0 lines): there is no line %d to return; leave out the line range to get its (empty) content", path, first)
	}
	return errcode.New(errcode.InvalidArgument, "%s %d is past the end of %q, which has %s: %s must be at most %d", param, first, path, lineCount(total), param, total)
}

// lineCount is "1 line" or "N lines".
func lineCount(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

func fileTooLarge(path string, res text.Slice, limit int) error {
	fit := fmt.Sprintf("ask for a range with start_line/end_line (lines 1–%d fit)", max(res.Last, 0))
	if n := len(res.Pieces); res.Last < 1 || n > 0 && res.Pieces[n-1].Line == res.Last && res.Pieces[n-1].More() {
		// Not even the first line fits whole: it comes in pieces.
		line := max(res.Last, 1)
		fit = fmt.Sprintf("line %d alone is longer than a reply: start_line=%d with start_byte reads it in pieces", line, line)
	}
	return errcode.New(errcode.TooLarge, "%q is %d bytes in %s, more than one reply holds (%d bytes); %s, or use read_file, which returns as much as fits and where to continue",
		path, res.Size, lineCount(res.Total), limit, fit)
}

func rangeTooLarge(path string, from, last int, res text.Slice, limit int) error {
	if res.Oversized != 0 && res.Last < res.First {
		return errcode.New(errcode.TooLarge, "line %d of %q alone is larger than one reply holds (%d bytes); search_code can find text inside it", res.Oversized, path, limit)
	}
	return errcode.New(errcode.TooLarge, "lines %d–%d of %q (%d lines, %d bytes) do not fit in one reply (%d bytes); lines %d–%d fit: call again with end_line=%d, then continue from start_line=%d",
		from, last, path, res.Total, res.Size, limit, res.First, res.Last, res.Last, res.Last+1)
}

// metadataReply answers with_metadata=true.
func (s *Server) metadataReply(ctx context.Context, r *repo.Repository, ref, commit, path string) (textReply, error) {
	v, err := forge.GitContents{BaseURL: s.cfg.BaseURL, Denied: s.cfg.Policy.Denied, MaxBytes: s.budget(ctx).MaxBytes}.ContentsFromGit(ctx, r, ref, commit, path)
	if err != nil {
		return textReply{}, err
	}
	// Compact and without HTML escaping, as the forge writes it.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return textReply{}, err
	}
	out := textReply{Text: strings.TrimSuffix(buf.String(), "\n")}
	if n := s.budget(ctx).ReplySize(out); n > s.budget(ctx).MaxBytes {
		return textReply{}, errcode.New(errcode.TooLarge, "the ContentsResponse for %q is %d bytes as JSON, over the %d-byte reply limit; without with_metadata, start_line/end_line return the text in ranges", repo.DisplayPath(path), n, s.budget(ctx).MaxBytes)
	}
	return out, nil
}

// noteHidden leaves the note of a text's hidden characters for the reply
// (renderNotes, within paging.NoteReserve), and returns the structured field.
func noteHidden(ctx context.Context, what string, h text.Hidden) *text.HiddenChars {
	if !h.Found() {
		return nil
	}
	notes.Add(ctx, text.HiddenNote(what, h, text.Hidden{}, false))
	return text.NewHiddenChars(h, text.Hidden{})
}
