package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// reply is what a handler returns: the text an agent reads, the typed
// value of the same answer for --structured (defineTool makes the tool's
// output schema from Out, so the value sent is of the type the schema
// describes; a text-only tool has Out textOnly), and for a partial reply
// the call that continues it.
type reply[Out any] struct {
	text string
	out  Out
	next *paging.Call
}

// textOnly is the Out of a tool without structured output: it sends text
// only and advertises no output schema.
type textOnly struct{}

// textReply is a text-only tool's reply.
type textReply = reply[textOnly]

func isTextOnly[Out any]() bool { return reflect.TypeFor[Out]() == reflect.TypeFor[textOnly]() }

// Wire is the reply as it is sent and measured (internal/paging): the
// structured value is the one the schema describes, with its next call.
func (r reply[Out]) Wire() paging.Wire {
	w := paging.Wire{Text: r.text, Next: r.next}
	if !isTextOnly[Out]() {
		out := r.out
		if n, ok := any(&out).(paging.Nexter); ok {
			n.SetNext(r.next)
		}
		w.Structured = out
	}
	return w
}

// handler is a tool handler as the wrapper calls it.
type handler[In any] func(ctx context.Context, in In) (paging.Wire, error)

// addTool registers the tool t (built by its definition, registry.go)
// whose input schema in comes from In. Compared with mcp.AddTool it gives
// input errors our stable codes, applies the per-call deadline, and
// enforces the reply limit over the whole result.
func addTool[In any](s *Server, t *mcp.Tool, in *jsonschema.Schema, h handler[In]) {
	schema, err := argcheck.NewSchema(in)
	if err != nil {
		panic(fmt.Sprintf("tool %s: resolving input schema: %v", t.Name, err))
	}
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, err := callTool(ctx, s, req.Params.Arguments, schema, h)
		ms := time.Since(start).Milliseconds()
		if err != nil {
			// For operators: which tool failed, how and how fast. Never the
			// message, which may quote arguments or file contents, and of the
			// arguments only the names the tool knows.
			s.cfg.Logger.Warn(FailedCallLog, "tool", t.Name, "code", string(errcode.Of(err)), "ms", ms, "args", schema.ArgNames(req.Params.Arguments))
		} else {
			s.cfg.Logger.Debug("tool call", "tool", t.Name, "ms", ms)
		}
		return res, nil
	})
}

// FailedCallLog is the message of the warning logged for each failed call.
const FailedCallLog = "tool call failed"

// callTool answers one call. The error is what made the result an error
// (nil when it is not), for the log.
func callTool[In any](ctx context.Context, s *Server, args json.RawMessage, schema argcheck.Schema, h handler[In]) (*mcp.CallToolResult, error) {
	in, err := argcheck.Decode[In](args, schema)
	if err != nil {
		return s.errorResult(err), err
	}
	if s.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.cfg.Timeout,
			errcode.New(errcode.Unavailable, "the call took longer than the server's %s limit", s.cfg.Timeout))
		defer cancel()
	}
	// Over HTTP, a client that goes away ends its call and its git work.
	if req, ok := callctx.Request(ctx); ok {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(req, func() { cancel(errcode.New(errcode.Unavailable, "the client went away")) })
		defer stop()
	}
	ctx, remarks := notes.With(ctx)
	r, err := h(ctx, in)
	if err != nil {
		err = explainGit(ctx, err)
		// A note can explain an error (a ref missing from a stale mirror).
		return s.errorResult(err, remarks.All()...), err
	}
	r.Text += renderNotes(remarks.All())
	res := s.result(r)
	if n := s.resultSize(res); n > s.cfg.MaxBytes {
		// Tools fit their replies themselves; this is the backstop that
		// keeps the promise if one of them gets it wrong. No argument is
		// known to help: the tool should have cut the reply into parts.
		s.cfg.Logger.Error("reply over the limit", "bytes", n, "limit", s.cfg.MaxBytes)
		err := errcode.New(errcode.TooLarge, "the reply would be %d bytes, over the server's %d-byte limit, and the tool failed to cut it into parts: a fault of the server, logged for its operator", n, s.cfg.MaxBytes)
		return s.errorResult(err), err
	}
	if res.IsError { // the structured value could not be encoded
		return res, errcode.New(errcode.Unavailable, "encoding the result")
	}
	return res, nil
}

// explainGit gives what the git package marks the code and the words an
// agent can act on: a call that ended (with what git waited on, if it
// was a FIFO), a sandbox refusal, a partial clone's missing object.
func explainGit(ctx context.Context, err error) error {
	var blocked *git.BlockedError
	var coded *errcode.Error
	switch {
	case errors.As(err, &blocked):
		return blockedError(blocked)
	case context.Cause(ctx) != nil && ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.As(err, &coded):
		return err
	case errors.Is(err, git.ErrSandboxRefused):
		return errcode.New(errcode.PermissionDenied, "%v (an include.path, say): the repository cannot be read until its owner removes that; retrying will not help", git.ErrSandboxRefused)
	case errors.Is(err, git.ErrNotFetched):
		return errcode.New(errcode.NotFound, "%v: a full clone has it", git.ErrNotFetched)
	}
	return err
}

// blockedError says that the call ended (its deadline, say) while git
// waited on a FIFO of the repository, and which: retrying cannot help.
func blockedError(b *git.BlockedError) error {
	code, msg := errcode.Unavailable, b.Cause.Error()
	var coded *errcode.Error
	if errors.As(b.Cause, &coded) {
		code, msg = coded.Code, coded.Msg
	}
	return errcode.New(code, "%s: git was waiting on %s, %s in the repository's git directory, and no call that reads it can finish until the repository's owner replaces it with a regular file",
		msg, b.File.Name, b.File.Kind)
}

// result builds the tool result as it is sent, so that its size is
// measured as sent: the text, ended by the next call's line for a partial
// reply; the next call in _meta; the structured content only with
// --structured (by default each payload is sent once, as text); and the
// _meta the SDK would add anyway (server info).
func (s *Server) result(r paging.Wire) *mcp.CallToolResult {
	text := r.Text
	meta := mcp.Meta{mcp.MetaKeyServerInfo: s.impl}
	text += paging.LastLines(text, r.Next)
	if r.Next != nil {
		meta[paging.MetaKeyNext] = r.Next
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	res.SetMeta(meta)
	if r.Structured != nil && s.cfg.Structured {
		data, err := json.Marshal(r.Structured)
		if err != nil {
			return s.errorResult(fmt.Errorf("encoding the result: %w", err))
		}
		res.StructuredContent = json.RawMessage(data)
	}
	return res
}

// errorResult is an error reply, its text cut if it must be to at most
// paging.MaxErrorChars bytes (so as many characters, however counted) and to fit
// the reply limit. Tools that list alternatives in an error keep them short
// themselves (errorRoom) and say which call lists them all.
func (s *Server) errorResult(err error, remarks ...string) *mcp.CallToolResult {
	msg := errcode.Message(err)
	for _, n := range remarks {
		msg += " (note: " + n + ")"
	}
	msg = oneLine(msg)
	limit := paging.MaxErrorChars
	if room := s.cfg.MaxBytes - paging.ErrorEnvelope; text.JSONLen(msg) > room {
		limit = min(limit, room/paging.MaxEscape) // cut by bytes, each escaped at worst
	}
	if len(msg) > limit {
		msg, _ = text.CutUTF8(msg, limit-len(cutMark))
		msg += cutMark
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// cutMark ends an error text cut by errorResult.
const cutMark = " …[cut]"

// resultSize is the size of the result as JSON with HTML escaping on, which
// is at least what the MCP wire carries.
//
// A successful result (one text, maybe structured content) is measured by
// arithmetic rather than encoded once more: the fixed envelope, measured
// once, plus the escaped text, the next call in _meta and the structured
// content's JSON.
func (s *Server) resultSize(res *mcp.CallToolResult) int {
	if t, ok := onlyText(res); ok && !res.IsError {
		n := s.budget.Envelope + text.JSONLen(t.Text) + paging.EnvelopeReserve
		if next, ok := res.Meta[paging.MetaKeyNext]; ok {
			n += nextMetaSize(next)
		}
		if raw, ok := res.StructuredContent.(json.RawMessage); ok {
			n += len(`,"structuredContent":`) + len(raw)
		}
		return n
	}
	data, err := json.Marshal(res)
	if err != nil {
		return int(^uint(0) >> 1)
	}
	return len(data) + paging.EnvelopeReserve
}

// nextMetaSize is what the next call adds to _meta; past any limit when
// it cannot be encoded.
func nextMetaSize(next any) int {
	data, err := json.Marshal(next)
	if err != nil {
		return 1 << 40
	}
	return len(`,"`+paging.MetaKeyNext+`":`) + len(data)
}

func onlyText(res *mcp.CallToolResult) (*mcp.TextContent, bool) {
	if len(res.Content) != 1 {
		return nil, false
	}
	t, ok := res.Content[0].(*mcp.TextContent)
	return t, ok && t.Meta == nil && t.Annotations == nil
}

// envelopeSize is the size of a successful result with empty text and no
// structured content.
func (s *Server) envelopeSize() int {
	data, err := json.Marshal(s.result(paging.Wire{}))
	if err != nil {
		panic(err)
	}
	return len(data)
}

// paging.NoteReserve is kept free in every reply for notes (see renderNotes).
// renderNotes ends a reply's text with its notes, within paging.NoteReserve.
func renderNotes(all []string) string {
	var b strings.Builder
	for _, n := range all {
		line := "\n[note: " + n + "]"
		if text.JSONLen(b.String()+line) > paging.NoteReserve {
			cut, _ := text.CutUTF8(line, max(0, (paging.NoteReserve-text.JSONLen(b.String()))/paging.MaxEscape-2))
			b.WriteString(cut + "…]")
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// oneLine escapes control characters, so an error stays the one line an
// agent can act on, whatever input it quotes.
func oneLine(msg string) string {
	if !strings.ContainsFunc(msg, unicode.IsControl) {
		return msg
	}
	var b strings.Builder
	for _, r := range msg {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
