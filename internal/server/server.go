// Package server wires the tools to MCP. Each tool lives in its own file:
// input and output types, handler, and the text an agent reads.
package server

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"os"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/splice"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"
)

// Config is what the command line decides.
type Config struct {
	MaxBytes int           // reply limit over the whole tool result
	Timeout  time.Duration // per-call deadline
	Policy   *repo.Policy
	BaseURL  string // web address of the forge that hosts the repositories, for links; "" for none
	// Forge, when set, answers get_pull_request_diff, get_file_content and
	// list_pull_request_files through the forge's API; the other tools read
	// the served repositories, then mirrors of the forge's.
	Forge   *forge.Client
	Version string
	Logger  *slog.Logger

	// MaxSearchFileBytes: search_code skips files larger than this (0: no
	// limit); git grep holds a whole file in memory.
	MaxSearchFileBytes int64

	// Tools are the tools to serve (SelectTools); none: every tool.
	Tools []*ToolDef

	// Structured: tools advertise output schemas and send
	// structuredContent beside the text (--structured). By default a
	// result is text only, so each payload is sent once.
	Structured bool

	// PatchCacheBytes bounds the patch cache (internal/paging), which keeps
	// what git printed past a part of a diff for the next part: 0 means
	// DefaultPatchCacheBytes, a negative value turns it off (each part
	// runs git diff).
	PatchCacheBytes int

	// CursorKey is the secret cursors are signed with (internal/paging): at
	// least paging.CursorKeyBytes random bytes, the same on every replica that
	// continues another's cursors. None: a random key of this server
	// alone.
	CursorKey []byte

	// Clients gives each client the budget it passes whole
	// (internal/clients); nil: every client gets MaxBytes.
	Clients *clients.Table
}

// DefaultPatchCacheBytes is the patch cache's default bound.
const DefaultPatchCacheBytes = 16 << 20

// DefaultMaxBytes keeps a reply under Claude Code's default 25,000-token
// limit on one MCP tool result.
const DefaultMaxBytes = 64 << 10

// MinMaxBytes is the smallest reply limit that leaves room for a useful answer.
const MinMaxBytes = 4 << 10

// Server answers tool calls for the served repositories.
type Server struct {
	cfg    Config
	served *repo.Served
	// backend answers the forge-compatible tools (backend.go).
	backend backend
	mcp     *mcp.Server
	impl    *mcp.Implementation
	// stdio is the transport RunStdio serves on; tool results go through
	// its middleware on every transport (internal/splice).
	stdio *splice.Stdio
	// calls answers the tool calls (internal/toolcall), each within the
	// budget of its client (budget).
	calls *toolcall.Calls
	// lines pages through blobs' lines, keeping their line counts
	// (internal/paging).
	lines paging.Lines
	// diffs cuts diffs into parts, keeping what git printed past a part
	// for the next (internal/paging).
	diffs *paging.Diffs
	// cursors signs and reads cursors (internal/paging).
	cursors paging.Key
	// partCounts and routes keep the parts lately counted and the notes
	// of cheaper routes lately made (partcount.go, cheaper_routes.go).
	partCounts memo[int]
	routes     memo[string]
	// folded keeps the diffs lately folded by collapseRepeated (folded.go),
	// offers what folding would give the diffs lately offered it
	// (fold_offer.go).
	folded viewCache[*foldedView]
	offers memo[foldOffer]
	// widened keeps the diffs lately widened by functionContext
	// (funcctx.go).
	widened viewCache[*widenedView]
	// outlines keeps the files lately parsed (outlines.go).
	outlines outlineCache
	// words keeps the word searches lately made (symbol_search.go), so
	// that the parts of one reply search once.
	words wordMemo
	// pullSymbolsKept keeps pull requests' changed symbols (pull_symbols.go).
	pullSymbolsKept lru[string, pullSymbolsResult]
	// ask is where asking the client for its roots in a tool result
	// stands (roots.go).
	ask rootsAsk
}

// New builds the MCP server with its tools (cfg.Tools) registered.
func New(served *repo.Served, cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, served: served, impl: &mcp.Implementation{Name: "mcp-repo-tools", Version: cfg.Version}}
	s.backend = newBackend(s)
	s.cursors = paging.NewKey(cfg.CursorKey).Naming(ToolNames())
	s.diffs = paging.NewDiffs(cmp.Or(cfg.PatchCacheBytes, DefaultPatchCacheBytes))
	s.calls = toolcall.New(paging.Budget{MaxBytes: cfg.MaxBytes, Structured: cfg.Structured}, cfg.Timeout, cfg.Logger, s.impl)
	s.calls.Clients = cfg.Clients
	opts := &mcp.ServerOptions{
		Instructions: servedInstructions(served),
		// The SDK reports every session at info level: noise in our logs.
		Logger: slog.New(quietHandler{cfg.Logger.Handler()}),
	}
	s.followRoots(opts)
	s.mcp = mcp.NewServer(s.impl, opts)
	s.stdio = splice.NewStdio()
	s.mcp.AddReceivingMiddleware(splice.Middleware(s.stdio), s.declareToWhoReads)
	tools := cfg.Tools
	if len(tools) == 0 {
		tools, _ = SelectTools(nil, nil, cfg.Forge != nil) // every tool: never an error
	}
	s.addPrompts()
	for _, d := range tools {
		t := d.served(cfg.MaxBytes)
		if !cfg.Structured {
			t.OutputSchema = nil
		}
		d.register(s, t, d.Tool().InputSchema.(*jsonschema.Schema)) // checked whole (advertised)
	}
	return s
}

// declareToWhoReads leaves each tool's declared size
// (anthropic/maxResultSizeChars) out of tools/list for a client that does
// not read it: every client but Claude Code, which would pay for it in
// every request (650 bytes of 16 KiB).
func (s *Server) declareToWhoReads(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || s.calls.Declared(req) {
			return res, err
		}
		out := *list
		out.Tools = make([]*mcp.Tool, len(list.Tools))
		for i, t := range list.Tools {
			c := *t
			c.Meta = maps.Clone(t.Meta)
			delete(c.Meta, MetaKeyMaxResultSize)
			if len(c.Meta) == 0 {
				c.Meta = nil
			}
			out.Tools[i] = &c
		}
		return &out, nil
	}
}

// budget is the call's reply budget: its client's, or less when the call
// asks for less (internal/toolcall).
func (s *Server) budget(ctx context.Context) paging.Budget {
	return paging.BudgetOf(ctx, s.calls.Budget)
}

// MCP is the underlying MCP server, to run on a transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// RunStdio serves MCP over stdin and stdout until the client goes or ctx
// ends. Results are written as splice.Stdio writes them.
func (s *Server) RunStdio(ctx context.Context) error {
	return s.stdio.Run(ctx, s.mcp, os.Stdin, os.Stdout)
}

// quietHandler passes on only warnings and errors.
type quietHandler struct{ slog.Handler }

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

// ptr is a pointer to a copy of v, for the optional fields of outputs.
func ptr[T any](v T) *T { return &v }
