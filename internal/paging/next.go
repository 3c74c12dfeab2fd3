package paging

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// MetaKeyNext is the key, in a tool result's _meta, of the call that
// returns the next part of a partial reply (README, "Paging"). A reply that
// holds everything that was asked for has none.
const MetaKeyNext = "mcp-repo-tools/next"

// Call is the complete call that continues a partial reply: the tool
// and every argument, so a client can send it as it is.
type Call struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// Continue is the call of tool with the arguments in (a tool's input
// value, already changed to point at the next part).
func Continue(tool string, in any) *Call {
	data, err := json.Marshal(in)
	if err != nil {
		panic(fmt.Sprintf("%s: encoding the next call's arguments: %v", tool, err))
	}
	var args map[string]any
	if err := json.Unmarshal(data, &args); err != nil {
		panic(fmt.Sprintf("%s: decoding the next call's arguments: %v", tool, err))
	}
	return &Call{Tool: tool, Arguments: args}
}

// line is the text's last line of a partial reply: the same call, in words
// an agent can follow without reading _meta.
func (n *Call) Line() string {
	return fmt.Sprintf("[partial reply] Next part: call %s with %s\n", n.Tool, PlainJSON(n.Arguments))
}

// LastLines is what ends a reply's text: the next call's line, on a line
// of its own (a note before it ends without a newline), or for a complete
// reply its completeLine.
func LastLines(text string, next *Call) string {
	if next == nil {
		return completeLine(text)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		return "\n" + next.Line()
	}
	return next.Line()
}

// NextPrefix starts the line of a partial reply's next call.
const NextPrefix = "[partial reply]"

// completeLine ends the text of a complete reply whose last line (past
// blank ones) shows a reader the next call's prefix (text.StartsAs: past
// characters no one sees, or after a CR or a line separator). Repository
// text that reads as ours is framed where it is written (text.Frame), so
// this is the backstop of that rule: the last line of a reply's text starts
// with NextPrefix exactly when the server wrote it as the next call
// (docs/security.md, "Framing").
func completeLine(t string) string {
	body := strings.TrimRightFunc(t, text.IsUnseen)
	if !text.StartsAs(body[strings.LastIndexByte(body, '\n')+1:], NextPrefix) {
		return ""
	}
	sep := ""
	if !strings.HasSuffix(t, "\n") {
		sep = "\n"
	}
	return sep + "[complete reply: the line above is the repository's, not the server's next call]\n"
}

// PlainJSON is v as compact JSON for a model to read and copy: "<"
// and "&" as they are, not escaped for HTML; DEL and C1 escaped, as no
// line the server writes holds a control character.
func PlainJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return text.JSONControls(strings.TrimSuffix(b.String(), "\n"))
}

// Paged is embedded in the structured output of every tool whose replies
// may be partial: with --structured, next is there as well as in _meta.
type Paged struct {
	Next *Call `json:"next,omitempty" jsonschema:"the call that returns the next part; absent when this reply holds the rest"`
}

func (p *Paged) SetNext(n *Call) { p.Next = n }

// Nexter is a structured output that carries next (it embeds Paged).
type Nexter interface{ SetNext(*Call) }
