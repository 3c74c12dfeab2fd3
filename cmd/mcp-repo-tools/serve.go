package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	a, err := newApp(ctx, &o, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	if o.http == "" {
		a.log.Info("serving MCP over stdio", "repositories", describeServed(&o))
		err := a.srv.MCP().Run(ctx, &mcp.StdioTransport{})
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return a.srv.MCP() },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	ln, err := net.Listen("tcp", o.http)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	// The address actually bound (ADDR may ask for port 0).
	a.log.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "repositories", describeServed(&o))
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return hs.Shutdown(shutdown)
}

func describeServed(o *options) string {
	if o.root != "" {
		return "every repository under " + o.root
	}
	if o.repo != "" {
		return o.repo
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
