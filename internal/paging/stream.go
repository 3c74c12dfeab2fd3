package paging

import (
	"errors"
	"io"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// StreamRequest asks for one part of a diff read as a stream that cannot
// be read twice, nor restricted to a part's files: a forge's own diff of a
// pull request. The part is cut from the stream as it comes, from the
// start, so a later part costs what came before it; the cursor carries
// where it starts and what the previous part knew of a split file.
type StreamRequest struct {
	Start Pos
	Split SplitPos
	// Room is the patch's room, counted by Cost; at least MinPartRoom is
	// given.
	Room int
	Cost Cost
	Hide func(diff.Header) bool
	// CountRest counts the whole diff's files and bytes as it is read
	// past the part (the first part of a diff not narrowed to a file).
	CountRest bool
	// From is where src starts, when not at the diff's start, and
	// SectionAt is told where the sections passed begin
	// (diff.PageOptions).
	From      diff.Checkpoint
	SectionAt func(diff.Checkpoint)
}

// ReadStreamPart cuts q's part from src. The part's files are numbered as
// src has them; Total is left for the caller, who knows what src holds.
func ReadStreamPart(src io.Reader, q StreamRequest) (*Part, error) {
	page, err := diff.ReadPage(src, diff.PageOptions{
		Start: diff.Pos{File: q.Start.Change, Line: q.Start.Line, Byte: q.Start.Byte, LineBytes: q.Start.LineBytes}, Room: max(q.Room, MinPartRoom),
		Cost: q.Cost.Bytes, Frame: text.FramePatch, Hide: q.Hide, CountRest: q.CountRest,
		SizeLast: true, StartSize: q.Split.Bytes, From: q.From, SectionAt: q.SectionAt,
	})
	if errors.Is(err, diff.ErrBadPos) {
		return nil, ErrBadPosition()
	}
	if err != nil {
		return nil, err
	}
	part := &Part{Page: page}
	if len(page.Files) > 0 {
		part.First, part.Last = page.Files[0].Index, page.Files[len(page.Files)-1].Index
	}
	if page.Next != nil {
		part.Next = &Pos{Change: page.Next.File, Line: page.Next.Line, Byte: page.Next.Byte, LineBytes: page.Next.LineBytes}
	}
	part.SetSplit(q.Split)
	return part, nil
}
