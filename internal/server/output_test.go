package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Typed outputs. Each tool's output schema is made from the type its
// handler returns (defineTool), and every call the tests make through the
// harness is checked against the schema the tool advertises (checkOutput in
// harness_test.go). These tests check the registry as a whole.

// Every output schema is an object (what MCP requires of structured
// content) and resolves; a text-only tool advertises none.
func TestRegistryOutputSchemas(t *testing.T) {
	for _, d := range Tools() {
		tool := d.Listed(true, DefaultMaxBytes)
		if tool.OutputSchema == nil {
			continue
		}
		if typ, _ := tool.OutputSchema.(map[string]any)["type"].(string); typ != "object" {
			t.Errorf("%s: output schema of type %q, want object", d.Name(), typ)
		}
		resolveOutputSchema(t, d.Name(), tool.OutputSchema)
	}
}

// Every golden reply (testdata/golden) fits the output schema its tool
// advertises, and every tool with an output schema has at least one golden
// reply with structured content: the representative calls of each tool are
// validated as they were sent, field order and all.
func TestGoldenRepliesFitOutputSchemas(t *testing.T) {
	for _, d := range Tools() {
		schema := resolveOutputSchema(t, d.Name(), d.Listed(true, DefaultMaxBytes).OutputSchema)
		files, err := filepath.Glob(filepath.Join("testdata", "golden", d.Name(), "*.txt"))
		if err != nil {
			t.Fatal(err)
		}
		structured := 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			isError, content, ok := goldenStructured(string(data))
			if !ok {
				t.Errorf("%s: no isError or structuredContent section", f)
				continue
			}
			res := &mcp.CallToolResult{IsError: isError}
			if content != "" {
				structured++
				if err := json.Unmarshal([]byte(content), &res.StructuredContent); err != nil {
					t.Errorf("%s: structured content is not JSON: %v", f, err)
					continue
				}
			}
			if err := checkStructured(map[string]*jsonschema.Resolved{d.Name(): schema}, d.Name(), res); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
		if schema != nil && structured == 0 {
			t.Errorf("%s: advertises an output schema, but no golden reply has structured content", d.Name())
		}
	}
}

// goldenStructured reads a golden file's isError and structured content
// ("" for none).
func goldenStructured(golden string) (isError bool, content string, ok bool) {
	_, after, found := strings.Cut(golden, "\n-- isError --\n")
	if !found {
		return false, "", false
	}
	isError = strings.HasPrefix(after, "true\n")
	if strings.Contains(after, "\n-- structuredContent with --structured: none --\n") {
		return isError, "", true
	}
	_, content, found = strings.Cut(after, "\n-- structuredContent with --structured --\n")
	return isError, content, found
}

// A failed call is logged at warn for operators: the tool, the code, how
// long it took and the names of its parameters; never the message, the
// arguments' values or file contents.
func TestFailedCallsLogged(t *testing.T) {
	r := testrepo.New(t)
	r.Write("secret.txt", "FILE-CONTENT-CANARY\n")
	r.Commit("one")
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := serve(t, r, func(c *Config) { c.Logger = logger })

	h.ok("read_file", args("path", "secret.txt"))
	h.fails("read_file", args("path", "ARG-CANARY/missing.txt", "CANARY-NAME", 1), "INVALID_ARGUMENT")
	h.fails("read_file", args("path", "ARG-CANARY/missing.txt"), "NOT_FOUND")

	var warns []string
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if strings.Contains(line, "CANARY") {
			t.Errorf("the log repeats a value, a name the agent made up or file contents: %s", line)
		}
		if strings.Contains(line, "level=WARN") {
			warns = append(warns, line)
		}
	}
	want := []string{
		`msg="tool call failed" tool=read_file code=INVALID_ARGUMENT ms=`,
		`msg="tool call failed" tool=read_file code=NOT_FOUND ms=`,
	}
	if len(warns) != len(want) {
		t.Fatalf("%d warnings, want %d (one per failed call):\n%s", len(warns), len(want), log.String())
	}
	for i, w := range want {
		if !strings.Contains(warns[i], w) {
			t.Errorf("warning %q, want it to contain %q", warns[i], w)
		}
	}
	if !strings.Contains(warns[0], `args="path (+1 unknown)"`) || !strings.HasSuffix(warns[1], "args=path") {
		t.Errorf("the warnings do not name the parameters passed:\n%s", strings.Join(warns, "\n"))
	}
}

// The check refuses what does not fit: a wrong type, a missing value, and
// structured content from a text-only tool.
func TestCheckStructuredRefuses(t *testing.T) {
	schemas := map[string]*jsonschema.Resolved{}
	for _, d := range Tools() {
		schemas[d.Name()] = resolveOutputSchema(t, d.Name(), d.Listed(true, DefaultMaxBytes).OutputSchema)
	}
	bad := []struct {
		tool string
		res  *mcp.CallToolResult
	}{
		{"read_file", &mcp.CallToolResult{StructuredContent: map[string]any{"path": 5}}},
		{"read_file", &mcp.CallToolResult{}},
		{"get_file_content", &mcp.CallToolResult{StructuredContent: map[string]any{}}},
		{"read_file", &mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{}}},
	}
	for _, b := range bad {
		if checkStructured(schemas, b.tool, b.res) == nil {
			t.Errorf("%s: %+v passed the check", b.tool, b.res)
		}
	}
}
