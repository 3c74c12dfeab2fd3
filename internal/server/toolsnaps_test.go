package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The contract an agent sees before any call: each tool's name, title,
// description, annotations and schemas, as `mcp-repo-tools tools --json`
// prints them, one file per tool under testdata/toolsnaps. A change to any
// of them shows in the diff of these files. Regenerate with
//
//	UPDATE_TOOLSNAPS=true go test ./internal/server -run TestToolSnapshots
const toolsnapsDir = "testdata/toolsnaps"

func updateToolsnaps() bool { return os.Getenv("UPDATE_TOOLSNAPS") == "true" }

// listedTools is what an MCP client lists from a server with every tool,
// started with or without --structured.
func listedTools(t *testing.T, structured bool) []*mcp.Tool {
	t.Helper()
	// Every tool of the registry, the forge-only ones too (served only in
	// forge mode, when the command selects them).
	return listTools(t, New(nil, Config{MaxBytes: DefaultMaxBytes, Structured: structured, Tools: Tools()}))
}

// listTools is what an MCP client lists from s.
func listTools(t *testing.T, s *Server) []*mcp.Tool {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolsnaps"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	return tools
}

func TestToolSnapshots(t *testing.T) {
	want := map[string]bool{}
	for _, d := range Tools() {
		want[d.Name()+".json"] = true
		// The snapshot is the whole contract: the tool as listed with
		// --structured, output schema included.
		data, err := json.MarshalIndent(d.Listed(true, DefaultMaxBytes), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, '\n')
		checkSnapshot(t, filepath.Join(toolsnapsDir, d.Name()+".json"), data)
	}
	// No snapshot of a tool that is gone.
	entries, err := os.ReadDir(toolsnapsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			if updateToolsnaps() {
				os.Remove(filepath.Join(toolsnapsDir, e.Name()))
				continue
			}
			t.Errorf("%s/%s: a snapshot of no tool; remove it (or run with UPDATE_TOOLSNAPS=true)", toolsnapsDir, e.Name())
		}
	}
}

// A server lists exactly what the registry defines, byte for byte: the
// snapshots (made from the registry) are what clients see.
// Without --structured no tool has an output schema.
func TestServedToolsAreTheRegistry(t *testing.T) {
	for _, structured := range []bool{false, true} {
		listed := listedTools(t, structured)
		defs := Tools()
		if len(listed) != len(defs) {
			t.Fatalf("the server lists %d tools, the registry has %d", len(listed), len(defs))
		}
		for i, tool := range listed {
			got, _ := json.MarshalIndent(tool, "", "  ")
			want, _ := json.MarshalIndent(defs[i].Listed(structured, DefaultMaxBytes), "", "  ")
			if string(got) != string(want) {
				t.Errorf("%s (structured %v): served\n%s\nregistry\n%s", tool.Name, structured, got, want)
			}
			if !structured && tool.OutputSchema != nil {
				t.Errorf("%s: an output schema without --structured", tool.Name)
			}
		}
	}
}

// checkSnapshot compares got with the file byte for byte, or writes it
// with UPDATE_TOOLSNAPS=true.
func checkSnapshot(t *testing.T, path string, got []byte) {
	t.Helper()
	if updateToolsnaps() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with UPDATE_TOOLSNAPS=true)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s: the tool's contract changed; if that is meant, regenerate with UPDATE_TOOLSNAPS=true and review the diff.\ngot:\n%s", path, got)
	}
}
