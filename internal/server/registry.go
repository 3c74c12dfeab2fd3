package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The registry: every tool's definition, which exists without a server.
// `mcp-repo-tools tools` lists it anywhere, --tools and --exclude-tools pick
// from it, New registers what was picked, and the tests check it as a whole
// (registry_test.go) and snapshot each tool (testdata/toolsnaps).
//
// To add a tool: define it in its own file with defineTool and list it here.
var registry = []*ToolDef{
	blameTool,
	findSymbolTool,
	getCommitTool,
	getCommitStatusTool,
	getDiffTool,
	getFileContentTool,
	getPullRequestTool,
	getPullRequestDiffTool,
	pullSymbolsTool,
	listActionRunsTool,
	listChangedFilesTool,
	listCommitsTool,
	listFilesTool,
	listPullRequestCommentsTool,
	listPullRequestFilesTool,
	listPullRequestReviewsTool,
	listRepositoriesTool,
	listSymbolsTool,
	readFileTool,
	readJobLogTool,
	searchCodeTool,
}

// ToolDef is one tool's definition: what an agent is told about it (name,
// title, description, annotations, input and output schemas) and the
// handler that answers it.
type ToolDef struct {
	name        string
	title       string
	description string
	openWorld   bool
	// forgeOnly: the tool reads what only a forge has (a pull request's
	// reviews, discussion, checks); served only with --forge.
	forgeOnly bool
	// schemas builds the tool's input schema (from its input type, adjusted
	// by its tune function) and its output schema (nil: text only).
	schemas func() (in, out *jsonschema.Schema, err error)
	// register adds the tool to a server with its handler.
	register func(s *Server, t *mcp.Tool, in *jsonschema.Schema)
}

// toolSpec is what a tool file says about its tool.
type toolSpec struct {
	Name, Title, Description string
	// OpenWorld: the tool reaches beyond the served repositories. None does:
	// even in forge mode, every tool reads the one forge the server was
	// started with.
	OpenWorld bool
	// ForgeOnly: the tool reads what only a forge has, and is served only
	// in forge mode (--forge).
	ForgeOnly bool
	// Tune adjusts the input schema made from the handler's input type:
	// defaults, ranges, enums.
	Tune func(*jsonschema.Schema)
}

// defineTool makes a tool's definition from its spec and its handler, a
// method of Server. The input schema comes from In; the output schema from
// Out, the type of the value the handler returns beside its text, so what a
// tool advertises and what it sends cannot part. A text-only tool has Out
// textOnly and no output schema.
func defineTool[In, Out any](spec toolSpec, h func(*Server, context.Context, In) (reply[Out], error)) *ToolDef {
	return &ToolDef{
		name:        spec.Name,
		title:       spec.Title,
		description: spec.Description,
		openWorld:   spec.OpenWorld,
		forgeOnly:   spec.ForgeOnly,
		schemas: func() (*jsonschema.Schema, *jsonschema.Schema, error) {
			in, err := jsonschema.For[In](nil)
			if err != nil {
				return nil, nil, fmt.Errorf("input schema: %w", err)
			}
			if spec.Tune != nil {
				spec.Tune(in)
			}
			if toolcall.IsTextOnly[Out]() {
				return in, nil, nil
			}
			out, err := jsonschema.For[Out](nil)
			if err != nil {
				return nil, nil, fmt.Errorf("output schema: %w", err)
			}
			return in, out, nil
		},
		register: func(s *Server, t *mcp.Tool, in *jsonschema.Schema) {
			toolcall.Add(s.mcp, s.calls, t, in, func(ctx context.Context, x In) (paging.Wire, error) {
				r, err := h(s, ctx, x)
				return r.Wire(), err
			})
		},
	}
}

// Name is the tool's name.
func (d *ToolDef) Name() string { return d.name }

// Tool is the tool's MCP definition, with its schemas. Each call builds it
// anew: a server may keep and use what it gets.
func (d *ToolDef) Tool() *mcp.Tool {
	in, out, err := d.schemas()
	if err != nil {
		// A definition that cannot make its schemas is a bug the tests catch.
		panic(fmt.Sprintf("tool %s: %v", d.name, err))
	}
	t := &mcp.Tool{
		Name:        d.name,
		Description: d.description,
		Annotations: readOnly(d.title, d.openWorld),
		InputSchema: in,
	}
	if out != nil {
		t.OutputSchema = out
	}
	return t
}

// MetaKeyMaxResultSize is the key of a tool's _meta in tools/list that
// declares the most characters one of its results holds. Claude Code keeps
// a result of up to that many characters in the conversation (50,000 when
// a tool declares nothing, at most 500,000 whatever it declares) and
// writes a larger one to a file, giving the model a preview and the path.
const MetaKeyMaxResultSize = "anthropic/maxResultSizeChars"

// served is the tool as a server with the reply limit maxBytes registers
// it: it declares that limit as its results' most characters. A result is
// held to maxBytes bytes of JSON (toolcall.Calls.ResultSize, the backstop in
// toolcall), and no text has more characters than bytes: neither in UTF-8
// nor counted in UTF-16 code units, as JavaScript does.
func (d *ToolDef) served(maxBytes int) *mcp.Tool {
	t := d.Tool()
	t.InputSchema = advertised(t.InputSchema.(*jsonschema.Schema))
	t.Meta = mcp.Meta{MetaKeyMaxResultSize: maxBytes}
	if d.forgeOnly {
		t.Meta[MetaKeyForgeOnly] = true
	}
	return t
}

// MetaKeyForgeOnly marks, in a tool's _meta, a tool served only in forge
// mode (`tools --json` shows it).
const MetaKeyForgeOnly = "mcp-repo-tools/forgeOnly"

// ForgeOnly: the tool is served only in forge mode.
func (d *ToolDef) ForgeOnly() bool { return d.forgeOnly }

// Listed is the tool as an MCP client lists it from a server started with
// or without --structured and with the reply limit maxBytes: its schemas
// are plain JSON values, as they arrive over the wire, and the output
// schema is there only with --structured. `tools --json` prints these.
func (d *ToolDef) Listed(structured bool, maxBytes int) *mcp.Tool {
	t := d.served(maxBytes)
	t.InputSchema = plainJSON(t.InputSchema)
	if t.OutputSchema != nil && structured {
		t.OutputSchema = plainJSON(t.OutputSchema)
	} else {
		t.OutputSchema = nil
	}
	return t
}

func plainJSON(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var plain any
	if err := json.Unmarshal(data, &plain); err != nil {
		panic(err)
	}
	return plain
}

// readOnly marks every tool: nothing here changes a repository.
func readOnly(title string, openWorld bool) *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &openWorld}
}

// Tools is every tool's definition, by name.
func Tools() []*ToolDef { return slices.Clone(registry) }

// ToolNames is the name of every tool, sorted.
func ToolNames() []string {
	names := make([]string, len(registry))
	for i, d := range registry {
		names[i] = d.name
	}
	slices.Sort(names)
	return names
}

// SelectTools is the tools named in only (all when only is empty) less
// those named in exclude; without a forge (forge false), less the
// forge-only tools, and naming one in only is an error that says so. A
// name that is no tool's is an error that lists the tools; so is a
// selection that leaves no tool.
func SelectTools(only, exclude []string, forge bool) ([]*ToolDef, error) {
	byName := map[string]*ToolDef{}
	for _, d := range registry {
		byName[d.name] = d
	}
	var unknown []string
	for _, n := range slices.Concat(only, exclude) {
		if _, ok := byName[n]; !ok && !slices.Contains(unknown, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		quoted := make([]string, len(unknown))
		for i, n := range unknown {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		word := "no tool"
		if len(unknown) > 1 {
			word = "no tools"
		}
		return nil, fmt.Errorf("there is %s %s; the tools are %s", word, strings.Join(quoted, ", "), strings.Join(ToolNames(), ", "))
	}
	var picked []*ToolDef
	for _, d := range registry {
		named := slices.Contains(only, d.name)
		if d.forgeOnly && !forge {
			if named {
				return nil, fmt.Errorf("%s reads what only a forge has: it is served with --forge", d.name)
			}
			continue
		}
		if (len(only) == 0 || named) && !slices.Contains(exclude, d.name) {
			picked = append(picked, d)
		}
	}
	if len(picked) == 0 {
		return nil, fmt.Errorf("the selection leaves no tool to serve; the tools are %s", strings.Join(ToolNames(), ", "))
	}
	return picked, nil
}

// advertised is an input schema as tools/list gives it, which a client
// sends its model with every request (issue 41: at most 18 KiB for them
// all): without what the server's own check (argcheck) says anyway. No
// "additionalProperties": false, which every tool would repeat: an
// unknown argument is still refused, by name. An array parameter's type
// is "array", not ["null", "array"]: null is still taken for none.
func advertised(in *jsonschema.Schema) *jsonschema.Schema {
	out := *in
	out.AdditionalProperties = nil
	out.Properties = make(map[string]*jsonschema.Schema, len(in.Properties))
	for name, p := range in.Properties {
		if slices.Equal(p.Types, []string{"null", "array"}) {
			q := *p
			q.Types, q.Type = nil, "array"
			p = &q
		}
		out.Properties[name] = p
	}
	return &out
}
