package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type readFileIn struct {
	Owner     string `json:"owner,omitempty"`
	Repo      string `json:"repo,omitempty"`
	Path      string `json:"path"`
	Ref       string `json:"ref,omitempty" jsonschema:"commit, branch, tag or refs/pull/N/head; omit for the work tree (HEAD if bare)"`
	StartLine int    `json:"startLine,omitempty"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"last line; omit for as far as fits"`
	StartByte int64  `json:"startByte,omitempty" jsonschema:"bytes of startLine already read (a line in pieces)"`
	paging.ReplyLimit
}

type readFileOut struct {
	Path       string  `json:"path"`
	Ref        *string `json:"ref" jsonschema:"the commit read, as a full SHA; null for the work tree"`
	StartLine  int     `json:"startLine"`
	EndLine    int     `json:"endLine" jsonschema:"last line returned (startLine-1 when none)"`
	TotalLines int     `json:"totalLines"`
	IsBinary   bool    `json:"isBinary"`
	Content    string  `json:"content" jsonschema:"lines startLine..endLine joined with \\n (of a line in pieces, the piece's bytes)"`
	Truncated  bool    `json:"truncated" jsonschema:"true when lines were asked for that did not fit: next reads on"`
	// Pieces: the lines content holds in part.
	Pieces []linePiece `json:"pieces,omitempty" jsonschema:"the lines content holds in part, longer than a reply: the first and the last; absent when every line is whole"`
	// Hidden: the bidi controls and invisible characters content holds.
	Hidden *text.HiddenChars `json:"hiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters content holds, shown as they are; absent when none"`
	paging.Paged
}

// linePiece is a line that content holds in part (text.Piece).
type linePiece struct {
	Line      int   `json:"line"`
	StartByte int64 `json:"startByte" jsonschema:"bytes of the line before the piece"`
	EndByte   int64 `json:"endByte" jsonschema:"bytes of the line up to the piece's end"`
	LineBytes int64 `json:"lineBytes" jsonschema:"the line's length in bytes, without its line feed"`
}

// pieceCost is what a piece of a line costs a reply of lines besides its
// marker and bytes: the startByte its next call carries (in the text, the
// _meta and the structured output) and its entry in pieces, at their
// longest.
var pieceCost = func() int {
	entry, _ := json.Marshal(linePiece{1<<31 - 1, 1 << 53, 1 << 53, 1 << 53})
	return 3*len(`"startByte":9007199254740992,`) + len(`"pieces":[],`) + len(entry)
}()

// linePieces is pieces as the structured output gives them.
func linePieces(pieces []text.Piece) []linePiece {
	var out []linePiece
	for _, p := range pieces {
		out = append(out, linePiece{p.Line, p.From, p.To, p.Bytes})
	}
	return out
}

// readFileTool is read_file's definition (registry.go).
var readFileTool = defineTool(toolSpec{
	Name:  "read_file",
	Title: "Read file",
	Description: "Read lines startLine..endLine of a file at ref, as many as fit, with its line count. " +
		"get_file_content is the Gitea-compatible sibling, refusing large files. A binary file is named, not shown. " +
		inPieces +
		partialNext,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "startLine", 1, 1, 1<<31-1)
		argcheck.SetInt(in, "endLine", 0, 1, 1<<31-1)
		argcheck.SetInt(in, "startByte", 0, 0, 1<<53)
	},
}, (*Server).readFile)

// readFile reads in.Path as given or, when no file has that name, as a
// rename line of a file list (orRenameLine).
func (s *Server) readFile(ctx context.Context, in readFileIn) (reply[readFileOut], error) {
	return orRenameLine(ctx, "path", in.Path, func(path string) (reply[readFileOut], error) {
		in.Path = path
		return s.readFilePath(ctx, in)
	})
}

func (s *Server) readFilePath(ctx context.Context, in readFileIn) (reply[readFileOut], error) {
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return reply[readFileOut]{}, err
	}
	path, err := s.cfg.Policy.Check(in.Path)
	if err != nil {
		return reply[readFileOut]{}, err
	}
	if path == "" {
		return reply[readFileOut]{}, errcode.New(errcode.InvalidArgument, "path is empty: give the path of a file")
	}
	if in.EndLine != 0 && in.EndLine < in.StartLine {
		return reply[readFileOut]{}, errcode.New(errcode.InvalidArgument, "endLine %d is before startLine %d: endLine must be at least startLine, or left out to read as far as fits", in.EndLine, in.StartLine)
	}
	out := readFileOut{Path: path, StartLine: in.StartLine}
	where := "work tree"
	read := func(read func(blob git.Object, body io.Reader) error) error {
		f, err := r.OpenWorkTreeFile(s.cfg.Policy, path)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		// A file is no process to kill at the deadline: stop reading instead.
		return read(git.Object{Size: fi.Size()}, ctxReader{ctx, f})
	}
	if in.Ref != "" || r.Bare() {
		commit, err := r.ResolveCommit(ctx, in.Ref)
		if err != nil {
			return reply[readFileOut]{}, err
		}
		out.Ref, where = &commit, "commit "+commit
		read = func(read func(blob git.Object, body io.Reader) error) error {
			return r.ReadAt(ctx, commit, in.Ref, path, read)
		}
	}

	// Everything but the content is known up front: what is left of the
	// limit is the content's room.
	header := func(o readFileOut) string {
		if o.TotalLines == 0 {
			return fmt.Sprintf("%s (%s) is empty: 0 lines\n", text.NoteName(o.Path), where)
		}
		return fmt.Sprintf("%s (%s): lines %d–%d of %d\n", text.NoteName(o.Path), where, o.StartLine, o.EndLine, o.TotalLines)
	}
	probe := out
	probe.EndLine, probe.TotalLines, probe.Truncated = 1<<31-1, 1<<31-1, true
	probeReply := reply[readFileOut]{Text: header(probe) + "\n", Out: probe, Next: s.readFileNext(in, out.Ref, 1<<31-1, in.StartByte)}
	withMarker := probeReply // a piece of a long line comes after its marker
	withMarker.Text += text.PieceMarker(text.NoteName(path), text.Piece{Line: 1<<31 - 1, From: 1 << 40, To: 1 << 40, Bytes: 1 << 41}) + "\n"
	ctx = paging.WithBudget(ctx, s.budget(ctx).Roomy(withMarker))
	room := s.budget(ctx).PayloadRoom(probeReply) - 2
	// A slice whose hidden characters' note leaves it over the limit is
	// read again in the room the note leaves.
	for attempt := 0; ; attempt++ {
		r0, err := s.readFileSlice(ctx, in, out, path, where, header, room, read)
		if err != nil {
			return reply[readFileOut]{}, err
		}
		if over := s.budget(ctx).ReplySize(r0) - s.budget(ctx).MaxBytes; over > 0 && attempt < 3 {
			room -= over
			if b := s.budget(ctx); room < b.MaxBytes/4 && b.Ceiling > b.MaxBytes {
				// The notes (which name the file too) left the lines
				// a few bytes: the client's whole budget.
				room += b.Ceiling - b.MaxBytes
				ctx = paging.WithBudget(ctx, b.Widened())
			}
			continue
		}
		return r0, nil
	}
}

// readFileSlice is read_file's reply with the lines that fit room.
func (s *Server) readFileSlice(ctx context.Context, in readFileIn, out readFileOut, path, where string, header func(readFileOut) string, room int, read func(func(git.Object, io.Reader) error) error) (reply[readFileOut], error) {
	var res text.Slice
	var size int64
	err := read(func(blob git.Object, body io.Reader) error {
		size = blob.Size
		var err error
		res, err = s.lines.Slice(blob, body, paging.LineRange{From: in.StartLine, To: in.EndLine, FromByte: in.StartByte,
			Room: room, Lines: s.budget(ctx).LineRoom(linesHead), Cost: s.budget(ctx).Cost(), What: text.NoteName(path), PieceCost: pieceCost})
		return err
	})
	if err != nil {
		return reply[readFileOut]{}, err
	}
	if out.IsBinary = res.Binary; out.IsBinary {
		out.EndLine = out.StartLine - 1
		return reply[readFileOut]{Text: fmt.Sprintf("%s (%s) is a binary file of %d bytes; its content is not shown.\n", text.Name(path), where, size), Out: out}, nil
	}
	if in.StartLine > max(res.Total, 1) {
		return reply[readFileOut]{}, pastTheEnd(path, "startLine", in.StartLine, res.Total)
	}
	if res.BadFromByte != "" {
		return reply[readFileOut]{}, badStartByte("startByte", in.StartByte, in.StartLine, path, res)
	}
	if res.Oversized != 0 && res.Last < res.First {
		return reply[readFileOut]{}, errcode.New(errcode.TooLarge, "line %d of %q alone is larger than one reply holds (%d bytes); search_code can find text inside it", res.Oversized, path, s.budget(ctx).MaxBytes)
	}
	out.EndLine, out.TotalLines, out.Truncated = res.Last, res.Total, res.Stopped
	out.Pieces = linePieces(res.Pieces)
	var t string
	t, out.Content, out.Hidden = linesText(header(out), res, out.StartLine, text.Name(path))
	r0 := reply[readFileOut]{Text: t, Out: out}
	if out.Truncated {
		line, at := nextLine(res)
		r0.Next = s.readFileNext(in, out.Ref, line, at)
	}
	return r0, nil
}

// nextLine is where the lines after res go on: inside its last line when
// that line goes on after its piece, else at the line after it.
func nextLine(res text.Slice) (line int, startByte int64) {
	if n := len(res.Pieces); n > 0 && res.Pieces[n-1].Line == res.Last && res.Pieces[n-1].More() {
		return res.Last, res.Pieces[n-1].To
	}
	return res.Last + 1, 0
}

// badStartByte: startByte (param) of line is not where a piece of it can
// start.
func badStartByte(param string, at int64, line int, path string, res text.Slice) error {
	return errcode.New(errcode.InvalidArgument, "%s %d is %s of line %d of %q (%d bytes): %s must be under the line's length and at a character's start, as a piece's marker gives it (bytes a–b: %s b)",
		param, at, res.BadFromByte, line, path, res.FromLineBytes, param, param)
}

// linesHead is how many lines a reply of lines has besides them: its
// header and the next call's (a note on hidden characters, longer, makes
// the reply over its limit and it is read again with fewer lines).
const linesHead = 3

// linesText is the text of a reply of lines: head, the lines of res
// (from line first, framed: text.FrameBytes; a line in pieces after its
// marker, text.PieceMarker) with the last one ended with "\n" for what
// follows, and the notes on their hidden characters and framed lines,
// which what names. content is the lines as they are, for the structured
// content.
func linesText(head string, res text.Slice, first int, what string) (t, content string, hidden *text.HiddenChars) {
	found := text.ScanText(res.Content, first)
	shown := text.FrameBytes(res.Content)
	var b strings.Builder
	b.Grow(len(head) + len(shown) + 200)
	b.WriteString(head)
	lines := shown
	for i, p := range res.Pieces {
		if p.Line == res.First && i == 0 {
			b.WriteString(text.PieceMarker(what, p))
			continue
		}
		// The last line's piece: its marker goes after the lines before it.
		cut := bytes.LastIndexByte(lines, '\n') + 1
		b.Write(lines[:cut])
		b.WriteString(text.PieceMarker(what, p))
		lines = lines[cut:]
	}
	b.Write(lines)
	if len(shown) > 0 && shown[len(shown)-1] != '\n' {
		b.WriteByte('\n')
	}
	if found.Found() {
		b.WriteString("[" + text.HiddenNote(what, found, text.Hidden{}, false) + "]\n")
	}
	b.WriteString(text.FramedNoteLine(what, "", text.Plain.FramedLines(res.Content, first)))
	t = b.String()
	content = string(res.Content)
	return t, content, text.NewHiddenChars(found, text.Hidden{})
}

// readFileNext is the call that reads on from line from (byte at of it),
// at the commit read (so a branch that moves cannot shift the lines), or
// in the work tree.
func (s *Server) readFileNext(in readFileIn, commit *string, from int, at int64) *paging.Call {
	in.StartLine, in.StartByte = from, at
	if commit != nil {
		in.Ref = *commit
	}
	return paging.Continue("read_file", in)
}

// ctxReader ends a read when its context does.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := context.Cause(c.ctx); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
