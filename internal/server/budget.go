package server

// The reply budget: every reply, error or not, must fit --max-bytes measured
// over the whole result as it goes over the wire (JSON-escaped, with the
// SDK's envelope). These are the reserves the tools keep and the ways they
// measure; docs/architecture.md, "Reply budget", explains them.

import "github.com/mcp-repo-tools/mcp-repo-tools/internal/text"

const (
	// noteReserve is kept free in every reply for its notes (a stale
	// mirror, say), which are added after the tool has filled it.
	noteReserve = 512
	// errorEnvelope is kept free in an error reply for the result's own
	// JSON around the message.
	errorEnvelope = 512
	// envelopeReserve covers what the SDK adds to a result after our
	// handler returns (`"resultType":"complete"` today) with room to spare.
	envelopeReserve = 64
	// maxEscape is how much JSON escaping can grow text: a control byte
	// becomes \u00XX, six bytes.
	maxEscape = 6
	// errorReserve is what an error listing files keeps free for the rest
	// of its message; the list takes half of what is left.
	errorReserve = 1024
	// maxErrorChars bounds an error's text whatever the reply limit:
	// Claude Code cuts error text near 11,000 characters, and an error
	// that lists files points to the call that lists them instead.
	maxErrorChars = 8000
	// lineSlack covers what a listed entry adds besides its name: status,
	// counts, separators and the text line that repeats it.
	lineSlack = 64
)

// noNarrowing ends a TOO_LARGE error when nothing the call could pass
// would make the reply smaller: only the operator's limit can help.
const noNarrowing = "no argument makes it smaller: the server's reply limit (--max-bytes) is too small for it"

// errorRoom is how much of an error message a file list may take: half of
// what the reply limit leaves, and half of maxErrorChars.
func (s *Server) errorRoom() int { return min(s.cfg.MaxBytes-errorReserve, maxErrorChars) / 2 }

// replySize measures a reply as it would be sent, with room for notes: the
// size tools fit their replies to.
func (s *Server) replySize(r wirer) int { return s.wireSize(r.wire()) + noteReserve }

// wireSize is resultSize(result(w)), counted without building the result:
// a paged diff's reply is measured on every part, and its text is most of
// the reply.
func (s *Server) wireSize(w wireReply) int {
	if w.structured != nil && s.cfg.Structured {
		return s.resultSize(s.result(w))
	}
	n := s.envelope + text.JSONLen(w.text) + envelopeReserve
	n += text.JSONLen(lastLines(w.text, w.next))
	if w.next != nil {
		n += nextMetaSize(w.next)
	}
	return n
}

// payloadRoom is how much payload (counted in JSON) fits beside probe, a
// reply with everything but the payload at its largest. With --structured
// a tool with structured output sends the payload twice, in the text and in
// the structured content, so it has half the room.
func (s *Server) payloadRoom(probe wirer) int {
	room := s.cfg.MaxBytes - s.replySize(probe)
	if s.cfg.Structured && probe.wire().structured != nil {
		room /= 2
	}
	return room
}

// fitPage renders the largest prefix of n items whose reply fits the limit.
func fitPage[Out any](s *Server, n int, render func(n int) reply[Out]) reply[Out] {
	r := render(n)
	if s.replySize(r) <= s.cfg.MaxBytes {
		return r
	}
	lo, hi := 0, n // render(lo) fits, render(hi) does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if s.replySize(render(mid)) <= s.cfg.MaxBytes {
			lo = mid
		} else {
			hi = mid
		}
	}
	return render(lo)
}

// ptr is a pointer to a copy of v, for the optional fields of outputs.
func ptr[T any](v T) *T { return &v }
