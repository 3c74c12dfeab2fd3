package server

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
)

// The tool reference (docs/tools.md) ("## Tools") is held to the registry: every
// tool has its "### `name`" section, every parameter of its input schema is
// named in that section, and no section names a tool that does not exist.
func TestReadmeToolReference(t *testing.T) {
	data, err := os.ReadFile("../../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := readmeToolSections(t, string(data))
	for _, d := range Tools() {
		body, ok := sections[d.Name()]
		if !ok {
			t.Errorf("docs/tools.md: no \"### `%s`\" section under \"## Tools\"", d.Name())
			continue
		}
		delete(sections, d.Name())
		if !regexp.MustCompile("`mcp-repo-tools call (--[a-z-]+ [^ `]+ )*" + d.Name() + "[ `]").MatchString(body) {
			t.Errorf("docs/tools.md, section %s: no example `mcp-repo-tools call %s ...` line", d.Name(), d.Name())
		}
		for _, p := range inputParams(t, d) {
			if !strings.Contains(body, "`"+p+"`") && !regexp.MustCompile("[`, ]"+regexp.QuoteMeta(p)+"[`,}]").MatchString(body) {
				t.Errorf("docs/tools.md, section %s: the parameter %s is not named", d.Name(), p)
			}
		}
	}
	for name := range sections {
		t.Errorf("docs/tools.md: a section \"### `%s`\" for a tool that does not exist", name)
	}
}

// readmeToolSections maps each "### `name`" heading of the Tools section to
// its text, up to the next heading of the same or a higher level.
func readmeToolSections(t *testing.T, readme string) map[string]string {
	t.Helper()
	_, tools, ok := strings.Cut(readme, "\n## Tools\n")
	if !ok {
		t.Fatal("docs/tools.md has no \"## Tools\" section")
	}
	if end := strings.Index(tools, "\n## "); end >= 0 {
		tools = tools[:end]
	}
	heading := regexp.MustCompile("(?m)^### `([^`]+)`\\s*$")
	out := map[string]string{}
	locs := heading.FindAllStringSubmatchIndex(tools, -1)
	if len(locs) == 0 {
		t.Fatal("docs/tools.md: no \"### `name`\" sections under \"## Tools\"")
	}
	for i, loc := range locs {
		end := len(tools)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out[tools[loc[2]:loc[3]]] = tools[loc[1]:end]
	}
	return out
}

func inputParams(t *testing.T, d *ToolDef) []string {
	t.Helper()
	data, err := json.Marshal(d.Tool().InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// docs/tools.md's "Parameter names" table names every spelling of the alias
// table.
func TestReadmeListsEveryAlias(t *testing.T) {
	data, err := os.ReadFile("../../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n### Parameter names\n")
	if !ok {
		t.Fatal(`docs/tools.md has no "### Parameter names" section`)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	for _, group := range argcheck.AliasGroups {
		for _, name := range group {
			if !strings.Contains(section, "`"+name+"`") {
				t.Errorf("docs/tools.md, Parameter names: %s is not named", name)
			}
		}
	}
}
