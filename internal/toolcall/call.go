// Package toolcall answers one tool call, from its arguments to its
// result: it decodes and checks the arguments (internal/argcheck), gives
// the handler the call's deadline and notes, and sends what the handler
// returns within the server's reply limit, error or not.
package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Calls is how a server answers its tool calls: its reply limit, the
// deadline of each call, its log, and its name in every result's _meta.
type Calls struct {
	// Budget is the server's: its MaxBytes is --max-bytes. Each call's
	// is the budget of the client that sends it (Clients), within it.
	Budget paging.Budget
	// Clients gives each client its budget; nil: every client gets
	// Budget.MaxBytes.
	Clients *clients.Table
	Timeout time.Duration
	Logger  *slog.Logger
	Impl    *mcp.Implementation
	// Before, when set, sees each call first and may answer it itself
	// (a server started outside any repository asks the client for its
	// roots: internal/server/roots.go); nil: the tool answers.
	Before func(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult
	// logged holds the clients whose budget was logged (once each).
	logged sync.Map
}

// New is the Calls of a server, its budget's envelope measured.
func New(budget paging.Budget, timeout time.Duration, logger *slog.Logger, impl *mcp.Implementation) *Calls {
	c := &Calls{Budget: budget, Timeout: timeout, Logger: logger, Impl: impl}
	c.Budget.Envelope = c.EnvelopeSize()
	return c
}

// Handler is a tool handler as the wrapper calls it.
type Handler[In any] func(ctx context.Context, in In) (paging.Wire, error)

// Add registers on srv the tool t whose input schema in comes from In. Compared with mcp.AddTool it gives
// input errors our stable codes, applies the per-call deadline, and
// enforces the reply limit over the whole result.
func Add[In any](srv *mcp.Server, c *Calls, t *mcp.Tool, in *jsonschema.Schema, h Handler[In]) {
	schema, err := argcheck.NewSchema(in)
	if err != nil {
		panic(fmt.Sprintf("tool %s: resolving input schema: %v", t.Name, err))
	}
	srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if c.Before != nil {
			if res := c.Before(ctx, req); res != nil {
				return res, nil
			}
		}
		start := time.Now()
		res, err := callTool(ctx, c, t.Name, c.BudgetFor(req), req.Params.Arguments, schema, h)
		ms := time.Since(start).Milliseconds()
		if err != nil {
			// For operators: which tool failed, how and how fast. Never the
			// message, which may quote arguments or file contents, and of the
			// arguments only the names the tool knows.
			c.Logger.Warn(FailedCallLog, "tool", t.Name, "code", string(errcode.Of(err)), "ms", ms, "args", schema.ArgNames(req.Params.Arguments))
		} else {
			c.Logger.Debug("tool call", "tool", t.Name, "ms", ms)
		}
		return res, nil
	})
}

// FailedCallLog is the message of the warning logged for each failed call.
const FailedCallLog = "tool call failed"

// callTool answers one call within budget b, the client's. The error is
// what made the result an error (nil when it is not), for the log.
func callTool[In any](ctx context.Context, c *Calls, tool string, b paging.Budget, args json.RawMessage, schema argcheck.Schema, h Handler[In]) (*mcp.CallToolResult, error) {
	in, err := argcheck.Decode[In](args, schema)
	if err != nil {
		return c.errorResult(b, err), err
	}
	ctx, remarks := notes.With(ctx)
	var asked narrowed
	if l, ok := any(in).(interface{ ReplyBytes() int }); ok {
		asked = narrowed{asked: l.ReplyBytes(), client: b.MaxBytes}
		if b, err = narrow(ctx, b, l.ReplyBytes()); err != nil {
			return c.errorResult(b, err), err
		}
		asked.used = b.MaxBytes
	}
	ctx = paging.WithBudget(ctx, b)
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout,
			errcode.New(errcode.Unavailable, "the call took longer than the server's %s limit", c.Timeout))
		defer cancel()
	}
	// Over HTTP, a client that goes away ends its call and its git work,
	// and so does a server that stops its calls (the end of its shutdown
	// timeout), with its cause, which the client is answered.
	req, fromRequest := callctx.Request(ctx)
	stop, stoppable := callctx.Shutdown(ctx)
	if fromRequest || stoppable {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		if fromRequest {
			defer context.AfterFunc(req, func() { cancel(errcode.New(errcode.Unavailable, "the client went away")) })()
		}
		if stoppable {
			defer context.AfterFunc(stop, func() { cancel(context.Cause(stop)) })()
		}
	}
	r, err := h(ctx, in)
	if errcode.Of(err) == errcode.TooLarge && b.Ceiling > b.MaxBytes {
		// What the call asked for is too small for one item (a line, an
		// entry): it comes whole in a reply of its own, within what the
		// client is sent.
		b = b.Widened()
		r, err = h(paging.WithBudget(ctx, b), in)
	}
	if err != nil {
		err = explainGit(ctx, err)
		// A note can explain an error (a ref missing from a stale mirror).
		return c.errorResult(b, err, remarks.All()...), err
	}
	leanNext(r.Next, tool, args, schema, in, asked)
	if all := remarks.All(); len(all) > 0 {
		// The room kept for notes, or what the reply leaves, up to
		// NoteReserve.
		room := max(b.NoteRoom(), min(b.MaxBytes-c.measure(b, c.result(b, r))-paging.EnvelopeReserve, paging.NoteReserve))
		r.Text += renderNotes(all, room)
	}
	res := c.result(b, r)
	limit := b.Widened()
	if n, lines := c.measure(limit, res), resultLines(res); n > limit.MaxBytes || limit.MaxLines > 0 && lines > limit.MaxLines {
		// Tools fit their replies themselves; this is the backstop that
		// keeps the promise if one of them gets it wrong. No argument is
		// known to help: the tool should have cut the reply into parts.
		c.Logger.Error("reply over the limit", "bytes", n, "limit", limit.MaxBytes, "lines", lines, "maxLines", limit.MaxLines)
		err := errcode.New(errcode.TooLarge, "the reply would be %d bytes in %d lines, over this client's limit of %d bytes (%d lines; 0: any), and the tool failed to cut it into parts: a fault of the server, logged for its operator", n, lines, limit.MaxBytes, limit.MaxLines)
		return c.errorResult(b, err), err
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
	var blocked *gitexec.BlockedError
	var busy *gitexec.BusyError
	var coded *errcode.Error
	switch {
	case errors.As(err, &blocked):
		return blockedError(blocked)
	case context.Cause(ctx) != nil && ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.As(err, &busy):
		// Its address's share of the git processes is busy and as many
		// calls wait (docs/bounds.md, "Processes").
		return errcode.New(errcode.Unavailable, "%v", busy)
	case errors.As(err, &coded):
		return err
	case errors.Is(err, gitexec.ErrSandboxRefused):
		return errcode.New(errcode.PermissionDenied, "%v (an include.path, say): the repository cannot be read until its owner removes that; retrying will not help", gitexec.ErrSandboxRefused)
	case errors.Is(err, gitexec.ErrNotFetched):
		return errcode.New(errcode.NotFound, "%v: a full clone has it", gitexec.ErrNotFetched)
	}
	return err
}

// blockedError says that the call ended (its deadline, say) while git
// waited on a FIFO of the repository, and which: retrying cannot help.
func blockedError(b *gitexec.BlockedError) error {
	code, msg := errcode.Unavailable, b.Cause.Error()
	var coded *errcode.Error
	if errors.As(b.Cause, &coded) {
		code, msg = coded.Code, coded.Msg
	}
	return errcode.New(code, "%s: git was waiting on %s, %s in the repository's git directory, and no call that reads it can finish until the repository's owner replaces it with a regular file",
		msg, b.File.Name, b.File.Kind)
}
