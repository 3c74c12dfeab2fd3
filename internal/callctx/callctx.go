// Package callctx carries the context of the HTTP request a tool call came
// in on, so that the call, and its git processes, end when the client goes
// away. The MCP SDK keeps a request's context values in the call's context
// but, for protocol versions before 2026-07-28, not its cancellation.
package callctx

import "context"

type key struct{}

// WithRequest marks ctx, an HTTP request's context, as the one calls under
// it belong to.
func WithRequest(ctx context.Context) context.Context {
	return context.WithValue(ctx, key{}, ctx)
}

// Request returns the HTTP request context a call belongs to, if any.
func Request(ctx context.Context) (context.Context, bool) {
	r, ok := ctx.Value(key{}).(context.Context)
	return r, ok
}

type clientKey struct{}

// WithClient marks ctx as a call of client (an address, or the client a
// trusted proxy forwarded for), whose calls share the git slots fairly
// with other clients'.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// Client is the client ctx's call came from ("": not known, as over stdio).
func Client(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}

type shutdownKey struct{}

// WithShutdown marks ctx with stop, which ends (with its cause) when the
// server stops its calls: at the end of an HTTP server's shutdown timeout,
// so that a call still running ends and its client is answered before the
// connection closes.
func WithShutdown(ctx, stop context.Context) context.Context {
	return context.WithValue(ctx, shutdownKey{}, stop)
}

// Shutdown returns the context that ends when the server stops the call,
// if any.
func Shutdown(ctx context.Context) (context.Context, bool) {
	s, ok := ctx.Value(shutdownKey{}).(context.Context)
	return s, ok
}

type callerKey struct{}

// WithCaller marks ctx as a call of caller within its client: the HTTP
// connection (its remote address and port), whose slot time is weighed
// against the client's other connections'.
func WithCaller(ctx context.Context, caller string) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

// Caller is the caller ctx's call came from within its client ("": not
// known).
func Caller(ctx context.Context) string {
	c, _ := ctx.Value(callerKey{}).(string)
	return c
}
