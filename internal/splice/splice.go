// Package splice sends a tool result's text through encoding/json once.
//
// The go-sdk encodes a result's text three times over: TextContent escapes
// it, CallToolResult's encoding checks those bytes again as it copies them,
// and the response checks them once more; over stdio the frame checks them a
// fourth time. encoding/json checks a byte at a time, so for a 64 KB diff
// part those passes cost more than cutting the part.
//
// Middleware hands the SDK each result that has one text content as a
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

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Middleware is the receiving middleware that hands the SDK each tool
// result with one text content as a Result. Results of calls that came
// over st's connection encode as tokens that st swaps back; st may be nil.
func Middleware(st *Stdio) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			r, ok := res.(*mcp.CallToolResult)
			if !ok || err != nil || len(r.Content) != 1 {
				return res, err
			}
			if _, ok := r.Content[0].(*mcp.TextContent); !ok {
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

// Result is a tool result with one text content. It embeds the SDK's
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

// placeholder stands for the text while the SDK encodes the rest. It needs
// no escaping; a result where it appears more than once (a file that quotes
// it, in structured content) is encoded by the SDK alone.
const placeholderText = "mcp-repo-tools:text-placeholder:7c1f0a9e"

var placeholder = []byte(`"` + placeholderText + `"`)

// Encode is json.Marshal(r) for a result whose one content is text, with
// the text escaped once.
func Encode(r *mcp.CallToolResult) ([]byte, error) { return appendEncoded(nil, r) }

// appendEncoded appends Encode(r) to dst.
func appendEncoded(dst []byte, r *mcp.CallToolResult) ([]byte, error) {
	t := r.Content[0].(*mcp.TextContent)
	rest := *r
	rest.Content = []mcp.Content{&mcp.TextContent{Text: placeholderText, Meta: t.Meta, Annotations: t.Annotations}}
	around, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	at := bytes.Index(around, placeholder)
	if at < 0 || bytes.Count(around, placeholder) != 1 {
		data, err := json.Marshal(r)
		return append(dst, data...), err
	}
	// Room for the text with a tenth more for its escapes: source code
	// seldom needs more.
	dst = slices.Grow(dst, len(around)+len(t.Text)+len(t.Text)/10)
	out := bytes.NewBuffer(append(dst, around[:at]...))
	// An Encoder escapes as json.Marshal does (HTML too), into out.
	if err := json.NewEncoder(out).Encode(t.Text); err != nil {
		return nil, err
	}
	data := out.Bytes()
	data = data[:len(data)-1] // the newline Encode ends with
	return append(data, around[at+len(placeholder):]...), nil
}
