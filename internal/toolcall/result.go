package toolcall

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Result builds the tool result as it is sent, so that its size is
// measured as sent: the text, ended by the next call's line for a partial
// reply; the next call in _meta; the structured content only with
// --structured (by default each payload is sent once, as text); and the
// _meta the SDK would add anyway (server info).
func (c *Calls) Result(r paging.Wire) *mcp.CallToolResult { return c.result(c.Budget, r) }

// result is Result for a call with budget b: for a client that takes each
// text item by itself (b.Items), the text in as many items as it needs.
func (c *Calls) result(b paging.Budget, r paging.Wire) *mcp.CallToolResult {
	all := r.Text
	meta := mcp.Meta{mcp.MetaKeyServerInfo: c.Impl}
	all += paging.LastLines(all, r.Next)
	if r.Next != nil {
		meta[paging.MetaKeyNext] = r.Next
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: all}}}
	if b.Items > 0 {
		res.Content = res.Content[:0]
		for _, item := range text.Items(all, b.Items, b.Unit) {
			res.Content = append(res.Content, &mcp.TextContent{Text: item})
		}
	}
	res.SetMeta(meta)
	if r.Structured != nil && c.Budget.Structured {
		data, err := json.Marshal(r.Structured)
		if err != nil {
			return c.ErrorResult(fmt.Errorf("encoding the result: %w", err))
		}
		res.StructuredContent = json.RawMessage(data)
	}
	return res
}

// ErrorResult is an error reply, its text cut if it must be to at most
// paging.MaxErrorChars bytes (so as many characters, however counted) and to fit
// the reply limit. Tools that list alternatives in an error keep them short
// themselves (paging.Budget.ErrorRoom) and say which call lists them all.
func (c *Calls) ErrorResult(err error, remarks ...string) *mcp.CallToolResult {
	return c.errorResult(c.Budget, err, remarks...)
}

// errorResult is ErrorResult within the call's budget b.
func (c *Calls) errorResult(b paging.Budget, err error, remarks ...string) *mcp.CallToolResult {
	msg := errcode.Message(err)
	for _, n := range remarks {
		msg += " (note: " + n + ")"
	}
	msg = OneLine(msg)
	limit := paging.MaxErrorChars
	if room := b.MaxBytes - paging.ErrorEnvelope; text.JSONLen(msg) > room {
		limit = min(limit, room/paging.MaxEscape) // cut by bytes, each escaped at worst
	}
	if len(msg) > limit {
		msg, _ = text.CutUTF8(msg, limit-len(cutMark))
		msg += cutMark
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// cutMark ends an error text cut by ErrorResult.
const cutMark = " …[cut]"

// ResultSize is the size of the result as JSON with HTML escaping on, which
// is at least what the MCP wire carries.
//
// A successful result (one text, maybe structured content) is measured by
// arithmetic rather than encoded once more: the fixed envelope, measured
// once, plus the escaped text, the next call in _meta and the structured
// content's JSON.
func (c *Calls) ResultSize(res *mcp.CallToolResult) int {
	if texts, ok := plainTexts(res); ok && !res.IsError {
		n := c.Budget.Envelope + paging.EnvelopeReserve + (len(texts)-1)*paging.ItemEnvelope
		for _, t := range texts {
			n += text.JSONLen(t)
		}
		if next, ok := res.Meta[paging.MetaKeyNext]; ok {
			n += paging.NextMetaSize(next)
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

// SeenSize is the size of the result as a client that counts in unit u
// gives it to its model (paging.SeenSize): its content array as JSON with
// paging.SeenReserve, or its text in u with paging.WrapperReserve; and its
// structured content as JSON; never its _meta.
func SeenSize(res *mcp.CallToolResult, u text.Unit) int {
	n := paging.WrapperReserve
	if u == text.JSONBytes {
		data, err := json.Marshal(res.Content)
		if err != nil {
			return int(^uint(0) >> 1)
		}
		n = len(data) + paging.SeenReserve
	} else {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				_, k := text.Lengths(t.Text, u)
				n += k
			}
		}
	}
	if res.StructuredContent != nil {
		s, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return int(^uint(0) >> 1)
		}
		n += len(s)
	}
	return n
}

// measure is res's size against budget b's MaxBytes (paging.Budget.Measure).
func (c *Calls) measure(b paging.Budget, res *mcp.CallToolResult) int {
	if b.Whole <= b.MaxBytes {
		return c.ResultSize(res) // no need to encode the content again
	}
	return b.Measure(c.ResultSize(res), SeenSize(res, b.Unit))
}

// plainTexts are the texts of res's content when it is text items alone,
// each with no _meta or annotations.
func plainTexts(res *mcp.CallToolResult) ([]string, bool) {
	if len(res.Content) == 0 {
		return nil, false
	}
	texts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t.Meta != nil || t.Annotations != nil {
			return nil, false
		}
		texts = append(texts, t.Text)
	}
	return texts, true
}

// EnvelopeSize is the size of a successful result with empty text and no
// structured content.
func (c *Calls) EnvelopeSize() int {
	data, err := json.Marshal(c.Result(paging.Wire{}))
	if err != nil {
		panic(err)
	}
	return len(data)
}

// renderNotes ends a reply's text with its notes, within room bytes
// (paging.Budget.NoteRoom).
func renderNotes(all []string, room int) string {
	var b strings.Builder
	for _, n := range all {
		line := "\n[note: " + n + "]"
		if text.JSONLen(b.String()+line) > room {
			cut, _ := text.CutUTF8(line, max(0, (room-text.JSONLen(b.String()))/paging.MaxEscape-2))
			b.WriteString(cut + "…]")
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// OneLine escapes control characters and the line and paragraph
// separators (U+2028, U+2029, which a reader may take for a line break:
// review 4, finding 08), so an error stays the one line an agent can act
// on, whatever input it quotes.
func OneLine(msg string) string {
	if !strings.ContainsFunc(msg, breaksLine) {
		return msg
	}
	var b strings.Builder
	for _, r := range msg {
		if breaksLine(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// breaksLine: OneLine escapes r.
func breaksLine(r rune) bool { return unicode.IsControl(r) || r == 0x2028 || r == 0x2029 }
