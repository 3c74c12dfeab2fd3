package httpserve

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServer is an MCP server with one tool, "wait", that returns after d.
func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	type in struct {
		Ms int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(i.Ms) * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	return s
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// post sends an initialize request with the given headers to a handler
// reached through a real loopback listener.
func post(t *testing.T, h http.Handler, headers map[string]string, body string) *http.Response {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	defer hs.Close()
	req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+Endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestChecks(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	loop := Handler(testServer(), Options{Addr: "127.0.0.1:0", MaxBodyBytes: 1 << 10}, log)
	tokened := Handler(testServer(), Options{Addr: "127.0.0.1:0", Token: "sesame", MaxBodyBytes: 1 << 10}, log)
	hosts := Handler(testServer(), Options{Addr: "127.0.0.1:0", AllowedHosts: []string{"mcp.internal"}, AllowedOrigins: []string{"https://app.example"}}, log)
	cases := []struct {
		name    string
		h       http.Handler
		headers map[string]string
		body    string
		want    int
	}{
		{"loopback request", loop, nil, initialize, 200},
		{"DNS rebinding: foreign Host on loopback", loop, map[string]string{"Host": "evil.example:80"}, initialize, 403},
		{"foreign Origin", loop, map[string]string{"Origin": "http://evil.example"}, initialize, 403},
		{"loopback Origin", loop, map[string]string{"Origin": "http://localhost:3000"}, initialize, 200},
		{"body over the limit", loop, nil, initialize[:len(initialize)-1] + `,"pad":"` + strings.Repeat("x", 2000) + `"}`, 413},
		{"no token", tokened, nil, initialize, 401},
		{"wrong token", tokened, map[string]string{"Authorization": "Bearer sesamE"}, initialize, 401},
		{"token without Bearer", tokened, map[string]string{"Authorization": "sesame"}, initialize, 401},
		{"right token", tokened, map[string]string{"Authorization": "Bearer sesame"}, initialize, 200},
		{"scheme in lower case", tokened, map[string]string{"Authorization": "bearer sesame"}, initialize, 200},
		{"configured Host", hosts, map[string]string{"Host": "mcp.internal"}, initialize, 200},
		{"configured Origin", hosts, map[string]string{"Origin": "https://app.example"}, initialize, 200},
		{"other Origin", hosts, map[string]string{"Origin": "https://app.example.evil"}, initialize, 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := post(t, c.h, c.headers, c.body).StatusCode; got != c.want {
				t.Fatalf("status %d, want %d", got, c.want)
			}
		})
	}
}

func TestNonLoopbackNeedsAToken(t *testing.T) {
	for _, o := range []Options{{Addr: "0.0.0.0:8080"}, {Addr: ":8080"}, {Addr: "10.1.2.3:80"}} {
		if o.Check() == nil {
			t.Errorf("%s without a token accepted", o.Addr)
		}
		o.Token = "t"
		if err := o.Check(); err != nil {
			t.Errorf("%s with a token: %v", o.Addr, err)
		}
		o.Token, o.AllowUnauthenticated = "", true
		if err := o.Check(); err != nil {
			t.Errorf("%s with --allow-unauthenticated: %v", o.Addr, err)
		}
	}
	if err := (Options{Addr: "127.0.0.1:0"}).Check(); err != nil {
		t.Errorf("loopback refused: %v", err)
	}
}

// On shutdown, a call in flight finishes; new connections are refused.
func TestGracefulShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, stop := context.WithCancel(context.Background())
	var logs bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, testServer(), Options{Addr: addr, ShutdownTimeout: 5 * time.Second}, slog.New(slog.NewTextHandler(&logs, nil)))
	}()
	var cs *mcp.ClientSession
	for i := 0; i < 50; i++ {
		cs, err = mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + Endpoint}, nil)
		if err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	result := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"ms": 500}})
		if err != nil {
			result <- err.Error()
			return
		}
		result <- res.Content[0].(*mcp.TextContent).Text
	}()
	time.Sleep(100 * time.Millisecond)
	stop()
	if got := <-result; got != "done" {
		t.Fatalf("call in flight: %q", got)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
