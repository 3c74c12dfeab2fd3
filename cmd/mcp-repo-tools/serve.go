package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/httpserve"
)

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	var o options
	fs := newFlagSet("serve", &o, true)
	fs.SetOutput(stderr)
	if err := parse(fs, args); err != nil {
		return usageError(err)
	}
	if fs.NArg() > 0 {
		return usageError(errors.New("serve takes no arguments besides flags"))
	}
	hopts := httpserve.Options{
		Addr:                 o.http,
		Token:                o.httpToken,
		AllowUnauthenticated: o.allowUnauthenticated,
		AllowedHosts:         o.allowedHosts,
		AllowedOrigins:       o.allowedOrigins,
		MaxBodyBytes:         o.maxRequestBytes,
		Stateful:             o.stateful,
		ShutdownTimeout:      o.shutdownTimeout,
		ReadTimeout:          o.readTimeout,
		MaxConnections:       o.maxConnections,
		MaxSessions:          o.maxSessions,
		SessionIdleTimeout:   o.sessionIdleTimeout,

		WriteTimeout:            o.writeTimeout,
		MaxConnectionsPerClient: o.maxConnectionsPerClient,
		TrustedProxies:          o.trustedProxies,
	}
	if o.http != "" {
		if o.readTimeout <= 0 || o.sessionIdleTimeout <= 0 || o.maxConnections < 1 || o.maxSessions < 1 {
			return usageError(errors.New("--read-timeout and --session-idle-timeout must be positive, --max-connections and --max-sessions at least 1"))
		}
		if o.writeTimeout <= 0 {
			return usageError(errors.New("--write-timeout must be positive"))
		}
		// Refuse an unsafe address before anything starts.
		if err := hopts.Check(); err != nil {
			return usageError(err)
		}
	}
	o.startAnywhere = o.http == ""
	a, err := newApp(ctx, &o, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	a.log.Info("git sandbox", "state", a.sandbox)
	a.log.Info("git limits", "state", a.limits)
	if o.http == "" {
		a.log.Info("serving MCP over stdio", "repositories", describeServed(&o, a))
		err := a.srv.RunStdio(ctx)
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	return httpserve.Serve(ctx, a.srv.MCP(), hopts, a.log)
}

func describeServed(o *options, a *app) string {
	if o.forge != "" {
		return "the repositories of " + o.forge
	}
	if o.root != "" {
		return "every repository under " + o.root
	}
	if o.repo != "" {
		return o.repo
	}
	if a.served.FollowsRoots() {
		return "the client's MCP roots (started outside any repository)"
	}
	return "the repository containing the working directory"
}

// usageError marks a command-line mistake (exit code 2); the flag package
// has already printed what was wrong.
func usageError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &usageErr{err}
}

type usageErr struct{ error }
