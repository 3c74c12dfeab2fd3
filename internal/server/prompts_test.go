package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// The instructions give the review workflow within 1,500 characters, with
// the one rule for reading a diff whole, and say nothing of an omitted ref
// (each tool's ref says what leaving it out means).
func TestInstructions(t *testing.T) {
	if n := len([]rune(instructions)); n > 1500 {
		t.Fatalf("instructions are %d characters, over 1,500", n)
	}
	for _, want := range []string{"get_pull_request_diff", "refs/pull/<index>/head", "search_code", "blame", "list_commits", paging.MetaKeyNext,
		wholeDiff, "file_path (one file)", "paths (files and directories)", "follow=true", "[framed: …] note", "collapseRepeated=true"} {
		if !strings.Contains(instructions, want) {
			t.Errorf("instructions do not mention %q", want)
		}
	}
	for _, old := range []string{"HEAD", "work tree", "3 parts", "pure renames"} {
		if strings.Contains(instructions, old) {
			t.Errorf("instructions still say %q", old)
		}
	}
	h := serve(t, testrepo.New(t))
	if got := h.cs.InitializeResult().Instructions; !strings.HasPrefix(got, instructions) {
		t.Fatalf("the client got other instructions: %q", got)
	}
}

// prompts/list lists both prompts, and each returns the workflow with the
// actual calls for the request.
func TestPromptsGiveTheWorkflow(t *testing.T) {
	h := serve(t, testrepo.New(t))
	ctx := context.Background()
	var names []string
	for p, err := range h.cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "review_changes,review_pull_request" {
		t.Fatalf("prompts: %v", names)
	}
	res, err := h.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review_pull_request", Arguments: map[string]string{"owner": "acme", "repo": "widgets", "index": "7"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{
		`list_pull_request_files {"index":7,"owner":"acme","repo":"widgets"}`,
		`get_pull_request_diff {"file_path":"<PATH>","index":7,"owner":"acme","repo":"widgets"}`,
		`"ref":"refs/pull/7/head"`,
		paging.MetaKeyNext,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("review_pull_request does not say %s:\n%s", want, text)
		}
	}
	res, err = h.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review_changes", Arguments: map[string]string{"base": "main", "head": "feature"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, `get_diff {"base":"main","head":"feature"}`) {
		t.Errorf("review_changes:\n%s", text)
	}
	for _, bad := range []map[string]string{
		{"owner": "acme", "repo": "widgets", "index": "0"},
		{"owner": "acme", "repo": "widgets", "index": "seven"},
		{"owner": "../x", "repo": "widgets", "index": "7"},
	} {
		if _, err := h.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review_pull_request", Arguments: bad}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if _, err := h.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review_changes", Arguments: map[string]string{"base": "--output=x", "head": "main"}}); err == nil {
		t.Error("an option as base: no error")
	}
}

// Both prompts give the one rule for reading a diff, once, as the
// instructions and the descriptions do: the whole diff in parts first,
// a chosen file's or directory's diff after, for reading a few (issue 32,
// item 5), the file list only for picking them (issue 38, item 7). The old advice (file by file from 3 parts) cost 198 calls on a
// 191-file pull request where the whole diff took 14.
func TestReviewPromptsGiveTheOneDiffRule(t *testing.T) {
	for _, maxBytes := range []int{DefaultMaxBytes, MinMaxBytes} {
		h := serve(t, testrepo.New(t), withMaxBytes(maxBytes))
		res, err := h.cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "review_pull_request", Arguments: map[string]string{"owner": "acme", "repo": "widgets", "index": "7"}})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Messages[0].Content.(*mcp.TextContent).Text
		files := strings.Index(text, `list_pull_request_files {"index":7,"owner":"acme","repo":"widgets"}`)
		whole := strings.Index(text, `get_pull_request_diff {"index":7,"owner":"acme","repo":"widgets"}`)
		byFile := strings.Index(text, `get_pull_request_diff {"file_path":"<PATH>","index":7,"owner":"acme","repo":"widgets"}`)
		group := strings.Index(text, `get_pull_request_diff {"index":7,"owner":"acme","paths":["<DIR>/","<PATH>"],"repo":"widgets"}`)
		// The whole diff needs no file list first (issue 38, item 7): the
		// list is for picking files.
		if whole < 0 || files < whole || byFile < files || group < byFile {
			t.Errorf("max %d: the steps are not the whole diff, list_pull_request_files, file by file, a group of files, in that order:\n%s", maxBytes, text)
		}
		res, err = h.cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "review_changes", Arguments: map[string]string{"base": "main", "head": "feature"}})
		if err != nil {
			t.Fatal(err)
		}
		changes := res.Messages[0].Content.(*mcp.TextContent).Text
		whole, chosen := strings.Index(changes, `get_diff {"base":"main","head":"feature"}`), strings.Index(changes, `get_diff {"base":"main","head":"feature","paths":["<PATH>"]}`)
		if whole < 0 || chosen < whole {
			t.Errorf("max %d: review_changes does not take the whole diff before chosen files:\n%s", maxBytes, changes)
		}
		for name, text := range map[string]string{"review_pull_request": text, "review_changes": changes} {
			if n := strings.Count(text, wholeDiff); n != 1 {
				t.Errorf("max %d: %s gives the rule for a whole diff %d times, want once:\n%s", maxBytes, name, n, text)
			}
			for _, old := range []string{"3 parts", "under 3", "÷", "pure renames", "rounded up"} {
				if strings.Contains(text, old) {
					t.Errorf("max %d: %s still gives the old rule (%q):\n%s", maxBytes, name, old, text)
				}
			}
		}
	}
	if n := strings.Count(instructions, wholeDiff); n != 1 {
		t.Errorf("the instructions give the rule for a whole diff %d times, want once", n)
	}
}

// A prompt names only the tools the server serves.
func TestPromptsNameOnlyServedTools(t *testing.T) {
	only, err := SelectTools([]string{"get_diff", "list_changed_files"}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	h := serve(t, testrepo.New(t), func(c *Config) { c.Tools = only })
	res, err := h.cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "review_changes", Arguments: map[string]string{"base": "main", "head": "HEAD"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Messages[0].Content.(*mcp.TextContent).Text
	if strings.Contains(text, "read_file") || strings.Contains(text, "search_code") || !strings.Contains(text, "1. list_changed_files") || !strings.Contains(text, "2. get_diff") {
		t.Fatalf("%s", text)
	}
}

// A prompt's bad argument is a JSON-RPC invalid-params error (-32602) with
// the one line that says what is wrong, not the generic code 0
// (docs/security.md, finding 14).
func TestPromptBadArgumentsAreInvalidParams(t *testing.T) {
	h := serve(t, testrepo.New(t))
	ctx := context.Background()
	for _, c := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"review_pull_request", map[string]string{"owner": "acme", "repo": "widgets", "index": "seven"}, "index must be a pull request number"},
		{"review_pull_request", map[string]string{"owner": "../x", "repo": "widgets", "index": "7"}, "owner and repo must be"},
		{"review_changes", map[string]string{"base": "--output=x", "head": "main"}, "base and head must be refs"},
		{"review_changes", map[string]string{"head": "main"}, "base and head must be refs"},
	} {
		_, err := h.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.name, Arguments: c.args})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			t.Errorf("%s %v: error %v is not a JSON-RPC error", c.name, c.args, err)
			continue
		}
		if rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, c.want) || !strings.Contains(rpc.Message, "INVALID_ARGUMENT") {
			t.Errorf("%s %v: code %d, message %q; want %d and %q", c.name, c.args, rpc.Code, rpc.Message, jsonrpc.CodeInvalidParams, c.want)
		}
	}
}

// With one repository served, review_pull_request takes the index alone,
// as the tools do, and its calls name the repository.
func TestReviewPromptNeedsNoNamesWithOneRepository(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("first")
	h := serve(t, r)
	res, err := h.cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "review_pull_request", Arguments: map[string]string{"index": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, `list_pull_request_files {"index":3,"owner":"acme","repo":"widgets"}`) {
		t.Errorf("review_pull_request without owner and repo:\n%s", text)
	}
}

// Each call the prompts give uses its tool's own parameter names, line
// parameters included (blame's start_line, read_file's startLine), and
// the prompt says both spellings work, which they do.
func TestPromptCallsUseEachToolsParameters(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.go", "package a\n\nfunc A() {}\n")
	r.Commit("one")
	h := serve(t, r)
	ctx := context.Background()
	props := map[string]map[string]any{}
	for tool, err := range h.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		schema, _ := tool.InputSchema.(map[string]any)
		props[tool.Name], _ = schema["properties"].(map[string]any)
	}
	for name, a := range map[string]map[string]string{
		"review_pull_request": {"owner": "acme", "repo": "widgets", "index": "7"},
		"review_changes":      {"base": "main", "head": "feature"},
	} {
		res, err := h.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: a})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Messages[0].Content.(*mcp.TextContent).Text
		calls := 0
		for _, line := range strings.Split(text, "\n") {
			_, call, ok := strings.Cut(line, ". ")
			tool, args, ok2 := strings.Cut(call, " {")
			if !ok || !ok2 || props[tool] == nil {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte("{"+args), &m); err != nil {
				t.Fatalf("%s: %q: %v", name, line, err)
			}
			calls++
			for k := range m {
				if _, ok := props[tool][k]; !ok {
					t.Errorf("%s: %s is given %q, not one of its parameters", name, tool, k)
				}
			}
		}
		if calls < 5 || !strings.Contains(text, lineParams) {
			t.Errorf("%s: %d calls; says of line parameters %v:\n%s", name, calls, strings.Contains(text, lineParams), text)
		}
	}
	// Either spelling, as the prompt says.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"blame", args("path", "a.go", "startLine", 3, "endLine", 3)},
		{"blame", args("path", "a.go", "start_line", 3, "end_line", 3)},
		{"read_file", args("path", "a.go", "ref", "HEAD", "start_line", 3, "end_line", 3)},
		{"read_file", args("path", "a.go", "ref", "HEAD", "startLine", 3, "endLine", 3)},
	} {
		if text := h.ok(c.tool, c.args); !strings.Contains(text, "func A() {}") || strings.Contains(text, "package a") {
			t.Errorf("%s %v does not give line 3 alone:\n%s", c.tool, c.args, text)
		}
	}
}
