// Package clients knows what each MCP client does with a tool result before
// its model reads it, and so how large a reply each one passes whole.
//
// Every client but Claude Code cuts, files or previews a large result by a
// rule of its own and cannot be told the server's size; so the server sizes
// each reply to the client that reads it (docs/clients.md). The table below
// is the whole of that knowledge: adding a client is one row.
//
// A rule is kept as a budget in the client's own unit (text.Unit): the
// text's UTF-16 units (VS Code, Gemini CLI), its UTF-8 bytes (opencode), or
// JSON (Codex's header and content array; and every client whose count is
// not known, since JSON is at least any of them). A count of lines
// (opencode) is a second measure.
package clients

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Rule is what one client does with a tool result.
type Rule struct {
	// Names are the clientInfo.name values the client sends (and the
	// product of its HTTP User-Agent).
	Names []string
	// Seen is, for the names a client was run and seen sending, the
	// client and version it was seen in: a client renames itself between
	// versions (Copilot CLI did), and the table is only as good as that.
	Seen map[string]string
	// Bytes is the largest result, counted in Unit, the client passes
	// whole to its model; 0: whatever the server sends (--max-bytes).
	Bytes int
	// Unit is what the client counts Bytes in.
	Unit text.Unit
	// Lines is the most lines of text it passes whole; 0: no limit.
	Lines int
	// PerItem: Bytes bounds each text item of a result, not the result
	// (VS Code), so a reply up to --max-bytes comes in as many items.
	PerItem bool
	// Declared: the client reads the size each tool declares
	// (anthropic/maxResultSizeChars), which is --max-bytes.
	Declared bool
	// Over is what the client does with a larger result.
	Over string
	// Source is where the rule was read.
	Source string
}

// Known is every client whose rule was read from its source. The budgets
// are the clients' own limits; what a client adds around the text where
// it is counted (Gemini CLI's wrapper, Codex's header) the server keeps
// free in each reply (paging.SeenSize).
var Known = []Rule{
	{Names: []string{"claude-code"}, Declared: true, Seen: map[string]string{"claude-code": "Claude Code 2.1.332"},
		Over:   "over the declared size (at most 500,000 characters): a file, and the model gets a 2,000-character preview",
		Source: "npm @anthropic-ai/claude-code 2.1.332; claude-code issue 79944"},
	{Names: []string{"codex-mcp-client"}, Bytes: 12_000, Seen: map[string]string{"codex-mcp-client": "Codex 0.171"},
		Over:   `over 12,000 bytes of "Wall time…\nOutput:\n" and the content's JSON (gpt-5.2 and any model it does not know): the middle is cut ("…N chars truncated…")`,
		Source: "openai/codex codex-rs/core/src/tools/context.rs, utils/string/src/truncate.rs"},
	{Names: []string{"Visual Studio Code", "Visual Studio Code - Insiders"}, Bytes: 8_192, Unit: text.UTF16Units, PerItem: true,
		Over:   "a text part over 8,192 UTF-16 units: a file, and the model gets no preview (each part by itself: a reply comes in parts of at most 8,192)",
		Source: "vscode mcpLanguageModelToolContribution.ts; vscode-copilot-chat toolCalling.tsx"},
	{Names: []string{"gemini-cli-mcp-client"}, Bytes: 40_000, Unit: text.UTF16Units, Seen: map[string]string{"gemini-cli-mcp-client": "Gemini CLI 0.61"},
		Over:   "a text part over 40,000 UTF-16 units with its 41-unit wrapper: a file, and the model gets the first 20% and the last 80%",
		Source: "gemini-cli packages/core/src/scheduler/tool-executor.ts, utils/fileUtils.ts"},
	// Copilot CLI sends copilot-cli; github-copilot-developer is in its
	// strings, and was its name before.
	{Names: []string{"copilot-cli", "github-copilot-developer"}, Bytes: 30_000, Unit: text.UTF8Bytes, Seen: map[string]string{"copilot-cli": "Copilot CLI 1.0.102"},
		Over:   "over about 30 KB (text and structured content counted): a file and a 500-character preview",
		Source: "npm @github/copilot 1.0.102; copilot-cli issues 1268, 1732, 4515"},
	{Names: []string{"opencode"}, Bytes: 51_200, Lines: 2_000, Unit: text.UTF8Bytes, Seen: map[string]string{"opencode": "opencode 1.18"},
		Over:   "over 51,200 bytes or 2,000 lines: the head, the rest to a file",
		Source: "opencode packages/opencode/src/tool/truncate.ts"},
	{Names: []string{"goose-cli"}, Bytes: 200_000,
		Over:   "a text part over 200,000 characters: a file, no preview",
		Source: "goose crates/goose/src/agents/large_response_handler.rs"},
	{Names: []string{"Cline", "@cline/core", "Roo Code", "continue-client", "continue-cli-client", "Zed"},
		Seen:   map[string]string{"@cline/core": "Cline CLI 3.0.65", "continue-cli-client": "Continue CLI 1.5.47"},
		Over:   "no limit found",
		Source: "Cline McpHub.ts; Roo Code UseMcpToolTool.ts; Continue callTool.ts; Zed context_server_registry.rs"},
	{Names: []string{CommandLine},
		Over:   "the call command prints the whole result",
		Source: "cmd/mcp-repo-tools/call.go"},
}

// CommandLine is the client name of the server's own call command, which
// prints whatever the server sends.
const CommandLine = "mcp-repo-tools-cli"

// Unknown is the rule of a client not in Known (Cursor and Windsurf among
// them: their limits are not known): what every known client passes whole.
// VS Code's 8,192 units are the smallest limit; 8,000 bytes of JSON are
// under 10,000 as Codex counts them; opencode's 2,000 lines are the only
// count of lines.
var Unknown = Rule{Bytes: 8_000, Lines: 2_000,
	Over:   "not known: sized to pass every known client whole",
	Source: "docs/clients.md"}

// Budget is what the server may send one client: at most Bytes counted in
// Unit and, when Lines is not 0, at most Lines lines of text.
type Budget struct {
	Client string // the name it was found by; "" when unknown
	Bytes  int
	Unit   text.Unit
	Lines  int
	// Items, when not 0, is the most each text item of a result may
	// hold, counted in Unit; Bytes is then the whole result's.
	Items int
	// Why says where the budget comes from, for the log.
	Why string
}

// Table resolves a client's name to its budget: the Known rules, those the
// operator replaced (--client-limit), all within the server's limit.
type Table struct {
	maxBytes  int
	overrides map[string]int
}

// NewTable is the table of a server whose replies are at most maxBytes,
// with the operator's limits (name → bytes) in place of the known rules.
func NewTable(maxBytes int, overrides map[string]int) *Table {
	return &Table{maxBytes: maxBytes, overrides: overrides}
}

// For is the budget of the client called name.
func (t *Table) For(name string) Budget {
	r, ok := Lookup(name)
	if n, over := t.overrides[name]; over {
		// The operator's number, counted as the client counts.
		return Budget{Client: name, Bytes: min(n, t.maxBytes), Unit: r.Unit, Why: fmt.Sprintf("--client-limit %s=%d", name, n)}
	}
	if !ok {
		return Budget{Bytes: min(Unknown.Bytes, t.maxBytes), Lines: Unknown.Lines, Why: "an unknown client: what every known client passes whole"}
	}
	b := Budget{Client: name, Bytes: t.maxBytes, Unit: r.Unit, Lines: r.Lines, Why: r.Over}
	switch {
	case r.PerItem && r.Bytes < t.maxBytes:
		b.Items = r.Bytes
	case r.Bytes > 0:
		b.Bytes = min(r.Bytes, t.maxBytes)
	}
	return b
}

// Lookup is the known rule of the client called name.
func Lookup(name string) (Rule, bool) {
	for _, r := range Known {
		for _, n := range r.Names {
			if n == name {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// FromUserAgent is the client name an HTTP User-Agent gives: its first
// product's name ("codex-mcp-client/0.98.0 (Linux)" → "codex-mcp-client").
func FromUserAgent(ua string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
	name, _, _ := strings.Cut(first, "/")
	return name
}

// ParseLimit reads one --client-limit value, NAME=BYTES.
func ParseLimit(v string) (name string, bytes int, err error) {
	i := strings.LastIndexByte(v, '=')
	if i <= 0 {
		return "", 0, fmt.Errorf("--client-limit %q: want NAME=BYTES, NAME as the client sends it in clientInfo.name", v)
	}
	n, err := strconv.Atoi(v[i+1:])
	if err != nil || n <= 0 {
		return "", 0, fmt.Errorf("--client-limit %q: BYTES must be a positive number", v)
	}
	return v[:i], n, nil
}
