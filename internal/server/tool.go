package server

import "github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"

// reply is what a handler returns (toolcall.Reply): its text, its
// structured value and the call that continues it.
type reply[Out any] = toolcall.Reply[Out]

// textOnly is the Out of a tool without structured output.
type textOnly = toolcall.TextOnly

// textReply is a text-only tool's reply.
type textReply = reply[textOnly]
