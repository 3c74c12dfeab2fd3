// Package splice sends a tool result's text through encoding/json once.
//
// The go-sdk encodes a result's text three times over: TextContent escapes
// it, CallToolResult's encoding checks those bytes again as it copies them,
// and the response checks them once more; over stdio the frame checks them a
// fourth time. encoding/json checks a byte at a time, so for a 64 KB diff
// part those passes cost more than cutting the part.
//
// Middleware hands the SDK each result whose content is text alone as a
// [Result]. A Result has the SDK encode the rest of the result around a
// placeholder and puts the text, escaped once by the same encoder, where the
// placeholder was: the bytes are the SDK's own. Over stdio, [Stdio] goes one
// step further: a Result encodes as a short token, so the SDK's checks pass
// over a few bytes, and Stdio, the writer under the SDK's stdio connection,
// writes the result's bytes in the token's place.
package splice

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Middleware is the receiving middleware that hands the SDK each tool
// result whose content is text alone (one item, or several for a client
// that takes each by itself) as a Result. Results of calls that came over
// st's connection encode as tokens that st swaps back; st may be nil.
func Middleware(st *Stdio) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			r, ok := res.(*mcp.CallToolResult)
			if !ok || err != nil || !textOnly(r) {
				return res, err
			}
			out := &Result{CallToolResult: r}
			if st != nil && st.carries(req.GetSession()) {
				out.stdio = st
			}
			return out, nil
		}
	}
}

// textOnly: r's content is one or more text items and nothing else.
func textOnly(r *mcp.CallToolResult) bool {
	for _, c := range r.Content {
		if _, ok := c.(*mcp.TextContent); !ok {
			return false
		}
	}
	return len(r.Content) > 0
}

// Result is a tool result whose content is text alone. It embeds the SDK's
// result, so what the SDK sets after the handler (the result type, the
// server's name in _meta) is set on the result that is encoded.
type Result struct {
	*mcp.CallToolResult
	stdio *Stdio // when set, the result is written by it
}

func (r *Result) MarshalJSON() ([]byte, error) {
	if r.stdio == nil {
		return Encode(r.CallToolResult)
	}
	return r.stdio.encode(r.CallToolResult)
}

// A placeholder stands for each text while the SDK encodes the rest. It
// needs no escaping; a result where one appears more than once (a file
// that quotes it, in structured content) is encoded by the SDK alone.
const placeholderText = "mcp-repo-tools:text-placeholder:7c1f0a9e"

// placeholder is the JSON string that stands for the i-th text.
func placeholder(i int) []byte {
	return []byte(`"` + placeholderText + "-" + strconv.Itoa(i) + `"`)
}

// Encode is json.Marshal(r) for a result whose content is text alone,
// with each text escaped once.
func Encode(r *mcp.CallToolResult) ([]byte, error) { return appendEncoded(nil, r) }

// appendEncoded appends Encode(r) to dst.
func appendEncoded(dst []byte, r *mcp.CallToolResult) ([]byte, error) {
	rest := *r
	rest.Content = make([]mcp.Content, len(r.Content))
	texts := make([]string, len(r.Content))
	size := 0
	for i, c := range r.Content {
		t := c.(*mcp.TextContent)
		texts[i], size = t.Text, size+len(t.Text)
		rest.Content[i] = &mcp.TextContent{Text: placeholderText + "-" + strconv.Itoa(i), Meta: t.Meta, Annotations: t.Annotations}
	}
	around, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	// Where each text goes: each placeholder once, in order.
	at := make([]int, len(texts))
	for i := range texts {
		p := placeholder(i)
		at[i] = bytes.Index(around, p)
		if at[i] < 0 || bytes.Count(around, p) != 1 || i > 0 && at[i] < at[i-1] {
			data, err := json.Marshal(r)
			return append(dst, data...), err
		}
	}
	// Room for the texts with a tenth more for their escapes: source code
	// seldom needs more.
	dst = slices.Grow(dst, len(around)+size+size/10)
	out := bytes.NewBuffer(dst)
	// An Encoder escapes as json.Marshal does (HTML too), into out.
	enc := json.NewEncoder(out)
	from := 0
	for i, t := range texts {
		out.Write(around[from:at[i]])
		if err := enc.Encode(t); err != nil {
			return nil, err
		}
		out.Truncate(out.Len() - 1) // the newline Encode ends with
		from = at[i] + len(placeholder(i))
	}
	out.Write(around[from:])
	return out.Bytes(), nil
}
