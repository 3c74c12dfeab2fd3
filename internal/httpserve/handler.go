package httpserve

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
)

// JSON-RPC error codes the guard answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeServerBusy     = -32000
)

// Handler wraps the MCP handler with the checks, in order: path, Host,
// Origin, token (all before any byte of the body is read; a refused
// request's body is never read and its connection is closed), then the
// body, read within the read timeout and the size limit, then no batches,
// then the client's share of busy connections, then (stateful) the
// session cap.
func Handler(srv *mcp.Server, o Options, log *slog.Logger) http.Handler {
	o = o.withDefaults()
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:           !o.Stateful,
		MaxRequestBodyBytes: o.MaxBodyBytes,
		Logger:              log,
		// A call ends with its HTTP request: nobody is left to read the
		// answer. (For older protocol versions, see callctx.)
		PropagateRequestCancellation: true,
		// The SDK refuses any non-loopback Host on a loopback listener;
		// hostAllowed does the same unless hosts are configured.
		DisableLocalhostProtection: len(o.AllowedHosts) > 0,
		// Stateful only: a session unused this long is closed.
		SessionTimeout: o.SessionIdleTimeout,
	})
	g := &guard{
		o:        o,
		mcp:      mcpHandler,
		loopback: isLoopbackAddr(o.Addr),
		open:     o.open(),
		log:      log,
	}
	if o.Token != "" {
		g.want = sha256.Sum256([]byte(o.Token))
	}
	if o.Stateful {
		g.sessions = &sessionCap{srv: srv, max: o.MaxSessions}
	}
	return g
}

type guard struct {
	o              Options
	mcp            http.Handler
	want           [32]byte
	loopback, open bool
	sessions       *sessionCap // nil when stateless
	log            *slog.Logger
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Endpoint {
		refuse(w, r, http.StatusNotFound, "Not Found: the MCP endpoint is "+Endpoint)
		return
	}
	if !hostAllowed(r.Host, g.loopback, g.open, g.o.AllowedHosts) {
		msg := fmt.Sprintf("Forbidden: Host %q is not served here", r.Host)
		if g.open {
			msg += " (without --http-token only IP addresses, loopback names and --allowed-hosts are, against DNS rebinding)"
		}
		refuse(w, r, http.StatusForbidden, msg)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host, g.loopback, g.o.AllowedOrigins) {
		refuse(w, r, http.StatusForbidden, fmt.Sprintf("Forbidden: Origin %q is not allowed", origin))
		return
	}
	if g.o.Token != "" {
		// The scheme is case-insensitive (RFC 7235). Compare digests:
		// constant time, and nothing leaks the length.
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		got := sha256.Sum256([]byte(token))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], g.want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-repo-tools"`)
			refuse(w, r, http.StatusUnauthorized, "Unauthorized: send the server's token as 'Authorization: Bearer TOKEN'")
			return
		}
	}

	tc := connFrom(r.Context())
	rc := http.NewResponseController(w)
	body, err := g.readBody(w, r, tc, rc)
	if err != nil {
		w.Header().Set("Connection", "close")
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			http.Error(w, fmt.Sprintf("Request Entity Too Large: the body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
		case errors.Is(err, os.ErrDeadlineExceeded):
			http.Error(w, fmt.Sprintf("Request Timeout: the body did not arrive within %v", g.o.ReadTimeout), http.StatusRequestTimeout)
		default:
			http.Error(w, "Bad Request: reading the body: "+err.Error(), http.StatusBadRequest)
		}
		return
	}
	// From here on nothing more is read from the client but the next
	// request: a call, or a --stateful event stream, may outlast the read
	// timeout (and net/http cancels the request when a read times out).
	_ = rc.SetReadDeadline(time.Time{}) // the body is in; a connection that cannot take deadlines never got this far

	if isBatch(body) {
		writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest,
			"JSON-RPC batches are not accepted (MCP 2025-06-18 removed them): send one JSON-RPC message per HTTP POST")
		return
	}
	client, ok := tc.takeShare(r)
	if !ok {
		w.Header().Set("Retry-After", "1")
		writeRPCError(w, http.StatusServiceUnavailable, requestID(body), codeServerBusy, shareMessage(tc.l.perClient))
		return
	}
	if g.sessions != nil && r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
		// A POST without a session starts one.
		if !g.sessions.acquire() {
			g.sessions.logRefusal(g.log)
			w.Header().Set("Retry-After", strconv.Itoa(int(min(g.o.SessionIdleTimeout, 10*time.Minute)/time.Second)))
			writeRPCError(w, http.StatusServiceUnavailable, requestID(body), codeServerBusy,
				fmt.Sprintf("too many sessions: this server keeps at most %d (--max-sessions); one ends when its client deletes it or after %v unused; retry later", g.o.MaxSessions, g.o.SessionIdleTimeout))
			return
		}
		defer g.sessions.release()
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	if r.Method == http.MethodGet {
		// An event stream: the cap may evict it while it has nothing
		// to send.
		tc.setPhase(phaseStreaming)
		defer tc.setPhase(phaseServing)
	}
	// The call's git processes share the slots fairly with other
	// clients', and within its client with the client's other
	// connections' (a --stateful session's calls count as the client and
	// connection that started it).
	r = r.WithContext(callctx.WithCaller(callctx.WithClient(r.Context(), client), r.RemoteAddr))
	if !g.o.Stateful {
		// Stateless, the SDK serves each request in a session made with
		// its context: a call ends with its request. A --stateful
		// session keeps the values of the request that made it (an
		// initialize, long answered), which would end every call at
		// once: there a call ends at its deadline, or when its client
		// cancels it.
		r = r.WithContext(callctx.WithRequest(r.Context()))
	}
	if r.Method != http.MethodPost {
		g.mcp.ServeHTTP(w, r)
		return
	}
	pr := &plainRefusal{ResponseWriter: w}
	g.mcp.ServeHTTP(pr, r)
	pr.answerAsRPC(body)
}

// plainRefusal holds back the SDK's plain-text 400 answer to a POSTed
// JSON-RPC message (an unknown method, a missing id, a malformed body), so
// that it goes out as a JSON-RPC error, which a client can read, instead.
type plainRefusal struct {
	http.ResponseWriter
	caught bool
	text   []byte
}

func (p *plainRefusal) WriteHeader(status int) {
	if status == http.StatusBadRequest && strings.HasPrefix(p.Header().Get("Content-Type"), "text/plain") {
		p.caught = true
		return
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *plainRefusal) Write(b []byte) (int, error) {
	if !p.caught {
		return p.ResponseWriter.Write(b)
	}
	if room := 1024 - len(p.text); room > 0 {
		p.text = append(p.text, b[:min(len(b), room)]...)
	}
	return len(b), nil
}

// Flush is the ResponseController's way in (it would otherwise unwrap
// and send a caught answer's headers as 200).
func (p *plainRefusal) Flush() {
	if !p.caught {
		_ = http.NewResponseController(p.ResponseWriter).Flush() // best effort, as the SDK's own
	}
}

func (p *plainRefusal) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// answerAsRPC sends a caught refusal of the message in body as a JSON-RPC
// error.
func (p *plainRefusal) answerAsRPC(body []byte) {
	if !p.caught {
		return
	}
	text := strings.TrimSpace(string(p.text))
	id, method := messageHead(body)
	code := codeInvalidRequest
	switch {
	case !json.Valid(body):
		code = codeParseError
	case method != "" && strings.Contains(text, strconv.Quote(method)+" unsupported"):
		code = codeMethodNotFound
		text = fmt.Sprintf("method not found: %q is not a method this MCP server handles (tools/list lists its tools; tools/call calls one)", method)
	}
	p.Header().Del("X-Content-Type-Options")
	writeRPCError(p.ResponseWriter, http.StatusBadRequest, id, code, text)
}

// readBody reads the whole body, within the read timeout and the size
// limit. The connection counts as waiting for its client meanwhile (the
// connection cap may evict it).
func (g *guard) readBody(w http.ResponseWriter, r *http.Request, tc *trackedConn, rc *http.ResponseController) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	tc.setPhase(phaseReceiving)
	defer tc.setPhase(phaseServing)
	if err := rc.SetReadDeadline(time.Now().Add(g.o.ReadTimeout)); err != nil {
		return nil, err // without a deadline the body could trickle forever
	}
	limit := g.o.MaxBodyBytes
	if limit <= 0 {
		limit = mcp.DefaultMaxRequestBodyBytes
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// refuse answers without reading the body, and closes the connection:
// net/http would otherwise read up to 256 KiB of the body, at the client's
// pace, before sending the answer (and again after it, to reuse the
// connection), and a refused client has no business keeping a connection.
// Nothing more is read from the connection (what the client sent with its
// headers may already be buffered).
func refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now()) // best effort: the connection closes anyway
	http.Error(w, msg, status)
}

// isBatch reports whether body is a JSON array.
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// requestID is the id of the JSON-RPC request in body, or nil.
func requestID(body []byte) json.RawMessage {
	id, _ := messageHead(body)
	return id
}

// messageHead is the id (nil if none) and method of the JSON-RPC message
// in body.
func messageHead(body []byte) (json.RawMessage, string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil {
		return nil, ""
	}
	return m.ID, m.Method
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(rpcErrorBody(id, code, msg)) // a client gone away has nothing more to hear
}

// rpcErrorBody is a JSON-RPC error reply, newline-terminated.
func rpcErrorBody(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
	return append(data, '\n')
}

// sessionCap counts the server's sessions, and the requests that may be
// creating one, against the cap.
type sessionCap struct {
	srv     *mcp.Server
	max     int
	mu      sync.Mutex
	pending int
	// Refusals are logged at most once a minute.
	refused int
	logged  time.Time
}

func (s *sessionCap) logRefusal(log *slog.Logger) {
	s.mu.Lock()
	s.refused++
	now := time.Now()
	if now.Sub(s.logged) < time.Minute {
		s.mu.Unlock()
		return
	}
	n := s.refused
	s.refused, s.logged = 0, now
	s.mu.Unlock()
	log.Warn("new sessions refused: too many sessions (logged at most once a minute)", "max-sessions", s.max, "refused", n)
}

func (s *sessionCap) acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.pending
	for range s.srv.Sessions() {
		n++
	}
	if n >= s.max {
		return false
	}
	s.pending++
	return true
}

func (s *sessionCap) release() {
	s.mu.Lock()
	s.pending--
	s.mu.Unlock()
}
