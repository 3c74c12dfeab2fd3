package toolcall

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client that makes up a new name for every call cannot grow what the
// server keeps: clients are told apart as the table knows them, and each
// gets its budget.
func TestMadeUpClientNamesKeepNothing(t *testing.T) {
	c := &Calls{Budget: paging.Budget{MaxBytes: 65536}, Clients: clients.NewTable(65536, nil), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	call := func(name string) paging.Budget {
		meta := mcp.Meta{mcp.MetaKeyClientInfo: map[string]any{"name": name, "version": "1"}}
		return c.BudgetFor(&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: meta}})
	}
	for i := range 1000 {
		if b := call(fmt.Sprintf("made-up-%d", i)); b.MaxBytes != clients.Unknown.Bytes || b.MaxLines != clients.Unknown.Lines {
			t.Fatalf("an unknown client's budget: %+v", b)
		}
	}
	if b := call("Visual Studio Code"); b.MaxBytes != 65536 || b.Items != 8192 {
		t.Fatalf("VS Code's budget: %+v", b)
	}
	n := 0
	c.logged.Range(func(any, any) bool { n++; return true })
	if n != 2 {
		t.Fatalf("%d clients kept for the log, want 2 (unknown, VS Code)", n)
	}
}
