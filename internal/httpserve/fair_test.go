//go:build unix

package httpserve

// Fair under load (docs/security.md, review 4, findings 18 and 21): one
// address's unread calls hold at most its share of the git slots while
// another address's calls complete, and a call still running when the
// shutdown timeout passes is answered UNAVAILABLE.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"
)

// slotServer serves "slot": a call that holds a git process slot of env,
// until release closes or its context ends when hold is set; it counts,
// by client, the slots held, their peak, and the calls refused.
type slotServer struct {
	srv     *mcp.Server
	release chan struct{}

	mu                    sync.Mutex
	held, peak, refused   map[string]int
	entered, stoppedEarly map[string]int
}

func newSlotServer(t *testing.T, slots int) *slotServer {
	env, err := gitexec.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	env.LimitProcesses(slots)
	s := &slotServer{
		srv: mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil), release: make(chan struct{}),
		held: map[string]int{}, peak: map[string]int{}, refused: map[string]int{}, entered: map[string]int{}, stoppedEarly: map[string]int{},
	}
	type in struct {
		Hold bool `json:"hold"`
	}
	calls := toolcall.New(paging.Budget{MaxBytes: 64 << 10}, time.Minute, slog.New(slog.DiscardHandler), &mcp.Implementation{Name: "t", Version: "1"})
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"hold": {Type: "boolean"}}}
	toolcall.Add(s.srv, calls, &mcp.Tool{Name: "slot", InputSchema: schema}, schema, func(ctx context.Context, i in) (paging.Wire, error) {
		c := callctx.Client(ctx)
		s.count(func() { s.entered[c]++ })
		release, err := env.HoldSlot(ctx)
		if err != nil {
			var busy *gitexec.BusyError
			switch {
			case errors.As(err, &busy):
				s.count(func() { s.refused[c]++ })
			case ctx.Err() != nil: // waiting for a slot
				s.count(func() { s.stoppedEarly[c]++ })
			}
			return paging.Wire{}, err
		}
		defer release()
		s.count(func() { s.held[c]++; s.peak[c] = max(s.peak[c], s.held[c]) })
		defer s.count(func() { s.held[c]-- })
		if i.Hold {
			select {
			case <-s.release:
			case <-ctx.Done():
				s.count(func() { s.stoppedEarly[c]++ })
			}
		}
		return paging.Wire{Text: "done"}, nil
	})
	return s
}

func (s *slotServer) count(f func()) {
	s.mu.Lock()
	f()
	s.mu.Unlock()
}

func (s *slotServer) get(m map[string]int, c string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return m[c]
}

// eventually polls cond (the state of calls this test made) until it
// holds; the test's own deadline bounds it.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if t.Context().Err() != nil {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func slotCall(id int, hold bool) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slot","arguments":{"hold":%v}}}`, id, hold)
}

// TestUnreadCallsHeldAtTheirShare: review 4, finding 18. With 4 slots,
// an honest address holds one in a long call; a hostile address then sends
// 22 long calls on 22 connections and never reads a reply. It holds at
// most its share (2 of 4: two clients) and the other 20 wait, holding no
// slot (the least queue, 256, is past what an address's connections
// carry; gitexec's tests refuse past a small one); the honest address's
// short calls meanwhile complete, each
// finding a slot. When the hostile client closes its connections, its
// calls stop, those holding slots and those waiting. Before, the hostile
// address held 3 slots (all but one) whatever the other client held, and
// its 19 other calls all waited, each holding a connection, until their
// deadline.
func TestUnreadCallsHeldAtTheirShare(t *testing.T) {
	const honest, hostile = "127.0.0.32", "127.0.0.31"
	ss := newSlotServer(t, 4)
	s := startServe(t, ss.srv, Options{MaxConnections: 64, MaxConnectionsPerClient: 32})
	url := "http://" + s.addr() + Endpoint
	longDone := make(chan int, 1)
	go func() {
		res, _ := postFrom(t, url, honest, slotCall(1, true), nil)
		longDone <- res.StatusCode
	}()
	eventually(t, "the honest long call holds a slot", func() bool { return ss.get(ss.held, honest) == 1 })

	var conns []net.Conn
	for i := range 22 {
		c, err := dialerFrom(hostile).Dial("tcp", s.addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		body := slotCall(100+i, true)
		fmt.Fprintf(c, "%sContent-Length: %d\r\n\r\n%s", requestHead(s.addr()), len(body), body)
		conns = append(conns, c) // never read
	}
	eventually(t, "the hostile calls all hold or wait", func() bool {
		return ss.get(ss.entered, hostile) == 22 && ss.get(ss.held, hostile) == 2 && ss.get(ss.refused, hostile) == 0
	})
	for i := range 5 {
		res, body := postFrom(t, url, honest, slotCall(10+i, false), nil)
		if res.StatusCode != 200 || !strings.Contains(string(body), `"text":"done"`) {
			t.Fatalf("honest short call %d beside the hostile address: %d %s", i, res.StatusCode, body)
		}
	}
	if p := ss.get(ss.peak, hostile); p > 2 {
		t.Fatalf("the hostile address held %d of 4 slots; its share is 2", p)
	}
	for _, c := range conns {
		c.Close()
	}
	eventually(t, "the hostile calls stop with their connections", func() bool {
		return ss.get(ss.held, hostile) == 0 && ss.get(ss.stoppedEarly, hostile) == 22
	})
	close(ss.release)
	if code := <-longDone; code != 200 {
		t.Fatalf("the honest long call: %d", code)
	}
}

// TestShutdownTimeoutAnswersUnavailable: review 4, finding 21. A call
// still running when --shutdown-timeout passes is stopped and answered
// UNAVAILABLE, saying the server is shutting down and to call again, not
// dropped with its connection. Before, the connection closed with no
// answer.
func TestShutdownTimeoutAnswersUnavailable(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	calls := toolcall.New(paging.Budget{MaxBytes: 64 << 10}, time.Minute, slog.New(slog.DiscardHandler), &mcp.Implementation{Name: "t", Version: "1"})
	started := make(chan struct{})
	toolcall.Add(srv, calls, &mcp.Tool{Name: "forever", InputSchema: &jsonschema.Schema{Type: "object"}}, &jsonschema.Schema{Type: "object"},
		func(ctx context.Context, _ struct{}) (paging.Wire, error) {
			close(started)
			<-ctx.Done() // like git killed at the call's end
			return paging.Wire{}, context.Cause(ctx)
		})
	for _, stateful := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateful=%v", stateful), func(t *testing.T) {
			if stateful {
				started = make(chan struct{})
			}
			s, err := listen(srv, Options{Addr: "127.0.0.1:0", ShutdownTimeout: 200 * time.Millisecond, Stateful: stateful}, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.run(ctx) }()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + s.addr() + Endpoint}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			type outcome struct {
				res *mcp.CallToolResult
				err error
			}
			result := make(chan outcome, 1)
			go func() {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "forever", Arguments: map[string]any{}})
				result <- outcome{res, err}
			}()
			<-started
			stop()
			got := <-result
			if got.err != nil {
				t.Fatalf("the call still running at the shutdown timeout: %v; want an UNAVAILABLE result", got.err)
			}
			text, _ := json.Marshal(got.res.Content)
			if !got.res.IsError || !strings.Contains(string(text), "UNAVAILABLE: the server is shutting down") || !strings.Contains(string(text), "call again") {
				t.Fatalf("the call still running at the shutdown timeout: %s", text)
			}
			if err := <-done; err != nil {
				t.Fatalf("Serve: %v", err)
			}
		})
	}
}
