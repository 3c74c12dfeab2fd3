package server

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// The parts of a folded diff, in three stretches: its patterns (the
// server's own lines) cut after a line, a line too long for a part in
// pieces as read_file gives them; git's diff of the rest, cut as any diff
// is; then the sites, cut as the patterns are. A part that ends one
// stretch goes on with the next when room is left. A cursor's Folded says
// where the next part starts (foldedView.locate): in the patterns, in the
// rest (at the position its other fields hold), or in the sites.

// foldedCall is one call for a part of a folded diff.
type foldedCall struct {
	fv       *foldedView
	cur      paging.Cursor // the call's cursor; zero for the first part
	first    bool
	place    partPlace
	title    string // what every part's first line starts with: "o/r: diff a..b"
	preamble string // what the first part shows before the diff (get_commit's commit)
	maxBytes int
	// next is the call that goes on from c, which has the positions and
	// the part's place set; the tool adds what it pins and carries.
	next func(c paging.Cursor) *paging.Call
	// notes are the notes of a part of the rest (paging.Part.Notes).
	notes func(*paging.Part) string
	hide  func(diff.Header) bool
	// lineNumbers numbers the rest's hunk lines (diff_numbers.go).
	lineNumbers bool
	// count calls for a part from a cursor, to count the parts; countKey
	// names the diff and the call.
	count    partCall
	countKey string
}

// foldedPart is the part fc asks for, as the tool's reply (wrap, which
// is given the part's share of the folded text as well). A first part of
// several is counted (partcount.go) and made again saying how many.
func foldedPart[R paging.Wirer](ctx context.Context, s *Server, fc foldedCall, wrap func(textReply, string) R) (R, error) {
	res, more, err := foldedPartOnce(ctx, s, fc, wrap)
	if _, counting := assumedParts(ctx); err != nil || !fc.first || !more || counting || fc.count == nil {
		return res, err
	}
	key := fmt.Sprintf("folded %s %d", fc.countKey, fc.maxBytes)
	if fc.place.n = s.countParts(ctx, key, fc.fv.files, guessParts(s.budget(ctx), int64(fc.fv.bytes())), fc.count); fc.place.n > 0 {
		res, _, err = foldedPartOnce(ctx, s, fc, wrap)
	}
	return res, err
}

// foldedPartOnce is foldedPart without the count; more: a part follows.
func foldedPartOnce[R paging.Wirer](ctx context.Context, s *Server, fc foldedCall, wrap func(textReply, string) R) (_ R, more bool, _ error) {
	var zero R
	fv, b := fc.fv, s.budget(ctx)
	zone, at, ok := fv.locate(fc.cur.Folded)
	if !ok {
		return zero, false, paging.ErrCursor("is damaged or was edited")
	}
	probe := wrap(textReply{Text: fc.preamble + fc.title + strings.Repeat("x", 300), Next: fc.nextAt(paging.Cursor{Folded: 1})}, "")
	room := b.PayloadRoom(probe)
	if fc.maxBytes > 0 {
		room = min(room, max(fc.maxBytes, 256))
	}
	var sh foldedShare // what the part holds so far
	finish := func(sh foldedShare, next *paging.Call) R {
		return wrap(fc.reply(sh.body, strings.Join(sh.about, ", then "), next), sh.shown)
	}
	// takeLines adds the lines of l from at, all of them when they fit
	// with spare room left (whole), else as many as fit, and the call
	// that goes on after them.
	takeLines := func(l lineShare, spare int, nextAt func(end int) *paging.Call) (next *paging.Call, whole bool) {
		all := len(l.text)
		if w := sh.with(l, all); b.Len(w.shown)+spare <= room && b.ReplySize(finish(w, nextAt(all)))+spare <= b.MaxBytes {
			sh = w
			return nextAt(all), true
		}
		end := l.fit(room, func(end int) bool {
			w := sh.with(l, end)
			return b.Len(w.shown) <= room && b.Fits(finish(w, nextAt(end)))
		})
		sh = sh.with(l, end)
		return nextAt(end), false
	}
	tailAt := func(end int) *paging.Call {
		if end == len(fv.tail) {
			return nil
		}
		return fc.nextAt(paging.Cursor{Folded: len(fv.head) + 1 + end})
	}
	if zone == zoneHead {
		spare := 0
		if len(fv.rest) > 0 {
			spare = paging.MinPartRoom
		}
		next, whole := takeLines(lineShare{text: fv.head, what: "the patterns", from: at}, spare, func(end int) *paging.Call {
			if end < len(fv.head) {
				return fc.nextAt(paging.Cursor{Folded: end})
			}
			if len(fv.rest) > 0 {
				return fc.nextAt(paging.Cursor{Folded: len(fv.head)})
			}
			return tailAt(0)
		})
		if !whole || len(fv.rest) == 0 && next == nil {
			return finish(sh, next), next != nil, nil
		}
		zone, at = zoneRest, 0
		if len(fv.rest) == 0 {
			zone = zoneTail
		}
	}
	if zone == zoneRest {
		res, restSh, next, ended, err := foldedRest(ctx, s, fc, sh, room, finish, tailAt)
		if err != nil || !ended || len(fv.tail) == 0 {
			return res, next != nil, err
		}
		// The rest ends in this part: the sites go on in it, as far as
		// whole lines of them fit.
		sh = restSh
		tnext, _ := takeLines(lineShare{text: fv.tail, what: "the sites"}, 0, tailAt)
		if added := sh.shown[len(restSh.shown):]; added == "" || strings.HasPrefix(added, text.PieceOpener) || !b.Fits(finish(sh, tnext)) {
			return res, true, nil
		}
		return finish(sh, tnext), tnext != nil, nil
	}
	next, _ := takeLines(lineShare{text: fv.tail, what: "the sites", from: at}, 0, tailAt)
	return finish(sh, next), next != nil, nil
}

// foldedShare is what a part of a folded diff holds so far: its text
// (with notes), the folded text it shows, and what it says it holds.
type foldedShare struct {
	body, shown string
	about       []string
}

// with is sh and l's lines from l.from to end.
func (sh foldedShare) with(l lineShare, end int) foldedShare {
	shown := l.show(end)
	sh.body += l.withNotes(end, shown)
	sh.shown += shown
	sh.about = append(slices.Clip(sh.about), l.about(end))
	return sh
}

// foldedRest adds to sh a part of the rest: from its start when sh holds
// the patterns, else from the cursor. It returns the reply, what it holds,
// its next call (tailAt(0) when the rest ends in it) and whether the rest
// ends in it.
func foldedRest[R paging.Wirer](ctx context.Context, s *Server, fc foldedCall, sh foldedShare, room int, finish func(foldedShare, *paging.Call) R, tailAt func(int) *paging.Call) (_ R, _ foldedShare, _ *paging.Call, ended bool, _ error) {
	fv := fc.fv
	q := paging.StreamRequest{Hide: fc.hide, Cost: s.budget(ctx).Cost()}
	if sh.shown == "" {
		q.Start, q.Split = fc.cur.Start(), paging.SplitOf(fc.cur)
	}
	read := func(room int) (*paging.Part, error) {
		q.Room = room
		part, err := paging.ReadStreamPart(bytes.NewReader(fv.rest), q)
		if err != nil {
			return nil, err
		}
		part.Total = fv.restFiles
		return part, nil
	}
	// FitPart builds several parts and returns one: each build's share
	// and next call are kept by its text.
	type built struct {
		sh    foldedShare
		next  *paging.Call
		ended bool
	}
	builds := map[string]built{}
	build := func(part *paging.Part, notes string) R {
		next := tailAt(0)
		if part.Next != nil {
			c := paging.Cursor{Folded: len(fv.head)}
			part.CursorAt(&c)
			next = fc.nextAt(c)
		}
		patch, note := shownPatch(fc.lineNumbers, part)
		got := sh
		got.body += patch + note + notes
		got.shown += patch
		got.about = append(slices.Clip(got.about), "the rest, "+part.Range())
		r := finish(got, next)
		builds[r.Wire().Text] = built{got, next, part.Next == nil}
		return r
	}
	res, err := paging.FitPart(s.budget(ctx), room-s.budget(ctx).Len(sh.shown), 0, read, fc.notes, build)
	if err != nil {
		return res, foldedShare{}, nil, false, err
	}
	got := builds[res.Wire().Text]
	return res, got.sh, got.next, got.ended, nil
}

// nextAt is the call that goes on from c.
func (fc foldedCall) nextAt(c paging.Cursor) *paging.Call {
	fc.place.carry(&c)
	return fc.next(c)
}

// reply is a part's reply: its first line, which says what the part holds
// (about) when the diff comes in parts, then body (the head's lines and
// their notes, the rest's patch and its notes).
func (fc foldedCall) reply(body, about string, next *paging.Call) textReply {
	var b strings.Builder
	b.WriteString(fc.preamble)
	fv := fc.fv
	b.WriteString(fc.title)
	if fc.first {
		fmt.Fprintf(&b, ": %s changed, %d bytes of patch, folded by collapseRepeated to %d bytes", text.Count(fv.files, "file"), fv.patchBytes, fv.bytes())
	} else {
		b.WriteString(", folded by collapseRepeated")
	}
	if next != nil || !fc.first {
		b.WriteString("; " + fc.place.String() + ": " + about)
	}
	b.WriteString("\n")
	b.WriteString(body)
	return textReply{Text: b.String(), Next: next}
}

// lineShare is the folded text's own lines (its patterns, or its sites)
// from a byte of them on.
type lineShare struct {
	text []byte
	what string // "the patterns", "the sites": in notes and piece markers
	from int
}

// line is the line from is on, from 1.
func (l lineShare) line() int { return bytes.Count(l.text[:l.from], []byte("\n")) + 1 }

// show is the bytes from..end as a part shows them: each line framed
// (text.FrameBytes: a site's new text may hold a CR and a note after it),
// a piece of a line after its marker, as read_file shows one.
func (l lineShare) show(end int) string {
	var b strings.Builder
	line, at := l.line(), l.from
	for at < end {
		lineEnd := len(l.text)
		if eol := bytes.IndexByte(l.text[at:], '\n'); eol >= 0 {
			lineEnd = at + eol
		}
		start := bytes.LastIndexByte(l.text[:at], '\n') + 1
		to := min(end, lineEnd)
		if at > start || to < lineEnd {
			b.WriteString(text.PieceMarker(l.what, text.Piece{Line: line, From: int64(at - start), To: int64(to - start), Bytes: int64(lineEnd - start)}))
		}
		b.Write(text.FrameBytes(l.text[at:to]))
		b.WriteString("\n")
		if to < lineEnd {
			break
		}
		at, line = to+1, line+1
	}
	return b.String()
}

// withNotes is shown (show(end)) with the notes of its framed lines and
// hidden characters.
func (l lineShare) withNotes(end int, shown string) string {
	raw, first := l.text[l.from:end], l.line()
	framed := text.FramedNoteLine(l.what, "", text.Plain.FramedLines(raw, first))
	hidden := ""
	if found := text.ScanText(raw, first); found.Found() {
		hidden = "[" + text.HiddenNote(l.what, found, text.Hidden{}, false) + "]\n"
	}
	return shown + hidden + framed
}

// about says which lines the share up to end holds.
func (l lineShare) about(end int) string {
	first := l.line()
	last := first + bytes.Count(l.text[l.from:end], []byte("\n")) - 1
	if end > 0 && l.text[end-1] != '\n' {
		last++ // a piece of a line
	}
	lines := fmt.Sprintf("lines %d–%d", first, last)
	if last <= first {
		lines = fmt.Sprintf("line %d", first)
	}
	return fmt.Sprintf("%s of %s (%d lines)", lines, l.what, bytes.Count(l.text, []byte("\n")))
}

// fit is where the longest share from l.from that fits ends: after whole
// lines when one fits, else inside the first line, on a character's
// boundary; never at l.from, so that every part goes on.
func (l lineShare) fit(room int, fits func(end int) bool) int {
	var ends []int
	for at := l.from; at < len(l.text); {
		eol := bytes.IndexByte(l.text[at:], '\n')
		if eol < 0 {
			ends = append(ends, len(l.text))
			break
		}
		at += eol + 1
		ends = append(ends, at)
		if at-l.from > 4*room+1024 { // more than any part holds
			break
		}
	}
	lo, hi := 0, len(ends)+1 // ends[lo-1] fits, ends[hi-1] does not
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(ends[mid-1]) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo > 0 {
		return ends[lo-1]
	}
	lineEnd := len(l.text)
	if eol := bytes.IndexByte(l.text[l.from:], '\n'); eol >= 0 {
		lineEnd = l.from + eol
	}
	line := l.text[l.from:lineEnd]
	a, z := 0, len(line) // a cut after a bytes fits (or is the least), after z+1 does not
	for z > a {
		mid := (a + z + 1) / 2
		if cut := text.CutPoint(line, mid); cut > 0 && fits(l.from+cut) {
			a = mid
		} else {
			z = mid - 1
		}
	}
	cut := text.CutPoint(line, a)
	if cut == 0 {
		// Not one character fits: one goes anyway, and the reply's
		// backstop says it is too large.
		_, cut = utf8.DecodeRune(line)
	}
	if cut == len(line) && lineEnd < len(l.text) {
		cut++ // the line's end: its newline too
	}
	return l.from + cut
}
