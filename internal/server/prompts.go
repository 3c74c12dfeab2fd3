package server

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"
)

// instructions are what a client shows a model about the server as a whole:
// the rules every tool shares and the review workflow, in at most 1,500
// characters (TestInstructions).
const instructions = `Read-only access to git repositories and their pull requests. Every reply is bounded: a partial reply ends with the exact call for the next part (also in the result's _meta "` + paging.MetaKeyNext + `"); make it as given, never guess arguments. A \ starting a line of a file or text is the server's: it marks a line that reads like one of the server's own, and a [framed: …] note names it. owner and repo may be left out when one repository is served.

Reviewing a pull request:
1. get_pull_request: its purpose, base, head, how many parts the whole diff takes. To pick files instead: list_pull_request_files, with sizes.
2. get_pull_request_diff: ` + wholeDiff + ` If step 1 says lines follow patterns, collapseRepeated=true. To read a few: file_path (one file) or paths (files and directories).
3. get_pull_request_symbols: changed functions, and callers it did not update.
4. At the head (ref=refs/pull/<index>/head), not the default branch: find_symbol include=body for a whole function, mode=references for uses; read_file, search_code.
5. When a change needs its reason: list_commits with index=<index>, get_commit, blame; list_commits with one path and follow=true goes on through renames.

Comparing two refs instead: list_changed_files, then get_diff with base and head. list_files finds files by name, list_repositories what is served. Prompts review_pull_request and review_changes give the calls.`

// prompts are the server's MCP prompts: the review workflow with the
// actual calls for one request (Claude Code offers them as slash commands).
func (s *Server) addPrompts() {
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:        "review_pull_request",
		Title:       "Review a pull request",
		Description: "Review pull request <index> of <owner>/<repo> with this server's tools: the calls, in order.",
		Arguments: []*mcp.PromptArgument{
			{Name: "owner", Description: "repository owner (optional when one repository is served)"},
			{Name: "repo", Description: "repository name (optional when one repository is served)"},
			{Name: "index", Description: "pull request number", Required: true},
		},
	}, invalidParams(s.reviewPullRequest))
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:        "review_changes",
		Title:       "Review changes between two refs",
		Description: "Review the changes of <head> since it branched from <base> with this server's tools: the calls, in order.",
		Arguments: []*mcp.PromptArgument{
			{Name: "base", Description: "base ref, e.g. main", Required: true},
			{Name: "head", Description: "head ref, e.g. a branch or a SHA", Required: true},
			{Name: "owner", Description: "repository owner (optional when one repository is served)"},
			{Name: "repo", Description: "repository name (optional when one repository is served)"},
		},
	}, invalidParams(s.reviewChanges))
}

// invalidParams makes a prompt's error what JSON-RPC says a bad argument
// is: an invalid-params error (-32602), not the SDK's generic code 0, with
// the one line that says what is wrong.
func invalidParams(h mcp.PromptHandler) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		res, err := h(ctx, req)
		if err != nil && errcode.Of(err) == errcode.InvalidArgument {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: toolcall.OneLine(errcode.Message(err))}
		}
		return res, err
	}
}

// served reports whether the server serves the tool (--tools,
// --exclude-tools): a prompt names only tools that can be called.
func (s *Server) serves(tool string) bool {
	return len(s.cfg.Tools) == 0 || slices.ContainsFunc(s.cfg.Tools, func(d *ToolDef) bool { return d.name == tool })
}

// step is one call of a workflow and why.
type step struct {
	tool string
	args map[string]any
	why  string
}

// workflow renders the steps whose tools are served, numbered, each with
// its exact call.
func (s *Server) workflow(intro string, steps []step, outro string) *mcp.GetPromptResult {
	var b strings.Builder
	b.WriteString(intro + "\n\n")
	n := 0
	for _, st := range steps {
		if !s.serves(st.tool) {
			continue
		}
		n++
		fmt.Fprintf(&b, "%d. %s %s\n   %s\n", n, st.tool, paging.PlainJSON(st.args), st.why)
	}
	b.WriteString("\n" + outro + "\n")
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: b.String()}}}}
}

// lineParams says why the workflow spells line parameters two ways: each
// call uses its tool's own names (blame's are Gitea's, as
// get_file_content's), and each tool takes the other spelling too
// (argcheck.AliasGroups).
const lineParams = "Its lines are start_line and end_line; read_file's are startLine and endLine (each tool takes either spelling)."

const followNext = "When a reply is partial, its last line (and _meta \"" + paging.MetaKeyNext + "\") gives the exact call for the next part: make it, until a reply has none."

func (s *Server) reviewPullRequest(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	a := req.Params.Arguments
	owner, name := a["owner"], a["repo"]
	if err := s.servedNames(ctx, &owner, &name); err != nil {
		return nil, err
	}
	if !repo.ValidName(owner) || !repo.ValidName(name) {
		return nil, errcode.New(errcode.InvalidArgument, "owner and repo must be a repository's names (letters, digits, '-', '_', '.'), got %q/%q", owner, name)
	}
	index, err := strconv.Atoi(a["index"])
	if err != nil || index < 1 {
		return nil, errcode.New(errcode.InvalidArgument, "index must be a pull request number (1 or more), got %q", a["index"])
	}
	pr := map[string]any{"owner": owner, "repo": name, "index": index}
	with := func(kv ...any) map[string]any {
		m := map[string]any{"owner": owner, "repo": name}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	head := fmt.Sprintf("refs/pull/%d/head", index)
	steps := []step{
		{"get_pull_request", pr, "What the pull request is for: title, description, base and head SHAs."},
	}
	if s.cfg.Forge != nil {
		// What reviewers and CI already said comes before the diff.
		steps = append(steps,
			step{"list_pull_request_reviews", with("index", index, "unresolved", true), "What reviewers said and is not settled: the unresolved threads, by file and line, and each reviewer's verdict. " +
				"Do not raise again a point a resolved thread settled; an outdated thread's line changed since."},
			step{"get_commit_status", pr, "The head's checks, failing first: a failing check says where to look first. On a forge with Actions, list_action_runs with the same arguments names the failed jobs, and read_job_log reads a failed job's log from its end."},
			step{"list_pull_request_comments", pr, "The discussion, when the description leaves a decision unclear."})
	}
	steps = append(steps, []step{
		{"get_pull_request_diff", pr, "The whole diff, in the parts get_pull_request counted. " + wholeDiff + " " + followNext},
		{"get_pull_request_diff", with("index", index, "collapseRepeated", true), "Instead, when get_pull_request says most changed lines follow patterns: each repeated change once, with where it is, and every other change in full, first: read what breaks a pattern closely. lineNumbers=true numbers each line to cite."},
		{"list_pull_request_files", pr, "Only to pick files, when you do not read it whole: the files with status, line counts and patch sizes (test and generated files marked)."},
		{"get_pull_request_diff", with("index", index, "file_path", "<PATH>"), "One chosen file's changes, when you read only a few."},
		{"get_pull_request_diff", with("index", index, "paths", []string{"<DIR>/", "<PATH>"}), "Or a directory, or a group of files, in one go: paths takes files and directories (both sides of a rename)."},
		{"get_pull_request_symbols", pr, "After the diff: the functions it adds, removes or changes, and under each changed one its references at head on lines it did not change: callers it may have broken."},
		{"find_symbol", with("name", "<NAME>", "ref", head, "include", "body"), "A whole function that matters, at the head (not the default branch); mode=references lists its uses in code. No more than the question needs."},
		{"read_file", with("path", "<PATH>", "ref", head, "startLine", 1), "The code around a change, at the head."},
		{"search_code", with("query", "<NAME>", "ref", head), "Other text naming what changed (comments, configuration, documentation), at the head."},
		{"list_commits", with("index", index), "The commits, when a change needs its reason; get_commit shows one."},
		{"blame", with("path", "<PATH>", "ref", head, "start_line", 1, "end_line", 50), "Who last changed these lines, and in which commit. " + lineParams},
	}...)
	return s.workflow(fmt.Sprintf("Review pull request #%d of %s/%s. Use the mcp-repo-tools tools in this order (replace <PATH>, <DIR> and <NAME>):", index, owner, name),
		steps, "Then write the review: for each problem, the file and line at the head, what is wrong, and a fix. Say what you did not read."), nil
}

func (s *Server) reviewChanges(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	a := req.Params.Arguments
	base, head := a["base"], a["head"]
	for _, ref := range []string{base, head} {
		if err := repo.CheckRev(ref); err != nil || ref == "" {
			return nil, errcode.New(errcode.InvalidArgument, "base and head must be refs or SHAs, got %q and %q", base, head)
		}
	}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		if a["owner"] != "" || a["repo"] != "" {
			m["owner"], m["repo"] = a["owner"], a["repo"]
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	steps := []step{
		{"list_changed_files", with("base", base, "head", head), "The files changed on head since it branched from base, with status and line counts."},
		{"get_diff", with("base", base, "head", head), "The whole diff. " + wholeDiff + " " + followNext + " When one change is repeated in many places, collapseRepeated=true shows it once, with where, and every other change in full."},
		{"get_diff", with("base", base, "head", head, "paths", []string{"<PATH>"}), "Chosen files' or directories' changes, when you read only a few."},
		{"find_symbol", with("name", "<NAME>", "ref", head, "mode", "references"), "The uses in code of a function that changed, at head; include=body (with mode definitions) reads a whole function."},
		{"read_file", with("path", "<PATH>", "ref", head, "startLine", 1), "The code around a change, at head."},
		{"search_code", with("query", "<NAME>", "ref", head), "Other text naming what changed, at head."},
		{"list_commits", with("base", base, "head", head), "The commits, when a change needs its reason; get_commit shows one."},
		{"blame", with("path", "<PATH>", "ref", head, "start_line", 1, "end_line", 50), "Who last changed these lines, and in which commit. " + lineParams},
	}
	return s.workflow(fmt.Sprintf("Review the changes of %s since it branched from %s. Use the mcp-repo-tools tools in this order (replace <PATH> and <NAME>):", head, base),
		steps, "Then write the review: for each problem, the file and line at head, what is wrong, and a fix. Say what you did not read."), nil
}
