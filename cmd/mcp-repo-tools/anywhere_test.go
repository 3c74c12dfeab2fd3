package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Started outside any repository (as Claude Desktop starts servers, in the
// home directory), serve does not exit: a client connects, the instructions
// say nothing is served yet, and a tool's error names --repo, --root and
// the directory. A client that gives a root that is a repository gets it,
// on either protocol: asked after initialize (2025-11-25), or in the
// first tool call's result (2026-07-28, server/discover).
func TestServeOutsideARepositoryStarts(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	connect := func(version string, roots ...string) *mcp.ClientSession {
		cmd := exec.Command(binary(t), "serve")
		cmd.Dir = dir
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil)
		for _, r := range roots {
			client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(r)})
		}
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("serve started in %s: %v", dir, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	readMain := func(cs *mcp.ClientSession) (string, bool) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "main.go"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}

	cs := connect("") // the newest protocol, with no roots to give
	if inst := cs.InitializeResult().Instructions; !strings.Contains(inst, "Nothing is served yet") || !strings.Contains(inst, dir) {
		t.Errorf("instructions do not say that nothing is served, started in %s:\n%s", dir, inst)
	}
	msg, isErr := readMain(cs)
	for _, want := range []string{"NOT_FOUND: ", "--repo", "--root", dir} {
		if !isErr || !strings.Contains(msg, want) {
			t.Errorf("read_file outside a repository: want an error with %q, got %q", want, msg)
		}
	}

	r := project(t)
	for _, version := range []string{"2025-11-25", ""} {
		cs = connect(version, r.Dir)
		if msg, isErr := readMain(cs); isErr || !strings.Contains(msg, "println") {
			t.Fatalf("protocol %q: read_file with a root that is a repository: %q", version, msg)
		}
	}
}
