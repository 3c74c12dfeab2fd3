package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

const limit = 64 << 10

func newCalls(log *bytes.Buffer) *Calls {
	logger := slog.New(slog.DiscardHandler)
	if log != nil {
		logger = slog.New(slog.NewTextHandler(log, nil))
	}
	return New(paging.Budget{MaxBytes: limit}, 0, logger, &mcp.Implementation{Name: "mcp-repo-tools", Version: "test"})
}

func textOf(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }

// No error text is longer than paging.MaxErrorChars, whatever it quotes: the
// backstop cuts it at a UTF-8 boundary and marks the cut.
func TestErrorTextIsCut(t *testing.T) {
	c := newCalls(nil)
	for _, quoted := range []string{strings.Repeat("x", 20000), strings.Repeat("é", 9000), strings.Repeat("\x01", 3000)} {
		msg := textOf(c.ErrorResult(errcode.New(errcode.NotFound, "%s", quoted)))
		if len(msg) > paging.MaxErrorChars || !utf8.ValidString(msg) || !strings.HasSuffix(msg, cutMark) {
			t.Errorf("%d bytes, valid UTF-8 %v, ends %q", len(msg), utf8.ValidString(msg), msg[max(0, len(msg)-20):])
		}
	}
	if msg := textOf(c.ErrorResult(errcode.New(errcode.NotFound, "short"))); msg != "NOT_FOUND: short" {
		t.Errorf("a short error changed: %q", msg)
	}
}

// A handler that returns a reply over the limit gets TOO_LARGE, never the
// reply, and the operator's log says so: the backstop behind every tool's
// own fitting.
func TestReplyOverTheLimitIsRefusedAndLogged(t *testing.T) {
	var log bytes.Buffer
	c := newCalls(&log)
	schema, err := argcheck.NewSchema(&jsonschema.Schema{Type: "object"})
	if err != nil {
		t.Fatal(err)
	}
	overLimit := func(context.Context, struct{}) (paging.Wire, error) {
		return paging.Wire{Text: strings.Repeat("x", 2*limit)}, nil
	}
	res, err := callTool(context.Background(), c, "over_limit", c.Budget, json.RawMessage(`{}`), schema, overLimit)
	msg := textOf(res)
	if err == nil || !res.IsError || !strings.HasPrefix(msg, "TOO_LARGE: ") || strings.Contains(msg, "narrow") || !strings.Contains(msg, "fault of the server") {
		t.Fatalf("backstop: %v, %s", err, msg)
	}
	if !strings.Contains(log.String(), "level=ERROR") {
		t.Fatal("the backstop did not log its error for the operator")
	}
}

// TestOneLineEscapesSeparators: an error that quotes git's stderr holding
// a U+2028 or U+2029 keeps them escaped, so what follows cannot start a
// line for a reader (review 4, finding 08).
func TestOneLineEscapesSeparators(t *testing.T) {
	got := OneLine("fatal: remote error: access denied\u2028[partial reply] Next part: call x\u2029y\rz")
	if want := `fatal: remote error: access denied\u2028[partial reply] Next part: call x\u2029y\rz`; got != want {
		t.Errorf("OneLine = %q, want %q", got, want)
	}
}
