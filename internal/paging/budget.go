package paging

// The reply budget: every reply, error or not, must fit --max-bytes measured
// over the whole result as it goes over the wire (JSON-escaped, with the
// SDK's envelope), and the budget of the client that reads it measured as
// clients measure a result: what they give their model (SeenSize,
// Budget.Measure).
// These are the reserves the tools keep and the ways they measure;
// docs/architecture.md, "Reply budget", explains them.

import (
	"context"
	"encoding/json"
	"math"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

const (
	// NoteReserve is the most a reply keeps free for its notes (a stale
	// mirror, say), which are added after the tool has filled it; a small
	// budget keeps less (Budget.NoteRoom).
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

// Budget is the reply limit of one call and what a reply is measured with.
type Budget struct {
	// MaxBytes is the call's reply limit: what the client that reads the
	// reply passes whole (internal/clients), within --max-bytes, or less
	// when the call asks for less (maxBytes). While it is under Whole it
	// is counted in Unit, the client's own; else as JSON on the wire.
	MaxBytes int
	// Unit is what the client that reads the reply counts its text in.
	Unit text.Unit
	// Whole is the most the whole result may be on the wire: --max-bytes.
	// While MaxBytes is less, MaxBytes is measured as a client measures a
	// result (SeenSize: no client gives its model the result's _meta); 0
	// or MaxBytes: both measure the whole result.
	Whole int
	// MaxLines, when not 0, is the most lines a reply's text may have.
	MaxLines int
	// Items, when not 0, is the most each text item of a reply may hold,
	// counted in Unit: the client takes each item by itself (VS Code), so
	// the reply's text goes in as many items as it needs (text.Items), and
	// MaxBytes is the whole reply's. Each item costs the wire ItemEnvelope.
	Items int
	// Ceiling is what a part may take that holds one item larger than
	// MaxBytes alone (a long line, a long name): the client's own budget
	// when the call asked for less, else MaxBytes.
	Ceiling int
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
// size tools fit their replies to. A reply with more lines than MaxLines
// measures over the limit by what a cut in proportion to its lines would
// drop, so that a tool fitting it by size gives it about as many lines as
// it may have.
func (b Budget) ReplySize(r Wirer) int {
	w := r.Wire()
	n := b.Measure(b.WireSize(w), SeenSize(w, b.Structured, b.Unit)) + b.NoteRoom() + b.itemsRoom()
	if b.MaxLines > 0 {
		if lines := LineCount(w) + NoteLines; lines > b.MaxLines {
			// Over by what a cut in proportion to the lines drops.
			n = max(n, b.MaxBytes) + n - n*b.MaxLines/lines + 2
		}
	}
	return n
}

// NoteRoom is what a reply keeps free for its notes: NoteReserve, or a
// 64th of a smaller budget, at least 128 bytes (a note is a line of about
// 100), so that small replies are not a sixteenth empty. Notes may take
// what a reply leaves besides, up to NoteReserve (internal/toolcall).
func (b Budget) NoteRoom() int { return min(NoteReserve, max(b.MaxBytes/64, 128)) }

// ItemEnvelope is what one more text item adds to a result's JSON.
const ItemEnvelope = len(`,{"type":"text","text":""}`)

// itemsRoom is what a reply keeps free for the envelopes of its text items
// (Items): each but the last is at least half full, but for a few
// characters kept off a cut that would start the next as the server's own
// line (text.Items).
func (b Budget) itemsRoom() int {
	if b.Items == 0 {
		return 0
	}
	return ItemEnvelope * (b.MaxBytes/max(1, b.Items/2-32) + 1)
}

// NoteLines is what a reply's line count keeps free for its notes: within
// NoteReserve bytes, each note a line of at least 9 ("\n[note: ]").
const NoteLines = NoteReserve / 9

// LineCount is the number of lines of w's text as sent, its last lines
// included.
func LineCount(w Wire) int {
	return strings.Count(w.Text, "\n") + strings.Count(LastLines(w.Text, w.Next), "\n") + 1
}

// LineRoom is how many lines a payload may have beside a reply's other
// lines (head of them); 0 when lines are not limited.
func (b Budget) LineRoom(head int) int {
	if b.MaxLines == 0 {
		return 0
	}
	return max(1, b.MaxLines-NoteLines-head)
}

// Widened is the budget of a part that holds one item larger than
// MaxBytes alone: its Ceiling.
func (b Budget) Widened() Budget {
	b.MaxBytes = max(b.MaxBytes, b.Ceiling)
	return b
}

type budgetKey struct{}

// WithBudget is ctx carrying the call's budget (internal/toolcall sets it).
func WithBudget(ctx context.Context, b Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// BudgetOf is the call's budget that ctx carries, else fallback.
func BudgetOf(ctx context.Context, fallback Budget) Budget {
	if b, ok := ctx.Value(budgetKey{}).(Budget); ok {
		return b
	}
	return fallback
}

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

// Measure is a reply's size against MaxBytes, from its size on the wire
// and its size as clients see it (SeenSize): the seen size while MaxBytes
// is under Whole, unless the wire size is the nearer to Whole; the wire
// size otherwise. A reply measured within MaxBytes is so within Whole on
// the wire too.
func (b Budget) Measure(wire, seen int) int {
	if b.Whole <= b.MaxBytes {
		return wire
	}
	return max(seen, wire-(b.Whole-b.MaxBytes))
}

// SeenReserve covers what a client puts around a result before its model
// reads it: Codex's "Wall time: … seconds\nOutput:\n" (37 bytes up to
// 9,999 seconds) around the content array's JSON. WrapperReserve is Gemini
// CLI's 41-unit <untrusted_context> wrapper around the text.
const (
	SeenReserve    = 40
	WrapperReserve = 41
)

// seenEnvelope is the content array around one text part, as JSON.
const seenEnvelope = len(`[{"type":"text","text":""}]`)

// SeenSize is w as a client that counts in unit u gives it to its model
// (docs/clients.md): in JSON, the content array's with SeenReserve
// (Codex); in a unit of text, the text's with WrapperReserve (VS Code,
// Gemini CLI, opencode). The structured content's JSON is added when it is
// sent (Copilot CLI counts both; VS Code shows it in place of the text,
// and its JSON is at least its UTF-16 units); never the result's _meta.
func SeenSize(w Wire, structured bool, u text.Unit) int {
	n := WrapperReserve
	if u == text.JSONBytes {
		n = SeenReserve + seenEnvelope
	}
	_, t := text.Lengths(w.Text, u)
	_, l := text.Lengths(LastLines(w.Text, w.Next), u)
	n += t + l
	if w.Structured != nil && structured {
		data, err := json.Marshal(w.Structured)
		if err != nil {
			return math.MaxInt / 2
		}
		n += len(data)
	}
	return n
}

// Cost is what a payload costs against a budget's MaxBytes
// (Budget.Cost): its length in the client's unit, or its JSON scaled to
// MaxBytes' share of Whole, whichever is more, so that a payload within
// the budget by the client's count is within --max-bytes as JSON too. The
// zero Cost counts JSON. It is comparable, so that a part cut ahead is
// known to be cut at the cost of the call that takes it.
type Cost struct {
	unit         text.Unit
	share, whole int
}

// Cost is what payloads cost against b: in JSON when b is counted in
// JSON, or on the wire (MaxBytes at Whole).
func (b Budget) Cost() Cost {
	if b.Unit == text.JSONBytes || b.Whole <= b.MaxBytes {
		return Cost{}
	}
	return Cost{b.Unit, b.MaxBytes, b.Whole}
}

// Len is what s costs against b's MaxBytes (Cost).
func (b Budget) Len(s string) int { return b.Cost().Len(s) }

// Len is what s costs; Bytes what p does (diff.PageOptions.Cost).
func (c Cost) Len(s string) int   { return costOf(c, s) }
func (c Cost) Bytes(p []byte) int { return costOf(c, p) }

// Span is the most bytes a text that costs at most room can have: a
// character of three bytes is one UTF-16 unit.
func (c Cost) Span(room int) int {
	if c.unit == text.UTF16Units {
		return 3 * room
	}
	return room
}

func costOf[B []byte | string](c Cost, s B) int {
	j, n := text.Lengths(s, c.unit)
	if c.whole == 0 {
		return j
	}
	// Each piece rounds up: a sum of pieces is never under the whole's.
	return max(n, (j*c.share+c.whole-1)/c.whole)
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

// PayloadRoom is how much payload (counted by Budget.Cost) fits beside probe, a
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

// Roomy is b, or its Ceiling (Widened) where the call's maxBytes leaves
// less than a quarter of the reply beside the lines probe holds: a long
// path stands in a part's header, in a piece's marker and in its next
// call, and pieces of a few bytes would take thousands of calls.
func (b Budget) Roomy(probe Wirer) Budget {
	if b.Ceiling > b.MaxBytes && b.PayloadRoom(probe) < b.MaxBytes/4 {
		return b.Widened()
	}
	return b
}

// ReplyLimit is the maxBytes argument of every paged tool whose parts are
// not a patch's (those have their own: the patch bytes of a part): a call
// that wants smaller replies than its client is sent. internal/toolcall
// applies it to the call's budget, within the client's and at least
// toolcall.MinReplyBytes; an item larger than it still comes whole, in a
// part of its own up to the client's budget.
type ReplyLimit struct {
	MaxBytes int `json:"maxBytes,omitempty" jsonschema:"reply bytes (0: client's limit; raised to 2048 if less)"`
}

// ReplyBytes is the reply limit the call asks for (0: none).
func (l ReplyLimit) ReplyBytes() int { return l.MaxBytes }
