package toolcall

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClientName is the name of the client that sent req: the clientInfo of the
// request's own _meta (protocol 2026-07-28), else of its session's
// initialize, else, over HTTP, the product of its User-Agent; "" when none
// says.
func ClientName(req mcp.Request) string {
	if p := req.GetParams(); p != nil {
		switch info := p.GetMeta()[mcp.MetaKeyClientInfo].(type) {
		case map[string]any: // as decoded from the wire
			if name, _ := info["name"].(string); name != "" {
				return name
			}
		case *mcp.Implementation:
			if info != nil && info.Name != "" {
				return info.Name
			}
		}
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil && ip.ClientInfo.Name != "" {
			return ip.ClientInfo.Name
		}
	}
	if x := req.GetExtra(); x != nil && x.Header != nil {
		return clients.FromUserAgent(x.Header.Get("User-Agent"))
	}
	return ""
}

// Declared: the client that sent req reads the size each tool declares
// (anthropic/maxResultSizeChars); every client does for a server without
// client rules.
func (c *Calls) Declared(req mcp.Request) bool {
	if c.Clients == nil {
		return true
	}
	r, _ := clients.Lookup(ClientName(req))
	return r.Declared
}

// BudgetFor is the budget of the client that sent req, logged the first
// time that client calls. Clients are told apart as the table knows them
// (every unknown name is one), so that names a client makes up cannot grow
// what is kept.
func (c *Calls) BudgetFor(req *mcp.CallToolRequest) paging.Budget {
	b := c.Budget
	b.Whole, b.Ceiling = b.MaxBytes, b.MaxBytes
	if c.Clients == nil {
		return b
	}
	name := ClientName(req)
	cb := c.Clients.For(name)
	b.MaxBytes, b.MaxLines, b.Ceiling, b.Unit, b.Items = cb.Bytes, cb.Lines, cb.Bytes, cb.Unit, cb.Items
	if b.Items > 0 && b.Structured {
		// The client reads the structured content in place of the
		// text items, as one: it must fit one item.
		b.MaxBytes, b.Ceiling, b.Items = b.Items, b.Items, 0
	}
	if _, seen := c.logged.LoadOrStore(cb.Client, true); !seen {
		level := slog.LevelInfo
		if name == clients.CommandLine {
			level = slog.LevelDebug // the call command: no client to tell of
		}
		shown, _ := text.CutUTF8(name, 100) // a client's own text
		c.Logger.Log(context.Background(), level, "client budget", "client", shown, "known", cb.Client != "", "bytes", cb.Bytes, "lines", cb.Lines, "unit", cb.Unit.String(), "why", cb.Why)
	}
	return b
}

// MinReplyBytes is the least a call's maxBytes can ask for: a header, a
// next call and a few lines. Less is raised to it, and the reply says so.
const MinReplyBytes = 2048

// narrow is budget b for a call that asked for at most maxBytes (0: not
// asked; less is refused): within the client's budget, at least
// MinReplyBytes, the reply told of either change. Its Ceiling stays the
// client's budget, so an item larger than maxBytes still comes whole in a
// part of its own.
func narrow(ctx context.Context, b paging.Budget, maxBytes int) (paging.Budget, error) {
	switch {
	case maxBytes < 0:
		return b, errcode.New(errcode.InvalidArgument, "maxBytes must be 0 (the client's budget) or more (got %d)", maxBytes)
	case maxBytes == 0:
		return b, nil
	case maxBytes < MinReplyBytes:
		notes.Add(ctx, fmt.Sprintf("maxBytes %d is less than a reply needs: raised to %s", maxBytes, bytesWord(MinReplyBytes)))
		maxBytes = MinReplyBytes
	case maxBytes > b.MaxBytes:
		notes.Add(ctx, fmt.Sprintf("maxBytes %d is more than this client is sent whole in one reply: %s used", maxBytes, bytesWord(b.MaxBytes)))
	}
	b.MaxBytes = min(maxBytes, b.MaxBytes)
	return b, nil
}

// bytesWord is n bytes in words: "2,048 bytes".
func bytesWord(n int) string { return text.Thousands(n) + " bytes" }

// resultLines is the number of lines of a result's text parts.
func resultLines(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += strings.Count(t.Text, "\n") + 1
		}
	}
	return n
}
