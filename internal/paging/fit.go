package paging

import (
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// patchRoom is the room a part's patch is given: what the reply leaves,
// within maxBytes when set, and at least MinPartRoom so that a part moves
// on.
func patchRoom(room, maxBytes int) int {
	if maxBytes > 0 {
		room = min(room, maxBytes)
	}
	return max(room, MinPartRoom)
}

// notesSlack is the room a part's reply keeps for its notes at first: most
// parts have few or none. A part whose notes are longer is read again with
// the room they leave (PartWithNotes).
const notesSlack = 512

// PartWithNotes reads a part in the room a reply leaves beside its header
// and next call (and within maxBytes, when set), with its notes: first
// leaving notesSlack for them, and again with less room when they are
// longer. A part with less room holds a prefix of the files, so its notes
// are no longer than the first part's. It returns the patch room the part
// was read in too.
func PartWithNotes(room, maxBytes int, read func(room int) (*Part, error), notes func(*Part) string) (*Part, string, int, error) {
	first := patchRoom(room-notesSlack, maxBytes)
	part, err := read(first)
	if err != nil {
		return nil, "", 0, err
	}
	n := notes(part)
	if cost := text.JSONLen(n); cost > notesSlack && patchRoom(room-cost, maxBytes) < first {
		first = patchRoom(room-cost, maxBytes)
		if part, err = read(first); err != nil {
			return nil, "", 0, err
		}
		n = notes(part)
	}
	return part, n, first, nil
}

// maxRefits is how many times FitPart reads a part again: from the patch
// cache, as the first read filled it.
const maxRefits = 6

// FitPart reads a part (PartWithNotes) and builds its reply, then fits it
// by its measure. The room is reckoned before the part is read, with the
// header, notes and next call at their longest, and with --structured
// each file's fields are sent beside its patch, which it did not count: a
// reply over the limit is read again with less room, and one that left out
// what more room could hold (a file's header lines, lines as "longer than a
// whole reply") again with more; at a small limit the estimate left a
// 160-byte path's header lines out of every part, and 36-byte lines. Less
// room leaves more out (and its notes can make the reply longer), more
// room makes the patch longer: between a room too small and one too large
// it bisects. It returns the first reply that fits and leaves nothing out,
// or else the one that fit in the most room.
//
// Where a part is in the files it splits (Part.terse) takes a few
// hundred bytes: at the smallest limits that can leave a file's header
// lines out, so a part that left something out is fitted again without it.
func FitPart[R Wirer](b Budget, room, maxBytes int, read func(room int) (*Part, error), notes func(*Part) string, build func(*Part, string) R) (R, error) {
	r, got, err := fitPartOnce(b, room, maxBytes, read, notes, build)
	if err != nil || got == fitWhole {
		return r, err
	}
	if wide := b.Widened(); wide.MaxBytes > b.MaxBytes {
		// The call asked for less than its client is sent, and what the
		// part left out is larger than that: it comes whole, in the room
		// the client's budget leaves.
		if w, got, err := fitPartOnce(wide, room+wide.MaxBytes-b.MaxBytes, maxBytes, read, notes, build); err == nil && got == fitWhole {
			return w, nil
		}
	}
	terse := func(room int) (*Part, error) {
		p, err := read(room)
		if p != nil {
			p.Terse = true
		}
		return p, err
	}
	t, tgot, err := fitPartOnce(b, room, maxBytes, terse, notes, build)
	if err == nil && (tgot == fitWhole || tgot == fitLeavesOut && got == fitOver) {
		return t, nil
	}
	// r is over the limit only when no room gave a reply that fits: the
	// backstop (toolcall) refuses it.
	return r, nil
}

// How a fitted part came out: over the limit, within it but leaving out
// what more room could hold, or within it and whole.
type fitted int

const (
	fitOver fitted = iota
	fitLeavesOut
	fitWhole
)

// fitPartOnce is FitPart's fitting. A part with more after it that fits
// with more than a fillSlack-th of the budget to spare is read again with
// that room too, so that parts are full: every empty byte is one more call.
//
// A reply over the limit is read again with less room whatever it left
// out: more room never makes it shorter. (It was read with more, because
// it left a line out, and a part of prometheus' pull request 4679, whose
// header was longer than its probe, grew on every read and was refused.)
// When no room in the bisection fits, the least room a part is given is
// tried last.
func fitPartOnce[R Wirer](b Budget, room, maxBytes int, read func(room int) (*Part, error), notes func(*Part) string, build func(*Part, string) R) (_ R, _ fitted, _ error) {
	part, partNotes, patch, err := PartWithNotes(room, maxBytes, read, notes)
	if err != nil {
		return *new(R), fitOver, err
	}
	var fit, best *R // the fullest reply that fits and leaves nothing out; the one that fit in the most room
	fitRoom, bestRoom := -1, -1
	small, large := -1, -1 // the most room too small (something left out, or room to spare), the least too large (-1: none yet)
	for refit := 0; ; refit++ {
		r := build(part, partNotes)
		spare := b.MaxBytes - b.ReplySize(r)
		lost := LostToRoom(part.Page)
		if spare >= 0 && !lost {
			if patch > fitRoom {
				fit, fitRoom = &r, patch
			}
			if part.Next == nil || spare <= b.MaxBytes/fillSlack {
				return *fit, fitWhole, nil
			}
		}
		if spare >= 0 && patch > bestRoom {
			best, bestRoom = &r, patch
		}
		if b.Structured && r.Wire().Structured != nil && spare > 0 {
			spare /= 2 // the patch is sent twice
		}
		next := patch + spare
		switch {
		case spare < 0:
			large = patch
			// Less room than the patch used, by what is over: room the
			// cut did not use would read the same part again (a part of
			// prometheus' pull request 1054 was 4 bytes over on every
			// read, and came out nearly empty after the last).
			next = min(patch, b.Cost().Bytes(part.Page.Text)) + spare
		case lost:
			small, next = patch, patch+max(spare, MinPartRoom)
			if maxBytes > 0 {
				// The call asked for small parts: the room grows only
				// as far as the header lines left out need (within
				// lostGrowth times), not to the whole reply's, which
				// held the whole diff for any maxBytes under a 280-byte
				// line.
				next = min(next, patch*lostGrowth)
			}
		default:
			small = patch // fits, with room to fill
		}
		if large >= 0 && small >= 0 {
			next = small + (large-small)/2
		}
		if lost {
			// A line or a file's header lines longer than maxBytes
			// come whole, in the room the reply has.
			next = max(next, MinPartRoom)
		} else {
			next = patchRoom(next, maxBytes)
		}
		if refit >= maxRefits || next == patch || next <= small || (large >= 0 && next >= large) {
			switch {
			case fit != nil:
				return *fit, fitWhole, nil
			case best != nil:
				return *best, fitLeavesOut, nil
			case patch > MinPartRoom:
				// Nothing read so far fits: the least room.
				next, small = MinPartRoom, -1
			default:
				return r, fitOver, nil // the backstop refuses it (toolcall)
			}
		}
		patch = next
		if part, err = read(patch); err != nil {
			return *new(R), fitOver, err
		}
		partNotes = notes(part)
	}
}

// lostGrowth is how many times more room a part with a small maxBytes is
// read in again when it left a line or a file's header lines out: such a
// part holds at most lostGrowth times what the item needs beside it, and
// maxRefits growths reach past a megabyte from MinPartRoom.
const lostGrowth = 4

// fillSlack: a part is full when what it leaves of its budget is at most
// a fillSlack-th of it.
const fillSlack = 100

// LostToRoom: the part left out a file's header lines or a line as longer
// than its room.
func LostToRoom(p *diff.Page) bool {
	for _, f := range p.Files {
		if f.Omitted || len(f.LongLines) > 0 {
			return true
		}
	}
	return false
}

// MinPartRoom is the least patch room a part is given, so that a small
// maxBytes still moves on.
const MinPartRoom = 256
