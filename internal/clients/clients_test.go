package clients

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Each client's budget is its rule within the server's limit; the
// operator's limit replaces a rule, known or not; any other name gets what
// every known client passes whole.
func TestBudgets(t *testing.T) {
	tbl := NewTable(65536, map[string]int{"codex-mcp-client": 44000, "cursor-vscode": 30000, "claude-code": 100000})
	for _, c := range []struct {
		name         string
		bytes, lines int
	}{
		{"claude-code", 65536, 0}, // an operator's limit stays within --max-bytes
		{"codex-mcp-client", 44000, 0},
		{"Visual Studio Code", 65536, 0}, // in text items of 8,192 units: below
		{"Visual Studio Code - Insiders", 65536, 0},
		{"opencode", 51200, 2000},
		{"copilot-cli", 30000, 0}, // Copilot CLI 1.0.102, not the name in its strings
		{"github-copilot-developer", 30000, 0},
		{"@cline/core", 65536, 0},
		{"goose-cli", 65536, 0},
		{"Zed", 65536, 0},
		{CommandLine, 65536, 0},
		{"cursor-vscode", 30000, 0},
		{"windsurf-client", 8000, 2000},
		{"", 8000, 2000},
	} {
		if b := tbl.For(c.name); b.Bytes != c.bytes || b.Lines != c.lines {
			t.Errorf("%q: %d bytes, %d lines; want %d, %d", c.name, b.Bytes, b.Lines, c.bytes, c.lines)
		}
	}
	// VS Code takes each text item by itself: a reply is --max-bytes in
	// items of its 8,192 units, unless the operator sets its limit.
	if b := tbl.For("Visual Studio Code"); b.Items != 8192 || b.Unit.String() != "UTF-16 units" {
		t.Errorf("VS Code's items: %+v", b)
	}
	if b := NewTable(65536, map[string]int{"Visual Studio Code": 8192}).For("Visual Studio Code"); b.Items != 0 || b.Bytes != 8192 {
		t.Errorf("VS Code with --client-limit: %+v, want replies of one item of 8,192", b)
	}
	if b := NewTable(4096, nil).For("Visual Studio Code"); b.Items != 0 || b.Bytes != 4096 {
		t.Errorf("VS Code under --max-bytes 4096: %+v, want one item", b)
	}
	// No budget is more than the smallest known client passes, for one
	// the server does not know.
	for _, r := range Known {
		if r.Bytes > 0 && r.Bytes < Unknown.Bytes {
			t.Errorf("%v passes %d bytes, less than an unknown client is sent", r.Names, r.Bytes)
		}
	}
}

func TestFromUserAgentAndParseLimit(t *testing.T) {
	if got := FromUserAgent("codex-mcp-client/0.98.0 (Linux; x86_64)"); got != "codex-mcp-client" {
		t.Errorf("FromUserAgent: %q", got)
	}
	if name, n, err := ParseLimit("Visual Studio Code=9000"); err != nil || name != "Visual Studio Code" || n != 9000 {
		t.Errorf("ParseLimit: %q %d %v", name, n, err)
	}
	for _, bad := range []string{"codex", "=9000", "codex=", "codex=-1", "codex=x"} {
		if _, _, err := ParseLimit(bad); err == nil || !strings.Contains(err.Error(), "--client-limit") {
			t.Errorf("ParseLimit(%q): %v", bad, err)
		}
	}
}

// Each name a client was seen sending is one of its rule's names, and
// docs/clients.md gives it with the version it was seen in.
func TestSeenNamesAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/clients.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Known {
		for name, version := range r.Seen {
			if _, ok := Lookup(name); !ok || !slices.Contains(r.Names, name) {
				t.Errorf("%q, seen in %s, is not one of %v", name, version, r.Names)
			}
			if want := "`" + name + "` (" + version + ")"; !strings.Contains(string(doc), want) {
				t.Errorf("docs/clients.md does not give %s", want)
			}
		}
	}
}
