package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTP starts serve --http on a repository whose big.txt reads as
// more than any client's budget, with flags; it returns the endpoint.
func serveHTTP(t *testing.T, flags ...string) string {
	t.Helper()
	r := project(t)
	var big strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&big, "line %04d of a file longer than any client's budget\n", i)
	}
	r.Write("big.txt", big.String())
	r.Commit("big")
	cmd := exec.Command(binary(t), append([]string{"serve", "--repo", r.Dir, "--http", "127.0.0.1:0"}, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "url="); ok {
			go io.Copy(io.Discard, stderr)
			return strings.Fields(after)[0]
		}
	}
	t.Fatal("the server did not log its URL")
	return ""
}

// readBig is the size of the text read_file answers for big.txt (its
// items joined; as VS Code, none over its 8,192 units), sent as
// one stateless POST of protocol 2025-06-18 (no initialize before it, as a
// stateless server needs none) with the given User-Agent and, when
// clientInfo is not "", that name in the request's _meta.
func readBig(t *testing.T, url, userAgent, clientInfo string) int {
	t.Helper()
	params := map[string]any{"name": "read_file", "arguments": map[string]any{"path": "big.txt"}}
	if clientInfo != "" {
		params["_meta"] = map[string]any{mcp.MetaKeyClientInfo: map[string]any{"name": clientInfo, "version": "1"}}
	}
	answer := post(t, url, userAgent, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
	var rpc struct {
		Result mcp.CallToolResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &rpc); err != nil || len(rpc.Result.Content) == 0 {
		t.Fatalf("read_file over HTTP: %v\n%s", err, answer)
	}
	n := 0
	for _, c := range rpc.Result.Content {
		item := c.(*mcp.TextContent).Text
		if units := len(utf16.Encode([]rune(item))); units > 8192 && clientInfo == "Visual Studio Code" {
			t.Errorf("a text item of %d UTF-16 units: VS Code would file it", units)
		}
		n += len(item)
	}
	return n
}

// post sends one JSON-RPC message to url as a client of protocol
// 2025-06-18 would, with userAgent, and returns the answer's message (from
// JSON or an event stream of one message).
func post(t *testing.T, url, userAgent string, msg map[string]any) string {
	t.Helper()
	body, _ := json.Marshal(msg)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("User-Agent", userAgent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	answer := string(data)
	if i := strings.Index(answer, "data: "); i >= 0 {
		answer, _, _ = strings.Cut(answer[i+len("data: "):], "\n")
	}
	return answer
}

// TestStatelessHTTPClientNames: review 4, finding 22, the behaviour
// docs/http.md and docs/clients.md describe. Over stateless HTTP each
// request stands alone, so the clientInfo of initialize sizes no reply: a
// request is sized by the clientInfo of its own _meta (protocol
// 2026-07-28, as the go-sdk sends it), else by its User-Agent's first
// product; a name with spaces is never a product; --client-limit sets the
// budget of a product.
func TestStatelessHTTPClientNames(t *testing.T) {
	url := serveHTTP(t, "--client-limit", "my-agent=20000")
	init := post(t, url, "Go-http-client/1.1", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "claude-code", "version": "2.1"}}})
	if !strings.Contains(init, `"protocolVersion"`) {
		t.Fatalf("initialize: %s", init)
	}
	cases := []struct {
		what, userAgent, meta string
		min, max              int
	}{
		{"after initialize as claude-code, a call without _meta: an unknown client", "Go-http-client/1.1", "", 7000, 8000},
		{"a User-Agent whose product is a known name", "claude-code/2.1.332 (external, cli)", "", 60000, 65536},
		{"the request's own _meta", "Go-http-client/1.1", "claude-code", 60000, 65536},
		{"a name with spaces as a User-Agent: never a product", "Visual Studio Code", "", 7000, 8000},
		{"the name with spaces in _meta: VS Code's text items of 8,192 units", "Go-http-client/1.1", "Visual Studio Code", 60000, 65536},
		{"--client-limit for a User-Agent product", "my-agent/1.0", "", 18000, 20000},
	}
	for _, c := range cases {
		if n := readBig(t, url, c.userAgent, c.meta); n < c.min || n > c.max {
			t.Errorf("%s: a reply of %d bytes of text, want %d to %d", c.what, n, c.min, c.max)
		}
	}
	// The go-sdk's client (protocol 2026-07-28) names itself in every
	// request's _meta: its own budget.
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "big.txt"}})
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("read_file: %v", err)
	}
	if n := len(res.Content[0].(*mcp.TextContent).Text); n < 60000 {
		t.Errorf("the go-sdk's client named claude-code: a reply of %d bytes", n)
	}
}
