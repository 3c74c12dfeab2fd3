package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/server"
)

// tools and tools --json need no repository: they list the registry.
// tools --json is, tool by tool, the snapshots of internal/server.
func TestToolsOutsideARepository(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := runBinary(t, dir, nil, "tools")
	if code != 0 || !strings.Contains(stdout, "get_file_content") || !strings.Contains(stdout, "start_line integer") {
		t.Fatalf("tools outside a repository: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Without --forge, the forge-only tools are not listed.
	stdout, _, _ = runBinary(t, dir, nil, "tools", "--json")
	for _, d := range server.Tools() {
		if listed := strings.Contains(stdout, `"name": "`+d.Name()+`"`); listed == d.ForgeOnly() {
			t.Errorf("tools --json without --forge: %s listed %v, forge-only %v", d.Name(), listed, d.ForgeOnly())
		}
	}
	// With --forge and --structured, the whole contract: the snapshots (the
	// forge-only tools say so in their _meta).
	stdout, stderr, code = runBinary(t, dir, nil, "tools", "--json", "--structured", "--forge", "https://forge.example")
	var tools []json.RawMessage
	if code != 0 || json.Unmarshal([]byte(stdout), &tools) != nil {
		t.Fatalf("tools --json outside a repository: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	snaps, err := filepath.Glob("../../internal/server/testdata/toolsnaps/*.json")
	if err != nil || len(snaps) == 0 {
		t.Fatalf("no snapshots: %v", err)
	}
	if len(tools) != len(snaps) {
		t.Fatalf("tools --json lists %d tools, there are %d snapshots", len(tools), len(snaps))
	}
	for _, raw := range tools {
		var tool struct {
			Name string `json:"name"`
		}
		json.Unmarshal(raw, &tool)
		var v any
		json.Unmarshal(raw, &v)
		got, _ := json.MarshalIndent(v, "", "  ")
		want, err := os.ReadFile(filepath.Join("../../internal/server/testdata/toolsnaps", tool.Name+".json"))
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if string(got)+"\n" != string(want) {
			t.Errorf("%s: tools --json differs from its snapshot:\n%s", tool.Name, got)
		}
	}
}

// tools --json declares on every tool the most characters a reply holds:
// the reply limit, the default or --max-bytes.
func TestToolsDeclareTheReplyLimit(t *testing.T) {
	dir := t.TempDir()
	for _, limit := range []int{server.DefaultMaxBytes, 20000} {
		args := []string{"tools", "--json"}
		if limit != server.DefaultMaxBytes {
			args = append(args, "--max-bytes", strconv.Itoa(limit))
		}
		stdout, stderr, code := runBinary(t, dir, nil, args...)
		var tools []struct {
			Name string         `json:"name"`
			Meta map[string]any `json:"_meta"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &tools) != nil || len(tools) == 0 {
			t.Fatalf("%v: code %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		for _, tool := range tools {
			if got := tool.Meta[server.MetaKeyMaxResultSize]; got != float64(limit) {
				t.Errorf("%v: %s declares %s %v, want %d", args, tool.Name, server.MetaKeyMaxResultSize, got, limit)
			}
		}
	}
}

// --tools and --exclude-tools (and their variables) choose what is served,
// for serve, call and tools; an unknown name stops the start.
func TestToolSelection(t *testing.T) {
	r := project(t)
	listed := func(env []string, args ...string) []string {
		t.Helper()
		stdout, stderr, code := runBinary(t, r.Dir, env, append([]string{"tools", "--json"}, args...)...)
		var tools []struct {
			Name string `json:"name"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &tools) != nil {
			t.Fatalf("tools %v: code %d, %s", args, code, stderr)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		return names
	}
	if got := strings.Join(listed(nil, "--tools", "search_code,read_file"), " "); got != "read_file search_code" {
		t.Errorf("--tools: %s", got)
	}
	if got := strings.Join(listed([]string{"MCP_REPO_TOOLS_TOOLS=read_file,list_repositories"}), " "); got != "list_repositories read_file" {
		t.Errorf("MCP_REPO_TOOLS_TOOLS: %s", got)
	}
	local := 0 // the tools served without --forge
	for _, d := range server.Tools() {
		if !d.ForgeOnly() {
			local++
		}
	}
	if got := listed([]string{"MCP_REPO_TOOLS_EXCLUDE_TOOLS=get_diff"}); len(got) != local-1 || contains(got, "get_diff") {
		t.Errorf("MCP_REPO_TOOLS_EXCLUDE_TOOLS: %v", got)
	}
	if got := strings.Join(listed(nil, "--tools", "read_file", "--tools", "get_diff", "--exclude-tools", "get_diff"), " "); got != "read_file" {
		t.Errorf("--tools less --exclude-tools: %s", got)
	}

	// call: a served tool answers, one left out is unknown.
	stdout, stderr, code := runBinary(t, r.Dir, nil, "call", "--tools", "read_file", "read_file", "path=main.go", "endLine=1")
	if code != 0 || !strings.Contains(stdout, "package main") {
		t.Fatalf("call a selected tool: code %d, %q %q", code, stdout, stderr)
	}
	_, stderr, code = runBinary(t, r.Dir, nil, "call", "--exclude-tools", "read_file", "read_file", "path=main.go")
	if code != 2 || !strings.Contains(stderr, `unknown tool "read_file"`) || !strings.Contains(stderr, "get_diff") {
		t.Fatalf("call an excluded tool: code %d, %q", code, stderr)
	}

	// An unknown name is an error at start that lists the tools, for every command.
	for _, args := range [][]string{
		{"tools", "--tools", "read_file,grep"},
		{"call", "--exclude-tools", "grep", "read_file", "path=main.go"},
		{"serve", "--tools", "grep"},
	} {
		_, stderr, code := runBinary(t, r.Dir, nil, args...)
		if code != 1 || !strings.Contains(stderr, `no tool "grep"`) || !strings.Contains(stderr, "list_repositories, list_symbols, read_file, read_job_log, search_code") {
			t.Errorf("%v: code %d, %q", args, code, stderr)
		}
	}
	_, stderr, code = runBinary(t, r.Dir, []string{"MCP_REPO_TOOLS_TOOLS=nope"}, "tools")
	if code != 1 || !strings.Contains(stderr, `no tool "nope"`) {
		t.Errorf("unknown name from the environment: code %d, %q", code, stderr)
	}
}
