package server

import (
	"context"
	"errors"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// The instructions give the review workflow within 1,500 characters, with
// the rule for an omitted ref and the cheap way through a pull request.
func TestInstructions(t *testing.T) {
	if n := len([]rune(instructions)); n > 1500 {
		t.Fatalf("instructions are %d characters, over 1,500", n)
	}
	for _, want := range []string{"get_pull_request_diff", "refs/pull/<index>/head", "search_code", "blame", "list_commits", paging.MetaKeyNext,
		omittedRef, "under 3 parts", "pure renames", "(paths)", "follow=true"} {
		if !strings.Contains(instructions, want) {
			t.Errorf("instructions do not mention %q", want)
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
	if text := res.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, `get_diff {"base":"main","head":"feature","paths":["<PATH>"]}`) {
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

// review_pull_request tells, from list_pull_request_files' first line,
// when the whole diff in parts costs fewer calls than file by file, with
// the arithmetic at this server's reply limit, and how to ask for a
// directory or a group of files (issue 23, item 6).
func TestReviewPromptChoosesTheCheapWay(t *testing.T) {
	for _, tc := range []struct {
		maxBytes int
		part     string
	}{
		{DefaultMaxBytes, "55,000"},
		{MinMaxBytes, text.Thousands(partPatchBytes(MinMaxBytes))},
	} {
		h := serve(t, testrepo.New(t), withMaxBytes(tc.maxBytes))
		res, err := h.cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "review_pull_request", Arguments: map[string]string{"owner": "acme", "repo": "widgets", "index": "7"}})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Messages[0].Content.(*mcp.TextContent).Text
		files := strings.Index(text, `list_pull_request_files {"index":7,"owner":"acme","repo":"widgets"}`)
		whole := strings.Index(text, `get_pull_request_diff {"index":7,"owner":"acme","repo":"widgets"}`)
		byFile := strings.Index(text, `get_pull_request_diff {"file_path":"<PATH>","index":7,"owner":"acme","repo":"widgets"}`)
		group := strings.Index(text, `get_pull_request_diff {"index":7,"owner":"acme","paths":["<DIR>/","<PATH>"],"repo":"widgets"}`)
		if files < 0 || whole < files || byFile < whole || group < byFile {
			t.Errorf("max %d: the steps are not list_pull_request_files, the whole diff, file by file, a group of files, in that order:\n%s", tc.maxBytes, text)
		}
		for _, want := range []string{
			"Its first line gives the file count and the total patch bytes",
			"a part holds about " + tc.part + " bytes of patch at this server's reply limit",
			"the total patch bytes ÷ " + tc.part + " calls, rounded up",
			"under 3", "pure renames", "paths takes files and directories",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("max %d: review_pull_request does not say %q:\n%s", tc.maxBytes, want, text)
			}
		}
	}
	if got := text.Thousands(partPatchBytes(DefaultMaxBytes)); got != "55,000" {
		t.Errorf("a part at the default limit holds %s bytes of patch, want about 55,000 (measured)", got)
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
