// Package httpserve serves the MCP server over streamable HTTP for many
// agents: loopback by default, a bearer token required off loopback, Host
// and Origin checks against DNS rebinding, a request size limit, and a
// graceful shutdown that lets calls in flight finish.
//
// Against hostile clients: a request's headers, then its body, must each
// arrive within ReadTimeout, and a reply's next bytes must be taken within
// WriteTimeout; the token is checked before the body is read (and a
// refused body is never read); at most MaxConnections are open at once,
// and at that cap a new connection evicts the one that has waited longest
// for its client (a reply it does not take and a quiet event stream
// included); one client keeps at most MaxConnectionsPerClient busy (calls,
// event streams), counted by the forwarded address behind TrustedProxies; --stateful sessions end
// after SessionIdleTimeout unused and at most MaxSessions exist; JSON-RPC
// batches are refused.
package httpserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// Options configure the HTTP transport. Zero limits take the defaults below.
type Options struct {
	Addr                 string
	Token                string   // bearer token clients must send; "" for none
	AllowUnauthenticated bool     // allow no token on a non-loopback address
	AllowedHosts         []string // Host header values accepted besides the defaults
	AllowedOrigins       []string // Origin values (scheme://host[:port]) accepted besides the defaults
	MaxBodyBytes         int64    // request body limit
	Stateful             bool     // keep sessions (Mcp-Session-Id) instead of stateless requests
	ShutdownTimeout      time.Duration

	// ReadTimeout is how long a client has to send a request's headers,
	// and then again its body.
	ReadTimeout time.Duration
	// MaxConnections caps the connections open at once (each is a file
	// descriptor).
	MaxConnections int
	// MaxSessions caps the --stateful sessions that exist at once; a new
	// one past it is refused (503) until one ends.
	MaxSessions int
	// SessionIdleTimeout ends a --stateful session that received no
	// request for this long; its client must initialize again.
	SessionIdleTimeout time.Duration
	// WriteTimeout is how long a reply (an event stream included) may
	// wait for its client to take its next bytes; then the connection is
	// closed.
	WriteTimeout time.Duration
	// MaxConnectionsPerClient caps the connections one client address
	// (an IPv6 client's /64) keeps busy at once: serving its requests or
	// holding its event streams. 0 is a quarter of MaxConnections.
	MaxConnectionsPerClient int
	// TrustedProxies are the load balancers (addresses or CIDRs) whose
	// X-Forwarded-For names the client a request counts for; from others
	// the header is ignored.
	TrustedProxies []string
}

// Defaults of the limits.
const (
	DefaultReadTimeout        = 10 * time.Second
	DefaultMaxConnections     = 512
	DefaultMaxSessions        = 1000
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultWriteTimeout       = 10 * time.Second
	// fdReserve are the file descriptors kept for everything but
	// connections (git processes and their pipes, repositories, logs).
	fdReserve = 256
)

func (o Options) withDefaults() Options {
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.SessionIdleTimeout <= 0 {
		o.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.MaxConnectionsPerClient <= 0 {
		o.MaxConnectionsPerClient = DefaultPerClient(o.MaxConnections)
	}
	return o
}

// DefaultPerClient is the default share of one client: a quarter of the
// connections, but at least 4 (an agent may hold an event stream and a
// few calls at once) when the cap allows.
func DefaultPerClient(maxConnections int) int {
	return max(maxConnections/4, min(maxConnections, 4))
}

// Endpoint is where MCP is served.
const Endpoint = "/mcp"

// Check refuses a configuration that would expose the repositories to
// anyone who can reach the address.
func (o Options) Check() error {
	if !isLoopbackAddr(o.Addr) && o.Token == "" && !o.AllowUnauthenticated {
		return fmt.Errorf("--http %s is not a loopback address: set --http-token (clients send it as a bearer token) or, to serve without one, --allow-unauthenticated", o.Addr)
	}
	for _, origin := range o.AllowedOrigins {
		if u, err := url.Parse(origin); err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("--allowed-origins %q: want scheme://host[:port]", origin)
		}
	}
	switch {
	case o.ReadTimeout < 0:
		return fmt.Errorf("--read-timeout must be positive")
	case o.MaxConnections < 0:
		return fmt.Errorf("--max-connections must be at least 1")
	case o.MaxSessions < 0:
		return fmt.Errorf("--max-sessions must be at least 1")
	case o.SessionIdleTimeout < 0:
		return fmt.Errorf("--session-idle-timeout must be positive")
	case o.WriteTimeout < 0:
		return fmt.Errorf("--write-timeout must be positive")
	case o.MaxConnectionsPerClient < 0:
		return fmt.Errorf("--max-connections-per-client must be 0 (a quarter of --max-connections) or more")
	}
	if _, err := parseTrustedProxies(o.TrustedProxies); err != nil {
		return err
	}
	return nil
}

// open reports whether anyone who reaches the address is served: no token
// off loopback.
func (o Options) open() bool {
	return o.Token == "" && !isLoopbackAddr(o.Addr)
}

// Serve listens on o.Addr and serves until ctx ends; then it stops taking
// requests, lets calls in flight finish for up to ShutdownTimeout, and
// stops the rest (which ends their git processes), whose clients are
// answered UNAVAILABLE before the connections close.
func Serve(ctx context.Context, srv *mcp.Server, o Options, log *slog.Logger) error {
	s, err := listen(srv, o, log)
	if err != nil {
		return err
	}
	return s.run(ctx)
}

// Listen is Serve in two steps, for a caller that needs the address (a
// load test listening on port 0) before it serves: it listens now, and the
// result's Run serves until ctx ends.
func Listen(srv *mcp.Server, o Options, log *slog.Logger) (*Listening, error) {
	s, err := listen(srv, o, log)
	if err != nil {
		return nil, err
	}
	return &Listening{s}, nil
}

// Listening is a server that listens and has not served yet.
type Listening struct{ s *server }

// Addr is the address it listens on.
func (l *Listening) Addr() string { return l.s.ln.Addr().String() }

// Run serves, as Serve does.
func (l *Listening) Run(ctx context.Context) error { return l.s.run(ctx) }

// server is a listening HTTP server.
type server struct {
	o          Options
	hs         *http.Server
	ln         *limitListener
	log        *slog.Logger
	base       context.Context
	cancelBase context.CancelFunc
	// stopCalls ends the calls still running when the shutdown timeout
	// passes (callctx.WithShutdown), with errShuttingDown.
	stopCalls context.CancelCauseFunc
}

// answerGrace is how long, once the shutdown timeout has passed and the
// calls still running are stopped, their answers have to go out before
// the connections close.
const answerGrace = 2 * time.Second

// shuttingDown is what a call still running at the end of the shutdown
// timeout answers (review 4, finding 21).
func shuttingDown(timeout time.Duration) error {
	return errcode.New(errcode.Unavailable, "the server is shutting down and this call was still running when its --shutdown-timeout (%v) passed: call again (a restarted server or another replica answers)", timeout)
}

func listen(srv *mcp.Server, o Options, log *slog.Logger) (*server, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	perClientGiven := o.MaxConnectionsPerClient > 0
	o = o.withDefaults()
	if limit := fdLimit(); limit > 0 && uint64(o.MaxConnections)+fdReserve > limit {
		capped := max(int(limit)-fdReserve, 1)
		if limit <= fdReserve {
			capped = max(int(limit)/2, 1)
		}
		log.Warn("fewer connections than --max-connections: the open-files limit (ulimit -n) is low", "max-connections", o.MaxConnections, "open-files-limit", limit, "connections", capped)
		o.MaxConnections = capped
		if !perClientGiven {
			o.MaxConnectionsPerClient = DefaultPerClient(capped)
		}
	}
	proxies, err := parseTrustedProxies(o.TrustedProxies)
	if err != nil {
		return nil, err
	}
	inner, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, err
	}
	s := &server{o: o, ln: newLimitListener(inner, o, proxies, log), log: log}
	s.base, s.cancelBase = context.WithCancel(context.Background())
	calls, stopCalls := context.WithCancelCause(context.Background())
	s.stopCalls = stopCalls
	base := callctx.WithShutdown(s.base, calls)
	s.hs = &http.Server{
		Handler: Handler(srv, o, log),
		// The body has as long again, counted by the handler once the
		// headers are in.
		ReadHeaderTimeout: o.ReadTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext:       s.ln.connContext,
		ConnState:         s.ln.connState,
	}
	return s, nil
}

func (s *server) run(ctx context.Context) error {
	defer s.cancelBase()
	o, log := s.o, s.log
	errc := make(chan error, 1)
	go func() { errc <- s.hs.Serve(s.ln) }()
	mode := "stateless"
	if o.Stateful {
		mode = "stateful"
	}
	args := []any{"url", "http://" + s.ln.Addr().String() + Endpoint, "mode", mode, "token", o.Token != "",
		"max-connections", o.MaxConnections, "max-connections-per-client", o.MaxConnectionsPerClient,
		"read-timeout", o.ReadTimeout, "write-timeout", o.WriteTimeout}
	if len(o.TrustedProxies) > 0 {
		args = append(args, "trusted-proxies", strings.Join(o.TrustedProxies, ","))
	}
	if o.Stateful {
		args = append(args, "max-sessions", o.MaxSessions, "session-idle-timeout", o.SessionIdleTimeout)
	}
	log.Info("serving MCP over streamable HTTP", args...)
	if o.open() {
		log.Warn("serving without a token: anyone who reaches the address can read the repositories; only IP addresses, loopback names and --allowed-hosts are accepted as Host (DNS rebinding)")
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: waiting for calls in flight", "timeout", o.ShutdownTimeout)
	shutdown, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	err := s.hs.Shutdown(shutdown)
	if errors.Is(err, context.DeadlineExceeded) {
		// Calls still running are stopped (their git processes end) and
		// answered UNAVAILABLE; once the answers are out, or after
		// answerGrace, the connections close.
		s.stopCalls(shuttingDown(o.ShutdownTimeout))
		grace, cancelGrace := context.WithTimeout(context.Background(), answerGrace)
		_ = s.hs.Shutdown(grace) // what is left is closed below
		cancelGrace()
		s.cancelBase()
		s.hs.Close()
		return nil
	}
	s.stopCalls(nil)
	s.cancelBase()
	return err
}

func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return isLoopbackHost(host)
}

func isLoopbackHost(host string) bool {
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostAllowed: on a loopback address only loopback names (DNS rebinding
// makes a hostile name resolve to 127.0.0.1). Off loopback without a token
// (open), only IP addresses and loopback names: a hostile page can make
// any name resolve to this server, not make the browser send another
// name's Host. Off loopback with a token, any name: a page cannot send the
// token. Configured names are accepted everywhere, and narrow the last case
// to themselves.
func hostAllowed(hostport string, loopback, open bool, allowed []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	for _, a := range allowed {
		if strings.EqualFold(a, hostport) || strings.EqualFold(a, host) {
			return true
		}
	}
	if loopback {
		return isLoopbackHost(host)
	}
	if open {
		return isLoopbackHost(host) || net.ParseIP(strings.Trim(host, "[]")) != nil
	}
	return len(allowed) == 0
}

// originAllowed: a browser's Origin must be the server itself, a loopback
// page when the server is on loopback, or configured.
func originAllowed(origin, hostport string, loopback bool, allowed []string) bool {
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimRight(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, hostport) {
		return true
	}
	return loopback && isLoopbackHost(u.Hostname())
}
