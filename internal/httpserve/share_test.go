//go:build unix

package httpserve

// Clients that hold connections (docs/security.md, findings 03 and 04), the
// per-client share and the trusted-proxy rule, and JSON-RPC errors for
// what the SDK refuses in plain text.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dialerFrom dials from the loopback address ip: to the server, each
// address is another client.
func dialerFrom(ip string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 2 * time.Second}
}

// callFrom posts one tools/call of the "wait" tool from ip, with an
// X-Forwarded-For header unless xff is "", and returns the status and
// body.
func callFrom(t *testing.T, url, ip, xff string, ms int) (int, []byte) {
	t.Helper()
	tr := &http.Transport{DialContext: dialerFrom(ip).DialContext}
	defer tr.CloseIdleConnections()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"wait","arguments":{"ms":%d}}}`, ms)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := (&http.Client{Transport: tr}).Do(req.WithContext(ctx))
	if err != nil {
		t.Errorf("call from %s (X-Forwarded-For %q): %v", ip, xff, err)
		return 0, nil
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, data
}

// checkShareRefusal checks a refusal for being past one's share: 503 and
// a JSON-RPC error that says so.
func checkShareRefusal(t *testing.T, status int, body []byte) {
	t.Helper()
	var r rpcErrorReply
	if status != http.StatusServiceUnavailable || json.Unmarshal(body, &r) != nil || r.Error == nil || r.Error.Code != codeServerBusy || string(r.ID) != "5" || !strings.Contains(r.Error.Message, "from your address") {
		t.Errorf("status %d %q: want 503 with a JSON-RPC error for id 5 saying too many from your address", status, body)
	}
}

// concurrently runs the calls at once and returns their statuses and
// bodies, in order.
func concurrently(calls ...func() (int, []byte)) ([]int, [][]byte) {
	statuses, bodies := make([]int, len(calls)), make([][]byte, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() { statuses[i], bodies[i] = c() })
		time.Sleep(100 * time.Millisecond) // in this order
	}
	wg.Wait()
	return statuses, bodies
}

// One client address has at most its share of connections busy: past it,
// with its own connections all serving calls, a new request waits (up to
// the read timeout), then is refused with a JSON-RPC error; another
// address is served meanwhile.
func TestPerClientShareOfConnections(t *testing.T) {
	s := startServe(t, testServer(), Options{MaxConnections: 16, MaxConnectionsPerClient: 2, ReadTimeout: time.Second})
	url := "http://" + s.addr() + Endpoint
	var other int
	statuses, bodies := concurrently(
		func() (int, []byte) { return callFrom(t, url, "127.0.0.21", "", 3000) },
		func() (int, []byte) { return callFrom(t, url, "127.0.0.21", "", 3000) },
		func() (int, []byte) { return callFrom(t, url, "127.0.0.21", "", 0) },
		func() (int, []byte) { other, _ = callFrom(t, url, "127.0.0.22", "", 0); return other, nil },
	)
	if statuses[0] != http.StatusOK || statuses[1] != http.StatusOK {
		t.Errorf("the two calls within the share: status %d and %d", statuses[0], statuses[1])
	}
	checkShareRefusal(t, statuses[2], bodies[2])
	if other != http.StatusOK {
		t.Errorf("another address beside a client at its share: status %d", other)
	}
}

// postFrom posts body from ip with the headers, and returns the response
// (its body read).
func postFrom(t *testing.T, url, ip, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	tr := &http.Transport{DialContext: dialerFrom(ip).DialContext}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := (&http.Client{Transport: tr}).Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, data
}

// openStreamFrom makes a --stateful session from ip and opens its GET
// event stream, which has nothing to send.
func openStreamFrom(t *testing.T, addr, ip string) net.Conn {
	t.Helper()
	url := "http://" + addr + Endpoint
	res, _ := postFrom(t, url, ip, initialize, nil)
	sid := res.Header.Get("Mcp-Session-Id")
	postFrom(t, url, ip, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"})
	c, err := dialerFrom(ip).Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n", Endpoint, addr, sid)
	return c
}

// A client whose share is taken by its event streams: its next request
// closes its own oldest quiet stream (quiet for over a second), and is
// served; its younger stream stays.
func TestPerClientShareEvictsTheClientsQuietStream(t *testing.T) {
	s := startServe(t, testServer(), Options{Stateful: true, MaxConnections: 16, MaxConnectionsPerClient: 2})
	old := openStreamFrom(t, s.addr(), "127.0.0.23")
	time.Sleep(2 * evictQuietAfter)
	young := openStreamFrom(t, s.addr(), "127.0.0.23")
	if res, body := postFrom(t, "http://"+s.addr()+Endpoint, "127.0.0.23", initialize, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("a request beside two streams at a share of 2: status %d %q", res.StatusCode, body)
	}
	if !closedWithin(old, old, 2*time.Second) {
		t.Error("the stream quiet for a while was not closed")
	}
	young.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := io.Copy(io.Discard, young); err == nil || !err.(net.Error).Timeout() {
		t.Errorf("the younger stream was closed too (%v)", err)
	}
}

// X-Forwarded-For counts only from a trusted proxy: a client that forges
// it from elsewhere gets no share of its own, while a trusted proxy's
// requests count for the clients it names (each within its own share).
func TestTrustedProxyForwardedClient(t *testing.T) {
	const proxy, untrusted = "127.0.0.31", "127.0.0.32"
	s := startServe(t, testServer(), Options{MaxConnections: 16, MaxConnectionsPerClient: 2, ReadTimeout: time.Second, TrustedProxies: []string{proxy + "/32"}})
	url := "http://" + s.addr() + Endpoint
	forged := func(i int, ms int) func() (int, []byte) {
		return func() (int, []byte) { return callFrom(t, url, untrusted, fmt.Sprintf("203.0.113.%d", i), ms) }
	}
	statuses, bodies := concurrently(forged(1, 3000), forged(2, 3000), forged(3, 0))
	if statuses[0] != http.StatusOK || statuses[1] != http.StatusOK {
		t.Errorf("the untrusted peer's two calls: status %d and %d", statuses[0], statuses[1])
	}
	checkShareRefusal(t, statuses[2], bodies[2])

	// Through the proxy, three clients at once, each named after forged
	// entries of its own: all served (the proxy itself has no share).
	via := func(xff string, ms int) func() (int, []byte) {
		return func() (int, []byte) { return callFrom(t, url, proxy, xff, ms) }
	}
	statuses, bodies = concurrently(via("9.9.9.9, 198.51.100.1", 2000), via("198.51.100.2", 2000), via("198.51.100.3", 2000))
	for i, st := range statuses {
		if st != http.StatusOK {
			t.Errorf("client %d through the proxy: status %d %q", i+1, st, bodies[i])
		}
	}
	// One client through the proxy, whatever it forges left of the
	// proxy's entry, has one share.
	statuses, bodies = concurrently(via("1.1.1.1, 198.51.100.7", 3000), via("2.2.2.2, 198.51.100.7", 3000), via("3.3.3.3, 198.51.100.7", 0))
	if statuses[0] != http.StatusOK || statuses[1] != http.StatusOK {
		t.Errorf("one forwarded client's two calls: status %d and %d", statuses[0], statuses[1])
	}
	checkShareRefusal(t, statuses[2], bodies[2])
}

func TestForwardedClient(t *testing.T) {
	proxies, err := parseTrustedProxies([]string{"10.0.0.0/8", "192.0.2.7", "2001:db8:ffff::/48"})
	if err != nil {
		t.Fatal(err)
	}
	const peer = "10.1.1.1"
	for _, c := range []struct {
		header []string
		want   string
	}{
		{nil, peer},
		{[]string{"198.51.100.4"}, "198.51.100.4"},
		{[]string{"6.6.6.6, 198.51.100.4"}, "198.51.100.4"},             // the client's own entry is left of the proxy's
		{[]string{"6.6.6.6", "198.51.100.4, 10.2.2.2"}, "198.51.100.4"}, // two headers, then a trusted hop
		{[]string{"198.51.100.4, 192.0.2.7, 10.2.2.2"}, "198.51.100.4"}, // through two trusted proxies
		{[]string{"10.3.3.3, 10.2.2.2"}, "10.3.3.3"},                    // all trusted: the left-most
		{[]string{"6.6.6.6, not-an-address"}, peer},                     // no trusted proxy writes that
		{[]string{"[2001:db8:1:2:3::9]:4711"}, "2001:db8:1:2::/64"},     // IPv6 by its /64
		{[]string{"2001:db8:1:2::1, 2001:db8:ffff::1"}, "2001:db8:1:2::/64"},
		{[]string{"::ffff:198.51.100.4"}, "198.51.100.4"},
	} {
		if got := proxies.forwardedClient(c.header, peer); got != c.want {
			t.Errorf("X-Forwarded-For %q: client %q, want %q", c.header, got, c.want)
		}
	}
	if _, err := parseTrustedProxies([]string{"10.0.0.0/33"}); err == nil {
		t.Error("10.0.0.0/33 accepted")
	}
}

// fakeConn is a tracked connection in a given state, for victimLocked.
func fakeConn(l *limitListener, phase connPhase, since time.Time) *trackedConn {
	c := &trackedConn{l: l, phase: phase, since: since}
	l.conns[c] = struct{}{}
	return c
}

// At the cap the order of eviction is: connections held up mid-request
// (a reply stalled for a second, a request still arriving after 250 ms, a
// connection queued past its client's share), oldest first; then idle
// ones (between requests for a second, event streams with nothing sent
// for a second), oldest first; never a call being served, nor a reply
// that is moving.
func TestEvictionOrder(t *testing.T) {
	l := newLimitListener(nil, Options{MaxConnections: 16}.withDefaults(), nil, nil)
	now := time.Now()
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	serving := fakeConn(l, phaseServing, ago(time.Hour))
	moving := fakeConn(l, phaseServing, ago(time.Hour))
	moving.stalledSince.Store(ago(100 * time.Millisecond).UnixNano())
	stalled := fakeConn(l, phaseServing, ago(time.Hour))
	stalled.stalledSince.Store(ago(3 * time.Second).UnixNano())
	receiving := fakeConn(l, phaseReceiving, ago(2*time.Second))
	young := fakeConn(l, phaseReceiving, ago(100*time.Millisecond))
	queued := fakeConn(l, phaseReceiving, ago(time.Second))
	queued.queueLocked()
	queued.queuedAt = ago(time.Second)
	idle := fakeConn(l, phaseIdle, ago(5*time.Second))
	stream := fakeConn(l, phaseStreaming, ago(time.Hour))
	stream.wroteAt.Store(ago(4 * time.Second).UnixNano())
	busyStream := fakeConn(l, phaseStreaming, ago(time.Hour))
	busyStream.wroteAt.Store(ago(200 * time.Millisecond).UnixNano())
	names := map[*trackedConn]string{serving: "serving", moving: "moving reply", stalled: "stalled reply", receiving: "receiving",
		young: "young receiving", queued: "queued", idle: "idle", stream: "quiet stream", busyStream: "stream that just sent"}

	var order []string
	for {
		c, _ := l.victimLocked(now, nil)
		if c == nil {
			break
		}
		order = append(order, names[c])
		delete(l.conns, c)
	}
	want := "stalled reply, receiving, queued, idle, quiet stream"
	if got := strings.Join(order, ", "); got != want {
		t.Errorf("eviction order: %s\nwant:           %s", got, want)
	}
	if _, wait := l.victimLocked(now, nil); wait <= 0 || wait > evictStalledAfter {
		t.Errorf("%v until the next may be evicted, want (0, %v]", wait, evictStalledAfter)
	}
	if len(l.conns) != 4 {
		t.Errorf("%d connections left, want serving, moving reply, young receiving, stream that just sent", len(l.conns))
	}
}

// bigServer has a tool, "big", whose reply is 16 MiB (more than the
// kernel's socket buffers hold).
const bigReply = 16 << 20

func bigServer() *mcp.Server {
	s := testServer()
	mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", bigReply)}}}, nil, nil
	})
	return s
}

// docs/security.md, finding 03, without the cap: a client that does not
// read its reply held the connection forever (no write deadline). Now the
// connection is closed once the reply has made no progress for
// WriteTimeout.
func TestFinding03WriteDeadline(t *testing.T) {
	s := startServe(t, bigServer(), Options{WriteTimeout: 300 * time.Millisecond})
	d := dialerFrom("127.0.0.1")
	d.Control = func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1024) })
	}
	c, err := d.Dial("tcp", s.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`
	fmt.Fprintf(c, "%sContent-Length: %d\r\n\r\n%s", requestHead(s.addr()), len(body), body)
	deadline := time.Now().Add(10 * time.Second)
	for s.ln.open() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := s.ln.open(); n != 0 {
		t.Fatalf("a client that does not read still holds %d connection(s) after 10 s (write timeout 300 ms)", n)
	}
}

// docs/security.md, finding 04, without the cap: an event stream is
// tracked as one, and evicted at the cap once quiet; see test/load for
// the attack itself. Here: the stream's phase.
func TestEventStreamIsTrackedAsAStream(t *testing.T) {
	s := startServe(t, testServer(), Options{Stateful: true})
	url := "http://" + s.addr() + Endpoint
	resp, _ := rawPost(t, url, initialize, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"})
	c := dial(t, s.addr())
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n", Endpoint, s.addr(), sid)
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.ln.mu.Lock()
		streams := 0
		for tc := range s.ln.conns {
			if tc.phase == phaseStreaming {
				streams++
			}
		}
		s.ln.mu.Unlock()
		if streams == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections tracked as event streams, want 1", streams)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// docs/security.md, the misleading messages: an unknown JSON-RPC method
// over HTTP got a plain-text 400 ("JSON RPC not handled"). Now it is a
// JSON-RPC error, -32601, for the request's id; other refusals of a
// message are JSON-RPC errors too.
func TestUnknownMethodIsAJSONRPCError(t *testing.T) {
	s := startServe(t, testServer(), Options{})
	url := "http://" + s.addr() + Endpoint
	for _, c := range []struct {
		name, body, id string
		code           int
	}{
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"nosuch/method","params":{}}`, "7", codeMethodNotFound},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/nosuch"}`, "null", codeMethodNotFound},
		{"a call without an id", `{"jsonrpc":"2.0","method":"tools/list"}`, "null", codeInvalidRequest},
		{"not JSON", `{"jsonrpc":"2.0","id":8,`, "null", codeParseError},
	} {
		for _, version := range []string{"", "2025-06-18"} {
			headers := map[string]string{}
			if version != "" {
				headers["Mcp-Protocol-Version"] = version
			}
			resp, body := rawPost(t, url, c.body, headers)
			var r rpcErrorReply
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/json" ||
				json.Unmarshal(body, &r) != nil || r.Error == nil || r.Error.Code != c.code || string(r.ID) != c.id || r.JSONRPC != "2.0" {
				t.Errorf("%s (version %q): status %d, %s, %q: want 400, a JSON-RPC error %d for id %s", c.name, version, resp.StatusCode, resp.Header.Get("Content-Type"), body, c.code, c.id)
			}
		}
	}
	resp, body := rawPost(t, url, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"wait"`) {
		t.Errorf("tools/list: status %d %q", resp.StatusCode, body)
	}
}

// The write deadline moves with the reply: a client that reads a 16 MiB
// reply slowly, but steadily, for several times the write timeout gets
// all of it.
func TestWriteDeadlineMovesWithProgress(t *testing.T) {
	s := startServe(t, bigServer(), Options{WriteTimeout: 300 * time.Millisecond})
	d := dialerFrom("127.0.0.1")
	d.Control = func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10) })
	}
	c, err := d.Dial("tcp", s.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`
	fmt.Fprintf(c, "%sContent-Length: %d\r\nConnection: close\r\n\r\n%s", requestHead(s.addr()), len(body), body)
	start, total := time.Now(), 0
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		total += n
		if err != nil {
			break
		}
		time.Sleep(5 * time.Millisecond) // at most 64 KiB per 5 ms: 13 MB/s
	}
	took := time.Since(start)
	t.Logf("read %d bytes in %v (write timeout 300 ms)", total, took.Round(time.Millisecond))
	if total < bigReply {
		t.Fatalf("the reply was cut at %d bytes after %v", total, took)
	}
}
