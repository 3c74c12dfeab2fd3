// Package httpserve serves the MCP server over streamable HTTP for many
// agents: loopback by default, a bearer token required off loopback, Host
// and Origin checks against DNS rebinding, a request size limit, and a
// graceful shutdown that lets calls in flight finish.
package httpserve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
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
)

// Options configure the HTTP transport.
type Options struct {
	Addr                 string
	Token                string   // bearer token clients must send; "" for none
	AllowUnauthenticated bool     // allow no token on a non-loopback address
	AllowedHosts         []string // Host header values accepted besides the defaults
	AllowedOrigins       []string // Origin values (scheme://host[:port]) accepted besides the defaults
	MaxBodyBytes         int64    // request body limit
	Stateful             bool     // keep sessions (Mcp-Session-Id) instead of stateless requests
	ShutdownTimeout      time.Duration
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
	return nil
}

// Handler wraps the MCP handler with the checks, in order: Host, Origin,
// token, body size.
func Handler(srv *mcp.Server, o Options, log *slog.Logger) http.Handler {
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
	})
	var want [32]byte
	if o.Token != "" {
		want = sha256.Sum256([]byte(o.Token))
	}
	loopback := isLoopbackAddr(o.Addr)
	mux := http.NewServeMux()
	mux.HandleFunc(Endpoint, func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, loopback, o.AllowedHosts) {
			http.Error(w, fmt.Sprintf("Forbidden: Host %q is not served here", r.Host), http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host, loopback, o.AllowedOrigins) {
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed", origin), http.StatusForbidden)
			return
		}
		if o.Token != "" {
			// The scheme is case-insensitive (RFC 7235). Compare digests:
			// constant time, and nothing leaks the length.
			scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			got := sha256.Sum256([]byte(token))
			if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-repo-tools"`)
				http.Error(w, "Unauthorized: send the server's token as 'Authorization: Bearer TOKEN'", http.StatusUnauthorized)
				return
			}
		}
		mcpHandler.ServeHTTP(w, r.WithContext(callctx.WithRequest(r.Context())))
	})
	return mux
}

// Serve listens on o.Addr and serves until ctx ends; then it stops taking
// requests, lets calls in flight finish for up to ShutdownTimeout, and
// cancels the rest (which ends their git processes).
func Serve(ctx context.Context, srv *mcp.Server, o Options, log *slog.Logger) error {
	if err := o.Check(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	hs := &http.Server{
		Handler:           Handler(srv, o, log),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	mode := "stateless"
	if o.Stateful {
		mode = "stateful"
	}
	log.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+Endpoint, "mode", mode, "token", o.Token != "")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: waiting for calls in flight", "timeout", o.ShutdownTimeout)
	shutdown, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	err = hs.Shutdown(shutdown)
	cancelBase() // calls still running are cancelled: their git processes end
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
		return nil
	}
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
// makes a hostile name resolve to 127.0.0.1); elsewhere any name, unless a
// list is configured. Configured names are accepted everywhere.
func hostAllowed(hostport string, loopback bool, allowed []string) bool {
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
