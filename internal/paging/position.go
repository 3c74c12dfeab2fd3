package paging

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Pos is where a part starts: the index of a change in the diff's file
// list, the section of it (a type change has two) and the body line; in a
// line that comes in pieces, the bytes of it given already and its size
// (diff.Pos).
type Pos struct {
	Change, Section int
	Line            int64
	Byte, LineBytes int64
}

// SplitPos is what a part that starts inside a file, or the next part
// after one that ends inside a file, knows of it (zero: not known): which
// of the file's parts it is, and the size of the file's patch.
type SplitPos struct {
	Part  int
	Bytes int64
}

// SetSplit works out where the part is in the files it continues and
// goes on with, from what the previous part knew (at): the number of the
// first file's part and the size of its patch, and the same for the next
// part when it starts inside a file. A size the part did not read is
// carried from the part that did, in the cursor.
func (p *Part) SetSplit(at SplitPos) {
	files := p.Page.Files
	if len(files) == 0 {
		return
	}
	first := files[0]
	if first.Continued {
		p.Split = SplitPos{Part: at.Part, Bytes: first.Size}
	}
	if p.Next == nil || p.Next.Line == 0 {
		return
	}
	last := files[len(files)-1]
	p.NextSplit = SplitPos{Part: 2, Bytes: last.Size}
	if last.Index == first.Index && first.Continued {
		p.NextSplit.Part = 0 // not known when this part's is not
		if p.Split.Part > 0 {
			p.NextSplit.Part = p.Split.Part + 1
		}
	}
}

// Range says which files a part holds, and where it is in a file it
// continues or goes on with: "files 3–5 of 9 (a.c continues from the
// previous part: its part 2 of 2, bytes 65537–70000 of 70000, old lines
// 300–350, new lines 310–372; c.c goes on in the next part: its part 1,
// bytes 1–40000 of 123456, old lines 1–500, new lines 1–520)".
func (p *Part) Range() string {
	if len(p.Page.Files) == 0 {
		return "no file in this part"
	}
	from, to := p.First+1, p.Last+1
	s := fmt.Sprintf("files %d–%d of %d", from, to, p.Total)
	if from == to {
		s = fmt.Sprintf("file %d of %d", from, p.Total)
	}
	files := p.Page.Files
	first, last := files[0], files[len(files)-1]
	// A type change's second section may go on in the next part: the
	// file goes on, but none of its sections is split.
	continues, goesOn := first.Continued, p.Next != nil && p.Next.Change == p.Last
	split := func(i int) string {
		if f := files[i]; !p.Terse && (f.Continued || !f.Complete) {
			return ": " + p.shareOf(i)
		}
		return ""
	}
	name := func(f diff.PageFile) string {
		if p.Terse {
			return strconv.Itoa(f.Index - files[0].Index + from)
		}
		return text.NoteName(SectionName(f.Header))
	}
	var notes []string
	switch {
	case continues && goesOn && len(files) == 1:
		notes = append(notes, name(first)+" continues from the previous part into the next"+split(0))
	default:
		if continues {
			notes = append(notes, name(first)+" continues from the previous part"+split(0))
		}
		if goesOn {
			notes = append(notes, name(last)+" goes on in the next part"+split(len(files)-1))
		}
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// Share is where a part's share of a file split over parts is in it.
type Share struct {
	Part, Parts int   // which of the file's parts, and of how many (0: not known)
	From, To    int64 // bytes of the file's patch it holds: [from, to)
	Size        int64 // the patch's size (0: not known)
	Old, New    diff.LineSpan
}

// ShareAt is where the part's file i is in its file's patch. The number
// of the file's parts is known in its last part only: how later parts cut
// the rest depends on the room each is given.
func (p *Part) ShareAt(i int) Share {
	f := p.Page.Files[i]
	sh := Share{Part: 1, From: f.From, To: f.To, Size: f.Size, Old: f.Old, New: f.New}
	if i == 0 && f.Continued {
		sh.Part = p.Split.Part
	}
	if f.Complete {
		sh.Parts = sh.Part
	}
	return sh
}

// shareOf words ShareAt(i): "its part 3, bytes 131073–196608 of 1234567,
// old lines 1200–1799, new lines 1200–1949".
func (p *Part) shareOf(i int) string {
	sh := p.ShareAt(i)
	var words []string
	switch {
	case sh.Parts > 0:
		words = append(words, fmt.Sprintf("its part %d of %d", sh.Part, sh.Parts))
	case sh.Part > 0:
		words = append(words, fmt.Sprintf("its part %d", sh.Part))
	}
	bytes := fmt.Sprintf("bytes %d–%d", sh.From+1, sh.To)
	if sh.Size > 0 {
		bytes += fmt.Sprintf(" of %d", sh.Size)
	}
	words = append(words, bytes)
	for _, side := range []struct {
		name string
		span diff.LineSpan
	}{{"old", sh.Old}, {"new", sh.New}} {
		if side.span.First > 0 {
			words = append(words, fmt.Sprintf("%s lines %d–%d", side.name, side.span.First, side.span.Last))
		}
	}
	return strings.Join(words, ", ")
}

// CursorAt puts where the next part starts in c.
func (p *Part) CursorAt(c *Cursor) {
	c.File, c.Section, c.Line = p.Next.Change, p.Next.Section, p.Next.Line
	c.Byte, c.LineBytes = p.Next.Byte, p.Next.LineBytes
	if !p.Terse {
		c.Split, c.SplitBytes = p.NextSplit.Part, p.NextSplit.Bytes
	}
}

// Start is where the part a cursor asks for starts.
func (c Cursor) Start() Pos {
	return Pos{Change: c.File, Section: c.Section, Line: c.Line, Byte: c.Byte, LineBytes: c.LineBytes}
}

// SplitOf is what a cursor says of the file its part starts inside.
func SplitOf(c Cursor) SplitPos { return SplitPos{Part: c.Split, Bytes: c.SplitBytes} }
