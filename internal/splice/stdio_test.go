package splice

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServer has tools whose results take each path: one text (spliced),
// a tool error, structured content, and two contents (left to the SDK).
func testServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "splice-test", Version: "1"}, nil)
	text := func(s string) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, Meta: mcp.Meta{"next": map[string]any{"tool": "big"}}}, nil
		}
	}
	input := map[string]any{"type": "object"}
	srv.AddTool(&mcp.Tool{Name: "big", InputSchema: input}, text(strings.Repeat("+\tif (p->next && q < r) { printf(\"%d\\n\", \"\u2028\xff\"); }\n", 3000)))
	srv.AddTool(&mcp.Tool{Name: "small", InputSchema: input}, text("ok <&>"))
	srv.AddTool(&mcp.Tool{Name: "fail", InputSchema: input}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("no such file")
	})
	srv.AddTool(&mcp.Tool{Name: "structured", InputSchema: input}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a <b>"}}, StructuredContent: map[string]any{"text": "a <b>"}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "two", InputSchema: input}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "one"}, &mcp.TextContent{Text: "two"}}}, nil
	})
	return srv
}

// exchange sends each line to a server started by run and returns its
// replies, one line for each line that is not a notification.
func exchange(t *testing.T, run func(ctx context.Context, in io.ReadCloser, out io.Writer) error, lines []string) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, inR, outW) }()
	replies := bufio.NewReader(outR)
	var got []string
	for _, line := range lines {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"method":"notifications/`) {
			continue
		}
		reply, err := replies.ReadString('\n')
		if err != nil {
			t.Fatalf("reply to %s: %v", line, err)
		}
		got = append(got, reply)
	}
	cancel()
	inW.Close()
	<-done
	return got
}

func call(id int, tool string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, tool)
}

// The frames Stdio writes are the SDK's stdio frames, byte for byte, for
// every kind of result, in a batch, and in the sessionless protocol where
// the SDK adds to the result after the handler.
func TestStdioWritesTheSDKsFrames(t *testing.T) {
	newProtocol := `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"big","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	lines := []string{
		// 2025-03-26 is the last version with batches.
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		call(2, "big"), call(3, "small"), call(4, "fail"), call(5, "structured"), call(6, "two"), call(7, "missing"),
		"[" + call(8, "big") + "," + call(9, "small") + "]",
		`{"jsonrpc":"2.0","id":10,"method":"tools/list"}`,
		newProtocol,
	}
	want := exchange(t, func(ctx context.Context, in io.ReadCloser, out io.Writer) error {
		return testServer().Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopCloser{out}})
	}, lines)
	st := NewStdio()
	got := exchange(t, func(ctx context.Context, in io.ReadCloser, out io.Writer) error {
		srv := testServer()
		srv.AddReceivingMiddleware(Middleware(st))
		return st.Run(ctx, srv, in, out)
	}, lines)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reply to %.80s:\n%.400s\nwant the SDK's\n%.400s", lines[min(i+1, len(lines)-1)], got[i], want[i])
		}
	}
	if !strings.Contains(want[7], `"id":9`) || !strings.HasPrefix(want[7], "[") {
		t.Errorf("the batch was not answered as one: %.200s", want[7])
	}
	if st.serial < 6 || len(st.held) != 0 {
		t.Errorf("%d results held, %d not written: the frames did not come through the tokens", st.serial, len(st.held))
	}
}

// Calls in flight at once each get their own result, through a real
// client: tokens are held and written apart whatever the order.
func TestStdioConcurrentCalls(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "splice-test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ N int }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat(fmt.Sprintf("call %d <&>\n", in.N), 1+in.N*50)}}}, nil
	})
	st := NewStdio()
	srv.AddReceivingMiddleware(Middleware(st))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- st.Run(ctx, srv, inR, outW) }()
	defer func() { cancel(); inW.Close(); <-done }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const calls = 3 * maxHeld
	var wg sync.WaitGroup
	for n := range calls {
		wg.Go(func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"n": n}})
			if err != nil {
				t.Error(err)
				return
			}
			want := strings.Repeat(fmt.Sprintf("call %d <&>\n", n), 1+n*50)
			if got := res.Content[0].(*mcp.TextContent).Text; got != want {
				t.Errorf("call %d got %.40q…, want %.40q…", n, got, want)
			}
		})
	}
	wg.Wait()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.serial == 0 || len(st.held) != 0 {
		t.Errorf("%d results held, %d not written", st.serial, len(st.held))
	}
}

// Past maxHeld results not yet written, a result is encoded in place.
func TestStdioHoldsAtMostMaxHeld(t *testing.T) {
	st := NewStdio()
	var out bytes.Buffer
	st.out = &out
	var frames [][]byte
	for i := range maxHeld + 2 {
		data := fmt.Appendf(nil, `{"content":[{"type":"text","text":"%d"}]}`, i)
		held := st.hold(data)
		if i < maxHeld && bytes.Equal(held, data) || i >= maxHeld && !bytes.Equal(held, data) {
			t.Fatalf("result %d: hold gave %s", i, held)
		}
		frames = append(frames, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":%s}`+"\n", i, held))
	}
	for _, f := range frames {
		if _, err := st.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Contains(out.Bytes(), st.prefix) || len(st.held) != 0 {
		t.Errorf("a token was written, or a result is still held:\n%s", out.Bytes())
	}
	for i := range maxHeld + 2 {
		if !bytes.Contains(out.Bytes(), fmt.Appendf(nil, `"id":%d,"result":{"content":[{"type":"text","text":"%d"}]}}`, i, i)) {
			t.Errorf("result %d is not in what was written:\n%s", i, out.Bytes())
		}
	}
}
