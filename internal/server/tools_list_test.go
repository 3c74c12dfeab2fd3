package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metaschema "github.com/santhosh-tekuri/jsonschema/v6"
)

// Most bytes of the tools/list result (issue 32, item 6): a client sends
// the definitions with every request to its model, so they are paid for in
// every turn. Above what issue 32 set by what the floor each maxBytes now
// states costs (issue 38: 47 bytes a tool, "0: the client's limit; raised
// to 2048 if less", 12 tools locally, 15 through a forge), which a grader
// and a model read as missing; and by what reaching inside a line longer
// than a reply costs (issue 38: startByte on read_file and read_job_log,
// start_byte on get_file_content, and a sentence on pieces in those and
// search_code, about 650 bytes); and by the diff tools' collapseRepeated
// and lineNumbers (issue 40, about 400 bytes), within issue 41's bound for
// the symbol tools: 18 KiB locally, 24 KiB through a forge (issue 41).
// With find_symbol, get_pull_request_symbols and functionContext that
// took trimming: descriptions shortened, the descriptions of parameters
// whose name, enum or tool already says it all dropped, and the
// advertised input schemas without what the server's own check says
// anyway (advertised, registry.go).
const (
	maxToolsListLocal = 18 * 1024
	maxToolsListForge = 24 * 1024
)

// wireToolsList is the result of tools/list as a client reads it from the
// transport, byte for byte, with the tools of local mode (forge false) or
// of forge mode, started with or without --structured.
func wireToolsList(t *testing.T, forge, structured bool) json.RawMessage {
	t.Helper()
	defs, err := SelectTools(nil, nil, forge)
	if err != nil {
		t.Fatal(err)
	}
	// A release's version, as the server names itself in the result's _meta.
	// Served as the command serves, to VS Code: a client that sends the
	// list in every request and reads no declared size (Claude Code, which
	// does, gets the declaration, 50 bytes a tool, besides).
	s := New(nil, Config{MaxBytes: DefaultMaxBytes, Structured: structured, Tools: defs, Version: "v1.10.0", Clients: clients.NewTable(DefaultMaxBytes, nil)})
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	// What the client reads, logged as the client received it: the
	// result's bytes are the server's (a json.RawMessage in between).
	var wire bytes.Buffer
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "Visual Studio Code"}, nil).Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: &wire}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The log is written after the message is read: once the session is
	// over, it is whole.
	cs.Close()
	ss.Wait()
	if res.NextCursor != "" || len(res.Tools) != len(defs) {
		t.Fatalf("tools/list gave %d of %d tools in its first page (next cursor %q)", len(res.Tools), len(defs), res.NextCursor)
	}
	sc := bufio.NewScanner(&wire)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		var result struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && json.Unmarshal(msg.Result, &result) == nil && len(result.Tools) > 0 {
			return msg.Result
		}
	}
	t.Fatal("no tools/list result among the messages the client read")
	return nil
}

// The tools/list result fits its bound in local and in forge mode.
func TestToolsListSize(t *testing.T) {
	for _, c := range []struct {
		mode  string
		forge bool
		most  int
	}{{"local", false, maxToolsListLocal}, {"forge", true, maxToolsListForge}} {
		got := len(wireToolsList(t, c.forge, false))
		t.Logf("tools/list in %s mode: %d bytes (at most %d); with --structured: %d", c.mode, got, c.most, len(wireToolsList(t, c.forge, true)))
		if got > c.most {
			t.Errorf("tools/list in %s mode is %d bytes, over %d", c.mode, got, c.most)
		}
	}
}

// Every input and output schema a client lists is a valid JSON Schema
// 2020-12 (the dialect MCP's schemas default to), checked against the
// draft's own metaschema: in local and forge mode, with and without
// --structured.
func TestToolSchemasMeetTheMetaschema(t *testing.T) {
	meta, err := metaschema.NewCompiler().Compile("https://json-schema.org/draft/2020-12/schema")
	if err != nil {
		t.Fatal(err)
	}
	for _, forge := range []bool{false, true} {
		for _, structured := range []bool{false, true} {
			var res mcp.ListToolsResult
			if err := json.Unmarshal(wireToolsList(t, forge, structured), &res); err != nil {
				t.Fatal(err)
			}
			outputs := 0
			for _, tool := range res.Tools {
				schemas := map[string]any{"input": tool.InputSchema}
				if tool.OutputSchema != nil {
					schemas["output"] = tool.OutputSchema
					outputs++
				}
				for which, s := range schemas {
					data, err := json.Marshal(s)
					if err != nil {
						t.Fatal(err)
					}
					v, err := metaschema.UnmarshalJSON(bytes.NewReader(data))
					if err != nil {
						t.Fatal(err)
					}
					if err := meta.Validate(v); err != nil {
						t.Errorf("forge %v, structured %v: %s's %s schema is not valid JSON Schema 2020-12: %v\n%s", forge, structured, tool.Name, which, err, data)
					}
				}
			}
			if structured != (outputs > 0) {
				t.Errorf("forge %v, structured %v: %d output schemas", forge, structured, outputs)
			}
		}
	}
}

// The metaschema check catches what it must: the duplicate in a required
// list that read_job_log's schema once had.
func TestMetaschemaRefusesADuplicateRequired(t *testing.T) {
	meta, err := metaschema.NewCompiler().Compile("https://json-schema.org/draft/2020-12/schema")
	if err != nil {
		t.Fatal(err)
	}
	for doc, valid := range map[string]bool{
		`{"type":"object","required":["jobId"]}`:          true,
		`{"type":"object","required":["jobId","jobId"]}`:  false,
		`{"type":"object","properties":{"a":{"type":1}}}`: false,
	} {
		v, err := metaschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := meta.Validate(v); (err == nil) != valid {
			t.Errorf("%s: valid %v, want %v", doc, err == nil, valid)
		}
	}
}
