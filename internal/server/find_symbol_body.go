package server

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// bodies is a reply of definitions with their whole text (include=body):
// as many whole ones as fit from at.File on; one that does not fit alone
// comes in parts, each from where the last stopped (at.Line, and at.Byte
// inside a line in pieces), as read_file's lines do.
func (f *symbolFinder) bodies(ctx context.Context, at paging.Cursor) (reply[findSymbolOut], error) {
	i := at.File
	if i == len(f.all) {
		return f.list(ctx, i)
	}
	if at.Line == 0 {
		whole, err := f.wholeBodies(ctx, i)
		if err != nil {
			return reply[findSymbolOut]{}, err
		}
		if len(whole) > 0 {
			rep := paging.FitList(f.s.budget(ctx), len(whole), func(n int) reply[findSymbolOut] { return f.bodiesReply(i, whole[:n]) })
			if len(rep.Out.Matches) > 0 {
				return rep, nil
			}
		}
		at.Line = int64(f.all[i].StartLine)
	}
	return f.bodyPart(ctx, i, int(at.Line), at.Byte)
}

// shownBody is a definition's lines as a reply shows them.
type shownBody struct {
	m       symbolMatch
	heading string
	text    string // framed, with its notes
}

// wholeBodies reads the definitions from i on whose whole text fits one
// reply, while together they might.
func (f *symbolFinder) wholeBodies(ctx context.Context, i int) ([]shownBody, error) {
	b := f.s.budget(ctx)
	var out []shownBody
	used := 0
	for j := i; j < len(f.all) && used < b.MaxBytes && (f.q.in.Limit == 0 || j-i < f.q.in.Limit); j++ {
		m := f.all[j]
		res, err := f.bodySlice(ctx, m, m.StartLine, 0, b.MaxBytes)
		if err != nil {
			return nil, err
		}
		if res.Stopped || res.Binary || len(res.Pieces) > 0 {
			break
		}
		t, content, _ := linesText("", res, m.StartLine, text.Name(m.Path))
		m.Text = content
		used += b.Len(t)
		out = append(out, shownBody{m: m, heading: f.heading(j, m, m.StartLine), text: t})
	}
	return out, nil
}

// heading is the line before a definition's text: "--- definition 2 of 5:
// path 62–90 method Server.Start", with "lines 75–90 of" when it goes on.
func (f *symbolFinder) heading(j int, m symbolMatch, from int) string {
	lines := ""
	if from > m.StartLine {
		lines = fmt.Sprintf(", lines %d–%d of", from, m.EndLine)
	}
	entry := symbolEntry{Name: m.Name, Kind: m.Kind, StartLine: m.StartLine, EndLine: m.EndLine}.line()
	return fmt.Sprintf("--- definition %d of %d%s: %s %s", j+1, len(f.all), lines, text.Name(m.Path), entry)
}

// bodiesReply is a reply of whole definitions, the first at index i.
func (f *symbolFinder) bodiesReply(i int, shown []shownBody) reply[findSymbolOut] {
	o := f.out
	o.Offset = i
	o.Matches = make([]symbolMatch, len(shown))
	var b strings.Builder
	b.WriteString(f.head(i, len(shown)))
	for k, sb := range shown {
		o.Matches[k] = sb.m
		b.WriteString(sb.heading)
		b.WriteString(sb.text)
	}
	b.WriteString(f.notes())
	rep := reply[findSymbolOut]{Text: b.String(), Out: o}
	if i+len(shown) < len(f.all) {
		rep.Out.Status = "partial"
		rep.Next = f.next(paging.Cursor{File: i + len(shown)})
	}
	return rep
}

// bodyPart is a reply of the lines of definition i from line from (byte
// fromByte of it) that fit.
func (f *symbolFinder) bodyPart(ctx context.Context, i, from int, fromByte int64) (reply[findSymbolOut], error) {
	m := f.all[i]
	if from < m.StartLine || from > m.EndLine {
		return reply[findSymbolOut]{}, paging.ErrCursor("is damaged or was edited")
	}
	heading := f.heading(i, m, from)
	build := func(res text.Slice) reply[findSymbolOut] {
		o := f.out
		o.Offset = i
		t, content, _ := linesText(heading, res, from, text.Name(m.Path))
		shown := m
		shown.Text = content
		o.Matches = []symbolMatch{shown}
		rep := reply[findSymbolOut]{Text: f.head(i, 1) + t + f.notes(), Out: o}
		switch {
		case res.Stopped:
			line, at := nextLine(res)
			rep.Next = f.next(paging.Cursor{File: i, Line: int64(line), Byte: at})
		case i+1 < len(f.all):
			rep.Next = f.next(paging.Cursor{File: i + 1})
		}
		if rep.Next != nil {
			rep.Out.Status = "partial"
		}
		return rep
	}
	b := f.s.budget(ctx)
	probe := build(text.Slice{First: from, Last: m.EndLine, Stopped: true, Pieces: []text.Piece{{Line: m.EndLine, From: 1 << 40, To: 1 << 40, Bytes: 1 << 41}}})
	room := b.PayloadRoom(probe) - 2
	for attempt := 0; ; attempt++ {
		res, err := f.bodySlice(ctx, m, from, fromByte, room)
		if err != nil {
			return reply[findSymbolOut]{}, err
		}
		if res.BadFromByte != "" {
			return reply[findSymbolOut]{}, paging.ErrCursor("is damaged or was edited")
		}
		if res.Last < res.First {
			return reply[findSymbolOut]{}, errcode.New(errcode.TooLarge, "line %d of %s does not fit in one reply of %d bytes; read_file reads it", from, text.NoteName(m.Path), b.MaxBytes)
		}
		rep := build(res)
		if over := b.ReplySize(rep) - b.MaxBytes; over > 0 && attempt < 3 {
			room -= over
			continue
		}
		return rep, nil
	}
}

// bodySlice reads lines from..m.EndLine of m's file (from byte fromByte
// of the first) that fit room.
func (f *symbolFinder) bodySlice(ctx context.Context, m symbolMatch, from int, fromByte int64, room int) (text.Slice, error) {
	b := f.s.budget(ctx)
	var res text.Slice
	err := f.r.ReadAt(ctx, f.commit, f.commit, m.Path, func(blob git.Object, body io.Reader) error {
		var err error
		res, err = f.s.lines.Slice(blob, body, paging.LineRange{From: from, To: m.EndLine, FromByte: fromByte,
			Room: room, Lines: b.LineRoom(linesHead + 1), Cost: b.Cost(), What: text.NoteName(m.Path), PieceCost: pieceCost})
		return err
	})
	return res, err
}
