package paging

// The reply budget: every reply, error or not, must fit --max-bytes measured
// over the whole result as it goes over the wire (JSON-escaped, with the
// SDK's envelope). These are the reserves the tools keep and the ways they
// measure; docs/architecture.md, "Reply budget", explains them.

import (
	"encoding/json"
	"math"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

const (
	// NoteReserve is kept free in every reply for its notes (a stale
	// mirror, say), which are added after the tool has filled it.
	NoteReserve = 512
	// ErrorEnvelope is kept free in an error reply for the result's own
	// JSON around the message.
	ErrorEnvelope = 512
	// EnvelopeReserve covers what the SDK adds to a result after our
	// handler returns (`"resultType":"complete"` today) with room to spare.
	EnvelopeReserve = 64
	// MaxEscape is how much JSON escaping can grow text: a control byte
	// becomes \u00XX, six bytes.
	MaxEscape = 6
	// ErrorReserve is what an error listing files keeps free for the rest
	// of its message; the list takes half of what is left.
	ErrorReserve = 1024
	// MaxErrorChars bounds an error's text whatever the reply limit:
	// Claude Code cuts error text near 11,000 characters, and an error
	// that lists files points to the call that lists them instead.
	MaxErrorChars = 8000
	// LineSlack covers what a listed entry adds besides its name: status,
	// counts, separators and the text line that repeats it.
	LineSlack = 64
)

// NoNarrowing ends a TOO_LARGE error when nothing the call could pass
// would make the reply smaller: only the operator's limit can help.
const NoNarrowing = "no argument makes it smaller: the server's reply limit (--max-bytes) is too small for it"

// Budget is the reply limit and what a reply is measured with.
type Budget struct {
	// MaxBytes is the server's reply limit (--max-bytes).
	MaxBytes int
	// Structured: replies of tools with structured output send it
	// (--structured), beside the text.
	Structured bool
	// Envelope is the JSON size of a successful result with empty text
	// and no structured content, as the server sends it (measured once).
	Envelope int
}

// Wire is a reply as it is sent and measured: the text, the structured
// value (nil for text-only tools) and the call that continues it.
type Wire struct {
	Text       string
	Structured any
	Next       *Call
}

// Wirer is any reply a handler builds, whatever its structured type.
type Wirer interface{ Wire() Wire }

// ErrorRoom is how much of an error message a file list may take: half of
// what the reply limit leaves, and half of MaxErrorChars.
func (b Budget) ErrorRoom() int { return min(b.MaxBytes-ErrorReserve, MaxErrorChars) / 2 }

// ReplySize measures a reply as it would be sent, with room for notes: the
// size tools fit their replies to.
func (b Budget) ReplySize(r Wirer) int { return b.WireSize(r.Wire()) + NoteReserve }

// Fits: r, measured as sent, is within the limit.
func (b Budget) Fits(r Wirer) bool { return b.ReplySize(r) <= b.MaxBytes }

// WireSize is the size of w's result as it goes over the wire, counted
// without building it: a Paged diff's reply is measured on every part, and
// its text is most of the reply. The text is ended by its last lines
// (LastLines), the next call goes in _meta too, and with Structured the
// structured value is sent as well; one that cannot be encoded cannot be
// sent, and is past any limit.
func (b Budget) WireSize(w Wire) int {
	n := b.Envelope + text.JSONLen(w.Text) + EnvelopeReserve
	n += text.JSONLen(LastLines(w.Text, w.Next))
	if w.Next != nil {
		n += NextMetaSize(w.Next)
	}
	if w.Structured != nil && b.Structured {
		data, err := json.Marshal(w.Structured)
		if err != nil {
			return math.MaxInt / 2
		}
		n += len(`,"structuredContent":`) + len(data)
	}
	return n
}

// NextMetaSize is what the next call adds to a result's _meta; past any
// limit when it cannot be encoded.
func NextMetaSize(next any) int {
	data, err := json.Marshal(next)
	if err != nil {
		return 1 << 40
	}
	return len(`,"`+MetaKeyNext+`":`) + len(data)
}

// PayloadRoom is how much payload (counted in JSON) fits beside probe, a
// reply with everything but the payload at its largest. With Structured a
// tool with structured output sends the payload twice, in the text and in
// the structured content, so it has half the room.
func (b Budget) PayloadRoom(probe Wirer) int {
	room := b.MaxBytes - b.ReplySize(probe)
	if b.Structured && probe.Wire().Structured != nil {
		room /= 2
	}
	return room
}
