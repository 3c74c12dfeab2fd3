package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// harness is a server on a test repository, driven by the go-sdk client.
type harness struct {
	server   *Server
	t        testing.TB
	repo     *testrepo.Repo
	cs       *mcp.ClientSession
	maxBytes int
	// outSchemas is each listed tool's advertised output schema, resolved
	// (nil for a text-only tool): every call's structured result is
	// validated against it.
	outSchemas map[string]*jsonschema.Resolved
}

type option func(*Config)

func withMaxBytes(n int) option          { return func(c *Config) { c.MaxBytes = n } }
func withBaseURL(u string) option        { return func(c *Config) { c.BaseURL = u } }
func withTimeout(d time.Duration) option { return func(c *Config) { c.Timeout = d } }

// textOnly serves as by default, without --structured: results are text
// only. The harness otherwise serves with --structured, so that tests can
// check the structured fields the contract names.
func withTextOnly() option { return func(c *Config) { c.Structured = false } }

// withStructured serves as --structured does.
func withStructured() option { return func(c *Config) { c.Structured = true } }

func mustPolicy(extra []string) *repo.Policy {
	p, err := repo.NewPolicy(extra)
	if err != nil {
		panic(err)
	}
	return p
}

// testEnv is a git environment for one test.
func testEnv(t testing.TB) *git.Env {
	t.Helper()
	env, err := git.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// serve starts a server for r (named acme/widgets) and connects a client.
func serve(t testing.TB, r *testrepo.Repo, opts ...option) *harness {
	t.Helper()
	ctx := context.Background()
	env := testEnv(t)
	served, err := repo.ServeOne(ctx, env, r.Dir, "acme/widgets")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test", Structured: true}
	for _, o := range opts {
		o(&cfg)
	}
	return connectClient(t, New(served, cfg), r, cfg.MaxBytes)
}

func connectClient(t testing.TB, s *Server, r *testrepo.Repo, maxBytes int) *harness {
	t.Helper()
	return connectAs(t, s, r, maxBytes, "test")
}

// connectAs connects a client that calls itself name (its clientInfo).
func connectAs(t testing.TB, s *Server, r *testrepo.Repo, maxBytes int, name string) *harness {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: name}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &harness{server: s, t: t, repo: r, cs: cs, maxBytes: maxBytes, outSchemas: advertisedOutputSchemas(t, cs)}
}

// advertisedOutputSchemas lists the tools as a client sees them and
// resolves each output schema, exactly as advertised over the wire.
func advertisedOutputSchemas(t testing.TB, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	schemas := map[string]*jsonschema.Resolved{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("listing tools: %v", err)
		}
		schemas[tool.Name] = resolveOutputSchema(t, tool.Name, tool.OutputSchema)
	}
	return schemas
}

// resolveOutputSchema resolves a tool's output schema given as any JSON
// value (nil: the tool has none).
func resolveOutputSchema(t testing.TB, name string, schema any) *jsonschema.Resolved {
	t.Helper()
	if schema == nil {
		return nil
	}
	data, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatalf("%s: reading its output schema: %v", name, err)
	}
	resolved, err := js.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: resolving its output schema: %v", name, err)
	}
	return resolved
}

// checkOutput validates a result's structured content against the output
// schema the tool advertises: a successful call of a tool with an output
// schema must send structured content that fits it; a text-only tool, and
// any error, sends none.
func (h *harness) checkOutput(name string, args any, res *mcp.CallToolResult) {
	h.t.Helper()
	if err := checkStructured(h.outSchemas, name, res); err != nil {
		h.t.Fatalf("%s(%v): %v", name, args, err)
	}
}

func checkStructured(schemas map[string]*jsonschema.Resolved, name string, res *mcp.CallToolResult) error {
	schema, listed := schemas[name]
	switch {
	case !listed:
		return nil // not served: the call fails, as a test may want
	case res.IsError || schema == nil:
		if res.StructuredContent != nil {
			return fmt.Errorf("structured content in an error or from a text-only tool: %v", res.StructuredContent)
		}
		return nil
	case res.StructuredContent == nil:
		return errors.New("no structured content, but the tool advertises an output schema")
	}
	// Validate what came over the wire, as plain JSON values.
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Errorf("structured content does not fit the advertised output schema: %v\n%s", err, data)
	}
	return nil
}

// call calls a tool and checks, on what came over the wire, the reply
// limit and that its structured content fits the advertised output schema.
func (h *harness) call(name string, args map[string]any) *mcp.CallToolResult {
	h.t.Helper()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		h.t.Fatalf("%s(%v): protocol error: %v", name, args, err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(data) > h.maxBytes {
		h.t.Fatalf("%s(%v): reply is %d bytes, over the %d-byte limit", name, args, len(data), h.maxBytes)
	}
	h.checkOutput(name, args, res)
	return res
}

// ok calls a tool that must succeed and returns its text.
func (h *harness) ok(name string, args map[string]any) string {
	h.t.Helper()
	res := h.call(name, args)
	if res.IsError {
		h.t.Fatalf("%s(%v) failed: %s", name, args, textOf(res))
	}
	return textOf(res)
}

// fails calls a tool that must fail with the given code; it returns the message.
func (h *harness) fails(name string, args map[string]any, code string) string {
	h.t.Helper()
	res := h.call(name, args)
	msg := textOf(res)
	if !res.IsError {
		h.t.Fatalf("%s(%v) succeeded, want %s; got %.300q", name, args, code, msg)
	}
	if !strings.HasPrefix(msg, code+": ") {
		h.t.Fatalf("%s(%v): error %q, want code %s", name, args, msg, code)
	}
	return msg
}

// structured decodes a successful call's structured content into v.
func (h *harness) structured(name string, args map[string]any, v any) string {
	h.t.Helper()
	res := h.call(name, args)
	if res.IsError {
		h.t.Fatalf("%s(%v) failed: %s", name, args, textOf(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		h.t.Fatalf("decoding structured content %s: %v", data, err)
	}
	return textOf(res)
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// args builds tool arguments from key, value pairs.
func args(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// fileArgs are get_file_content's arguments for acme/widgets at ref.
func fileArgs(path string, kv ...any) map[string]any {
	m := args(kv...)
	m["owner"], m["repo"], m["filePath"] = "acme", "widgets", path
	return m
}

// numberedLines returns "line 1\nline 2\n...line n\n".
func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}

// linesOf is the reference for line slicing: split on "\n", the empty
// string after a final "\n" is not a line.
func linesOf(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// intAfter reads the integer that follows marker in s.
func intAfter(s, marker string) (int, error) {
	i := strings.Index(s, marker)
	if i < 0 {
		return 0, fmt.Errorf("no %q in %q", marker, s)
	}
	var n int
	_, err := fmt.Sscanf(s[i+len(marker):], "%d", &n)
	return n, err
}
