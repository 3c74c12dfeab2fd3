//go:build unix

package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"

	"github.com/google/jsonschema-go/jsonschema"
)

// decoders decodes a call's arguments into each tool's input type, as the
// wrapper does before the handler runs.
var decoders = map[string]func(json.RawMessage, argcheck.Schema) (any, error){
	"blame":                      decodeAs[blameIn],
	"get_commit":                 decodeAs[getCommitIn],
	"get_commit_status":          decodeAs[getCommitStatusIn],
	"list_action_runs":           decodeAs[listActionRunsIn],
	"read_job_log":               decodeAs[readJobLogIn],
	"get_diff":                   decodeAs[getDiffIn],
	"get_file_content":           decodeAs[getFileContentIn],
	"get_pull_request":           decodeAs[getPullRequestIn],
	"get_pull_request_diff":      decodeAs[getPullRequestDiffIn],
	"list_changed_files":         decodeAs[listChangedFilesIn],
	"list_commits":               decodeAs[listCommitsIn],
	"list_files":                 decodeAs[listFilesIn],
	"list_pull_request_comments": decodeAs[listPullRequestCommentsIn],
	"list_pull_request_files":    decodeAs[listPullRequestFilesIn],
	"list_pull_request_reviews":  decodeAs[listPullRequestReviewsIn],
	"list_repositories":          decodeAs[listRepositoriesIn],
	"list_symbols":               decodeAs[listSymbolsIn],
	"find_symbol":                decodeAs[findSymbolIn],
	"get_pull_request_symbols":   decodeAs[pullSymbolsIn],
	"read_file":                  decodeAs[readFileIn],
	"search_code":                decodeAs[searchCodeIn],
}

func decodeAs[In any](args json.RawMessage, schema argcheck.Schema) (any, error) {
	return argcheck.Decode[In](args, schema)
}

// toolInput is a tool's input schema, ready to check calls against.
func toolInput(t *testing.T, d *ToolDef) argcheck.Schema {
	t.Helper()
	in, _, err := d.schemas()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := argcheck.NewSchema(in)
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// sampleValue is a value the property p accepts.
func sampleValue(p *jsonschema.Schema) any {
	types := argcheck.TypesOf(p)
	switch {
	case len(p.Enum) > 0:
		return p.Enum[0]
	case slices.Contains(types, "integer"):
		n := 2
		if p.Maximum != nil && float64(n) > *p.Maximum {
			n = int(*p.Maximum)
		}
		return n
	case slices.Contains(types, "boolean"):
		return true
	case slices.Contains(types, "array"):
		return []any{"src/a.go"}
	}
	return "src/a.go"
}

// Every alias of the table, for every tool that has the parameter it
// stands for, reaches the same field of the tool's input as the parameter's
// own name: derived from the table and the schemas, so a new alias or tool
// is tested as it comes. A single string for an array of strings is that
// one string.
func TestEveryAliasReachesItsParameter(t *testing.T) {
	tested := 0
	for _, d := range registry {
		decode, ok := decoders[d.Name()]
		if !ok {
			t.Fatalf("%s: no decoder in aliases_test.go; add its input type", d.Name())
		}
		schema := toolInput(t, d)
		for alias, target := range schema.Aliases {
			p := schema.Def.Properties[target]
			base := map[string]any{}
			for _, r := range schema.Def.Required {
				if r != target {
					base[r] = sampleValue(schema.Def.Properties[r])
				}
			}
			decodeWith := func(name string, v any) any {
				t.Helper()
				args := map[string]any{}
				if name != "" {
					args[name] = v
				}
				for k, bv := range base {
					args[k] = bv
				}
				data, _ := json.Marshal(args)
				in, err := decode(data, schema)
				if err != nil {
					t.Fatalf("%s %s: %v", d.Name(), data, err)
				}
				return in
			}
			v := sampleValue(p)
			want := decodeWith(target, v)
			if !slices.Contains(schema.Def.Required, target) && reflect.DeepEqual(want, decodeWith("", nil)) {
				t.Fatalf("%s: %s=%v decodes as nothing given: the test's value is wrong", d.Name(), target, v)
			}
			if got := decodeWith(alias, v); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s=%v decodes as %+v, %s=%v as %+v", d.Name(), alias, v, got, target, v, want)
			}
			if items, ok := v.([]any); ok {
				if got := decodeWith(alias, items[0]); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s=%q (a string for an array) decodes as %+v, want %+v", d.Name(), alias, items[0], got, want)
				}
			}
			tested++
		}
	}
	if tested == 0 {
		t.Fatal("no alias tested")
	}
}

// No alias is a parameter of the tool that takes it, and every parameter a
// group names in a tool's schema keeps its own name.
func TestAliasesAreNeverParameters(t *testing.T) {
	for _, d := range registry {
		schema := toolInput(t, d)
		for alias, target := range schema.Aliases {
			if _, ok := schema.Def.Properties[alias]; ok {
				t.Errorf("%s: %s is a parameter and an alias of %s", d.Name(), alias, target)
			}
			if _, ok := schema.Def.Properties[target]; !ok {
				t.Errorf("%s: %s stands for %s, not a parameter", d.Name(), alias, target)
			}
		}
	}
}

// A parameter given twice, under its name and an alias or two aliases, is
// refused, naming both; a string for an array of strings is taken, through
// the server.
func TestAliasClashIsRefused(t *testing.T) {
	h := serve(t, modelsRepo(t))
	for _, c := range []errorCase{
		{"name and alias", "read_file", `{"path": "README.md", "file_path": "x"}`,
			`INVALID_ARGUMENT: path is given more than once (as "file_path" and "path"): pass it once, as path`},
		{"two aliases", "get_file_content", `{"owner": "acme", "repo": "widgets", "path": "README.md", "file": "x"}`,
			`INVALID_ARGUMENT: filePath is given more than once (as "file" and "path"): pass it once, as filePath`},
		{"two parameters", "blame", `{"path": "README.md", "start_line": 1, "startLine": 2, "endLine": 3, "end_line": 3}`,
			`INVALID_ARGUMENT: end_line is given more than once (as "endLine" and "end_line"): pass it once, as end_line; start_line is given more than once (as "startLine" and "start_line"): pass it once, as start_line`},
	} {
		t.Run(c.name, func(t *testing.T) { wantError(t, h, c) })
	}
	got := h.ok("read_file", map[string]any{"file_path": "README.md", "start_line": 1, "end_line": 1})
	if want := h.ok("read_file", map[string]any{"path": "README.md", "startLine": 1, "endLine": 1}); got != want {
		t.Errorf("aliases read %q, the names %q", got, want)
	}
	one := h.ok("list_commits", map[string]any{"paths": "README.md"})
	if want := h.ok("list_commits", map[string]any{"paths": []string{"README.md"}}); one != want {
		t.Errorf("paths as a string: %q, as an array %q", one, want)
	}
}
