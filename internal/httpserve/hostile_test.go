package httpserve

// Hostile HTTP clients of issue 11 (findings 7, 8, 9 and 14), each against
// a real server on 127.0.0.1, with small limits so that the tests are fast.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startServe runs Serve's server on 127.0.0.1 until the test ends.
func startServe(t *testing.T, srv *mcp.Server, o Options) *server {
	t.Helper()
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.ShutdownTimeout == 0 {
		o.ShutdownTimeout = time.Second
	}
	s, err := listen(srv, o, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

func (s *server) addr() string { return s.ln.Addr().String() }

// dial opens a raw connection that gives up after 10 s whatever happens.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// requestHead is a POST to the endpoint up to its blank line, exclusive.
func requestHead(addr string, extra ...string) string {
	h := "POST " + Endpoint + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	for _, e := range extra {
		h += e + "\r\n"
	}
	return h
}

// trickle writes one byte every interval until the connection fails or
// stop closes.
func trickle(c net.Conn, interval time.Duration, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(interval):
		}
		if _, err := c.Write([]byte("x")); err != nil {
			return
		}
	}
}

// closedWithin reads until the server closes the connection and reports
// whether it did within d.
func closedWithin(c net.Conn, r io.Reader, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, r)
	ne, ok := err.(net.Error)
	return !ok || !ne.Timeout()
}

// Finding 7: headers announcing Content-Length: 200000, then a body
// trickled one byte at a time, held a connection forever. Now the body must
// arrive within the read timeout: 408, and the connection is closed.
func TestFinding7SlowlorisBodyIsCutOff(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	s := startServe(t, testServer(), Options{ReadTimeout: readTimeout})
	c := dial(t, s.addr())
	start := time.Now()
	if _, err := io.WriteString(c, requestHead(s.addr(), "Content-Length: 200000")+"\r\n"+`{"jsonrpc":"2.0",`); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go trickle(c, 20*time.Millisecond, stop)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Fatalf("status %d, Connection: close %v, body %q; want 408 and the connection closed", resp.StatusCode, resp.Close, body)
	}
	if !closedWithin(c, br, 2*time.Second) {
		t.Fatal("connection still open 2 s after the 408")
	}
	lived := time.Since(start)
	t.Logf("a trickled body's connection lived %v (read timeout %v)", lived.Round(time.Millisecond), readTimeout)
	if lived > readTimeout+time.Second {
		t.Fatalf("the connection lived %v with a read timeout of %v", lived, readTimeout)
	}
}

// Finding 7, the headers themselves trickled: cut off at the read timeout.
func TestFinding7SlowlorisHeadersAreCutOff(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	s := startServe(t, testServer(), Options{ReadTimeout: readTimeout})
	c := dial(t, s.addr())
	start := time.Now()
	io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+s.addr()+"\r\nX-Slow: ")
	stop := make(chan struct{})
	defer close(stop)
	go trickle(c, 20*time.Millisecond, stop)
	if !closedWithin(c, c, 2*time.Second) {
		t.Fatal("connection still open after 2 s of trickled headers")
	}
	lived := time.Since(start)
	t.Logf("trickled headers' connection lived %v (read timeout %v)", lived.Round(time.Millisecond), readTimeout)
	if lived > readTimeout+time.Second {
		t.Fatalf("the connection lived %v with a read timeout of %v", lived, readTimeout)
	}
}

// Finding 7: the body was drained before even the 401. Now a request the
// server refuses is answered at once, without waiting for its body (the
// read timeout here is far longer than the test allows), and its
// connection is closed.
func TestFinding7RefusedBeforeTheBodyIsRead(t *testing.T) {
	s := startServe(t, testServer(), Options{Token: "sesame", ReadTimeout: time.Minute})
	cases := []struct {
		name  string
		head  string
		want  int
		check func(*http.Response) error
	}{
		{"no token", requestHead(s.addr(), "Content-Length: 200000"), 401, func(r *http.Response) error {
			if r.Header.Get("WWW-Authenticate") == "" {
				return fmt.Errorf("no WWW-Authenticate")
			}
			return nil
		}},
		{"wrong token", requestHead(s.addr(), "Content-Length: 200000", "Authorization: Bearer sesamE"), 401, nil},
		{"foreign Host", strings.Replace(requestHead(s.addr(), "Content-Length: 200000", "Authorization: Bearer sesame"), "Host: "+s.addr(), "Host: evil.example", 1), 403, nil},
		{"another path", strings.Replace(requestHead(s.addr(), "Content-Length: 200000", "Authorization: Bearer sesame"), Endpoint, "/other", 1), 404, nil},
		{"chunked, no token", requestHead(s.addr(), "Transfer-Encoding: chunked"), 401, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, s.addr())
			start := time.Now()
			io.WriteString(c, tc.head+"\r\n"+"{")
			stop := make(chan struct{})
			defer close(stop)
			go trickle(c, 20*time.Millisecond, stop)
			br := bufio.NewReader(c)
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer within 2 s: %v", err)
			}
			io.Copy(io.Discard, resp.Body)
			answered := time.Since(start)
			if resp.StatusCode != tc.want || !resp.Close {
				t.Fatalf("status %d, Connection: close %v; want %d and the connection closed", resp.StatusCode, resp.Close, tc.want)
			}
			if tc.check != nil {
				if err := tc.check(resp); err != nil {
					t.Fatal(err)
				}
			}
			if !closedWithin(c, br, 2*time.Second) {
				t.Fatal("connection still open 2 s after the answer: the server is reading the body")
			}
			t.Logf("answered in %v, closed after %v", answered.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		})
	}
}

// openFDs is the number of file descriptors this process has open.
func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}

// Finding 7: 20,100 slow connections used every file descriptor and
// honest calls timed out. Now at most MaxConnections are open; at the cap a
// new connection closes the one that has waited longest for its client, so
// an honest call goes through at once (the read timeout is far longer than
// the test).
func TestFinding7ConnectionCap(t *testing.T) {
	const maxConns, slow = 8, 40
	s := startServe(t, testServer(), Options{ReadTimeout: time.Minute, MaxConnections: maxConns})
	// Warm up the server (goroutines, buffers) before counting.
	honest := func() (time.Duration, error) {
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "honest"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + s.addr() + Endpoint, HTTPClient: &http.Client{Transport: tr}}, nil)
		if err != nil {
			return 0, err
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"ms": 0}})
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("tool error: %v", res.Content)
		}
		return time.Since(t0), nil
	}
	if _, err := honest(); err != nil {
		t.Fatal(err)
	}
	idle := openFDs(t)

	stop := make(chan struct{})
	defer close(stop)
	var peak atomic.Int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak.Store(max(peak.Load(), int64(s.ln.open())))
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	// Half trickle their headers, half announce a body and trickle it.
	for i := range slow {
		c := dial(t, s.addr())
		if i%2 == 0 {
			io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+s.addr()+"\r\nX-Slow: ")
		} else {
			io.WriteString(c, requestHead(s.addr(), "Content-Length: 200000")+"\r\n{")
		}
		go trickle(c, 50*time.Millisecond, stop)
	}
	// An honest client queued behind them: the cap evicts maxConns slow
	// connections every evictReceivingAfter.
	queued, err := honest()
	if err != nil {
		t.Fatalf("honest call queued behind %d slow connections: %v", slow, err)
	}
	// The last ones are accepted (and have evicted the others).
	deadline := time.Now().Add(5 * time.Second)
	for s.ln.evicted.Load() < slow-maxConns && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.ln.evicted.Load(); got < slow-maxConns {
		t.Fatalf("%d connections evicted, want at least %d", got, slow-maxConns)
	}
	// Every slow connection holds one descriptor here (the client's end);
	// the server holds at most maxConns (+1 accepted while it evicts).
	serverFDs := openFDs(t) - idle - slow
	took, err := honest()
	if err != nil {
		t.Fatalf("honest call behind %d slow connections: %v", slow, err)
	}
	t.Logf("%d slow connections: server holds %d connection fds (cap %d), %d evicted; an honest connect+call took %v queued behind them, %v once they were in",
		slow, serverFDs, maxConns, s.ln.evicted.Load(), queued.Round(time.Millisecond), took.Round(time.Millisecond))
	if limit := time.Duration(slow/maxConns+2) * evictReceivingAfter; queued > limit+time.Second {
		t.Errorf("honest call queued behind %d slow connections took %v", slow, queued)
	}
	if serverFDs > maxConns+1 {
		t.Errorf("server holds %d descriptors for connections, cap %d", serverFDs, maxConns)
	}
	if took > 2*time.Second {
		t.Errorf("honest call took %v", took)
	}
	if p := peak.Load(); p > maxConns {
		t.Errorf("%d connections open at once, cap %d", p, maxConns)
	}
}

// At the cap with every connection serving a call, a new connection waits
// for one to finish instead of evicting it.
func TestConnectionCapWaitsForBusyConnections(t *testing.T) {
	const maxConns = 3
	s := startServe(t, testServer(), Options{MaxConnections: maxConns})
	call := func(ms int) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + s.addr() + Endpoint, HTTPClient: &http.Client{Transport: tr}}, nil)
		if err != nil {
			return err
		}
		defer cs.Close()
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"ms": ms}})
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*maxConns)
	for range 2 * maxConns {
		wg.Go(func() { errs <- call(300) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("call: %v", err)
		}
	}
	// Every call above was answered: a connection serving one was never
	// cut (a POST cut mid-call is not retried: its call would fail).
	// Under load a connection idle between its client's requests, or slow
	// to send one, may be evicted, as the cap's rules allow: those are
	// counted, not failed.
	t.Logf("%d connections evicted while waiting for their clients", s.ln.evicted.Load())
}

func rawPost(t *testing.T, url, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

type rpcErrorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func initializeWithID(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, id)
}

func countSessions(srv *mcp.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// Finding 8: with --stateful, 20,000 initialize requests made 20,000
// sessions that never ended. Now at most MaxSessions exist (more are
// refused with a JSON-RPC error, 503), and a session unused for
// SessionIdleTimeout ends; a session in use does not.
func TestFinding8StatefulSessionsCappedAndExpire(t *testing.T) {
	const maxSessions, idle = 4, 400 * time.Millisecond
	srv := testServer()
	s := startServe(t, srv, Options{Stateful: true, MaxSessions: maxSessions, SessionIdleTimeout: idle})
	url := "http://" + s.addr() + Endpoint
	var ids []string
	refused := 0
	for i := range 3 * maxSessions {
		resp, body := rawPost(t, url, initializeWithID(100+i), nil)
		switch resp.StatusCode {
		case http.StatusOK:
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				ids = append(ids, id)
			}
		case http.StatusServiceUnavailable:
			refused++
			var r rpcErrorReply
			if err := json.Unmarshal(body, &r); err != nil || r.Error == nil || string(r.ID) != fmt.Sprint(100+i) || !strings.Contains(r.Error.Message, "too many sessions") {
				t.Fatalf("refusal %q: want a JSON-RPC error for id %d saying too many sessions", body, 100+i)
			}
			if resp.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
		default:
			t.Fatalf("initialize %d: status %d: %s", i, resp.StatusCode, body)
		}
	}
	if len(ids) != maxSessions || refused != 2*maxSessions {
		t.Fatalf("%d sessions made and %d refused, want %d and %d", len(ids), refused, maxSessions, 2*maxSessions)
	}
	if n := countSessions(srv); n != maxSessions {
		t.Fatalf("%d sessions exist, want %d", n, maxSessions)
	}

	// A session in use outlives the idle timeout.
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "busy"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil); err == nil {
		t.Fatal("a fifth session was accepted")
	}
	deadline := time.Now().Add(5 * time.Second)
	for countSessions(srv) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := countSessions(srv); n != 0 {
		t.Fatalf("%d idle sessions still exist %v after the idle timeout", n, 5*time.Second)
	}
	resp, _ := rawPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": ids[0], "Mcp-Protocol-Version": "2025-06-18"})
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("expired session: status %d, want 404", resp.StatusCode)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "busy"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("a new session after the others expired: %v", err)
	}
	defer cs.Close()
	for end := time.Now().Add(3 * idle); time.Now().Before(end); time.Sleep(idle / 4) {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"ms": 0}}); err != nil {
			t.Fatalf("a session in use ended: %v", err)
		}
	}
}

// countingServer counts its "count" tool's calls.
func countingServer(calls *atomic.Int64) *mcp.Server {
	s := testServer()
	mcp.AddTool(s, &mcp.Tool{Name: "count"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "counted"}}}, nil, nil
	})
	return s
}

// Finding 9: one POST with 500 tools/call entries ran them all. Now a JSON
// array is refused whole (the 2025-06-18 protocol removed batches) with a
// JSON-RPC error, whatever the protocol version header says, and nothing
// runs.
func TestFinding9BatchesRefused(t *testing.T) {
	var entries []string
	for i := range 500 {
		entries = append(entries, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{}}}`, i+1))
	}
	batch := "[" + strings.Join(entries, ",") + "]"
	for _, stateful := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateful=%v", stateful), func(t *testing.T) {
			var calls atomic.Int64
			s := startServe(t, countingServer(&calls), Options{Stateful: stateful})
			url := "http://" + s.addr() + Endpoint
			var session map[string]string
			if stateful {
				resp, body := rawPost(t, url, initialize, nil)
				if resp.StatusCode != 200 {
					t.Fatalf("initialize: %d %s", resp.StatusCode, body)
				}
				session = map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id")}
			}
			for _, c := range []struct {
				name, body string
				headers    map[string]string
			}{
				{"no version header", batch, session},
				{"2025-03-26", batch, merge(session, "Mcp-Protocol-Version", "2025-03-26")},
				{"2025-06-18", batch, merge(session, "Mcp-Protocol-Version", "2025-06-18")},
				{"leading white space", " \r\n\t" + batch, session},
				{"initialize in a batch", "[" + initialize + "]", nil},
			} {
				resp, body := rawPost(t, url, c.body, c.headers)
				var r rpcErrorReply
				if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(body, &r) != nil || r.Error == nil ||
					r.Error.Code != codeInvalidRequest || string(r.ID) != "null" || !strings.Contains(r.Error.Message, "batches are not accepted") {
					t.Errorf("%s: status %d, body %.200q; want 400 and a JSON-RPC error -32600 refusing batches", c.name, resp.StatusCode, body)
				}
			}
			if n := calls.Load(); n != 0 {
				t.Fatalf("%d calls of a refused batch ran", n)
			}
			// One call per POST still works.
			headers := merge(session, "Mcp-Protocol-Version", "2025-06-18")
			resp, body := rawPost(t, url, entries[0], headers)
			if resp.StatusCode != 200 || calls.Load() != 1 {
				t.Fatalf("a single call: status %d, %d calls: %s", resp.StatusCode, calls.Load(), body)
			}
		})
	}
}

// Finding 9 over a raw connection: the batch is refused as soon as it is
// read, and the connection stays usable.
func TestFinding9BatchRefusedOnRawConnection(t *testing.T) {
	var calls atomic.Int64
	s := startServe(t, countingServer(&calls), Options{})
	c := dial(t, s.addr())
	batch := "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{}}},`, 499) +
		`{"jsonrpc":"2.0","id":500,"method":"tools/call","params":{"name":"count","arguments":{}}}]`
	fmt.Fprintf(c, "%sContent-Length: %d\r\n\r\n%s", requestHead(s.addr()), len(batch), batch)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), `"code":-32600`) {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	one := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count","arguments":{}}}`
	fmt.Fprintf(c, "%sMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", requestHead(s.addr()), len(one), one)
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("the connection after a refused batch: %v", err)
	}
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || calls.Load() != 1 {
		t.Fatalf("single call after the batch: status %d, %d calls: %s", resp.StatusCode, calls.Load(), body)
	}
}

func merge(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for mk, mv := range m {
		out[mk] = mv
	}
	return out
}

// Finding 14: --allow-unauthenticated on 0.0.0.0 dropped the Host check, so
// a page whose name resolves to the server (DNS rebinding) could call it,
// its Origin being its own name. Now without a token only IP addresses,
// loopback names and configured names are served. (The handler is
// configured for 0.0.0.0 but served on a 127.0.0.1 listener.)
func TestFinding14HostCheckStaysOnWithoutToken(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	open := Handler(testServer(), Options{Addr: "0.0.0.0:8080", AllowUnauthenticated: true}, log)
	// With a configured name the SDK's own loopback check is off, so that
	// IP addresses reach ours through this loopback listener.
	named := Handler(testServer(), Options{Addr: "0.0.0.0:8080", AllowUnauthenticated: true, AllowedHosts: []string{"mcp.internal"}}, log)
	tokened := Handler(testServer(), Options{Addr: "0.0.0.0:8080", Token: "sesame", AllowedHosts: []string{"mcp.internal"}}, log)
	cases := []struct {
		name    string
		h       http.Handler
		headers map[string]string
		want    int
	}{
		{"rebound name with its own Origin", open, map[string]string{"Host": "evil.example:8080", "Origin": "http://evil.example:8080"}, 403},
		{"rebound name", open, map[string]string{"Host": "evil.example:8080"}, 403},
		{"loopback name", open, map[string]string{"Host": "localhost:8080"}, 200},
		{"rebound name, hosts configured", named, map[string]string{"Host": "evil.example:8080", "Origin": "http://evil.example:8080"}, 403},
		{"IP address", named, map[string]string{"Host": "192.0.2.7:8080"}, 200},
		{"IPv6 address", named, map[string]string{"Host": "[2001:db8::7]:8080"}, 200},
		{"configured name", named, map[string]string{"Host": "mcp.internal:8080"}, 200},
		{"with a token, configured name", tokened, map[string]string{"Host": "mcp.internal", "Authorization": "Bearer sesame"}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := post(t, c.h, c.headers, initialize).StatusCode; got != c.want {
				t.Fatalf("status %d, want %d", got, c.want)
			}
		})
	}
}
