package splice

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// texts are what encoding/json treats with care: escapes, HTML, the line
// and paragraph separators, bytes that are not UTF-8, and the placeholder.
var texts = []string{
	"",
	"plain text",
	"diff --git a/x b/x\n+\tif (p->next && q < r) { printf(\"%d\\n\", x); }\r\n",
	"\x00\x01\x1f\x7f separators \u2028 \u2029 end",
	"not UTF-8: \xff\xfe \xc3\x28 \xe2\x82",
	strings.Repeat("a line of source code of a typical length\n", 2000),
	string(placeholder(0)),
	string(placeholder(1)),
	placeholderText + "-0",
}

func TestEncodeIsJSONMarshal(t *testing.T) {
	for _, text := range texts {
		results := []*mcp.CallToolResult{
			{Content: []mcp.Content{&mcp.TextContent{Text: text}}},
			{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true},
			{
				Content: []mcp.Content{&mcp.TextContent{Text: text, Meta: mcp.Meta{"k": "v"}, Annotations: &mcp.Annotations{Priority: 0.5}}},
				Meta:    mcp.Meta{"next": map[string]any{"tool": "get_diff", "arguments": map[string]any{"cursor": "abc"}}},
			},
			// Structured content that repeats the text, or quotes the
			// placeholder: the SDK encodes it alone.
			{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"text": text}},
			{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(placeholder(0))},
			// Several text items (VS Code's), one quoting another's
			// placeholder.
			{Content: []mcp.Content{&mcp.TextContent{Text: text}, &mcp.TextContent{Text: "second\n"}, &mcp.TextContent{Text: text}}},
			{Content: []mcp.Content{&mcp.TextContent{Text: "x"}, &mcp.TextContent{Text: text}}, Meta: mcp.Meta{"k": text}},
		}
		for _, r := range results {
			checkEncode(t, r)
		}
	}
}

// checkEncode: Encode(r) is json.Marshal(r), byte for byte.
func checkEncode(t *testing.T, r *mcp.CallToolResult) {
	t.Helper()
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Encode(%.60q):\n%.300s\nwant json.Marshal's\n%.300s", r.Content[0].(*mcp.TextContent).Text, got, want)
	}
}

func FuzzEncode(f *testing.F) {
	for _, text := range texts {
		f.Add(text, false)
	}
	f.Fuzz(func(t *testing.T, text string, isError bool) {
		checkEncode(t, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError, Meta: mcp.Meta{"next": text}})
		checkEncode(t, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}, &mcp.TextContent{Text: text}}, IsError: isError})
	})
}
