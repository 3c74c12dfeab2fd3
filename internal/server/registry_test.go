package server

import (
	"slices"
	"strings"
	"testing"
)

// The registry is sorted by name, as clients list tools, and names are
// unique.
func TestRegistryOrder(t *testing.T) {
	names := make([]string, 0, len(registry))
	for _, d := range registry {
		names = append(names, d.Name())
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("registry not sorted by name or names repeated: %v", names)
	}
	if !slices.Equal(names, ToolNames()) {
		t.Fatalf("ToolNames %v, registry %v", ToolNames(), names)
	}
}

// Every tool is titled, read-only, idempotent, not destructive, and says
// whether it reaches an open world; its schemas build.
func TestRegistryAnnotations(t *testing.T) {
	for _, d := range Tools() {
		tool := d.Tool()
		a := tool.Annotations
		switch {
		case a == nil:
			t.Errorf("%s: no annotations", d.Name())
		case strings.TrimSpace(a.Title) == "":
			t.Errorf("%s: no title", d.Name())
		case !a.ReadOnlyHint || !a.IdempotentHint:
			t.Errorf("%s: readOnlyHint %v, idempotentHint %v; want both true", d.Name(), a.ReadOnlyHint, a.IdempotentHint)
		case a.DestructiveHint == nil || *a.DestructiveHint:
			t.Errorf("%s: destructiveHint %v; want false, stated", d.Name(), a.DestructiveHint)
		case a.OpenWorldHint == nil:
			t.Errorf("%s: openWorldHint not stated", d.Name())
		}
		if tool.InputSchema == nil {
			t.Errorf("%s: no input schema", d.Name())
		}
		if strings.TrimSpace(tool.Description) == "" {
			t.Errorf("%s: no description", d.Name())
		}
	}
}

// Every reply is bounded, so every description tells an agent how to get
// what a partial reply left out: the words it must contain, per tool. A
// new tool needs its entry here, and so a sentence in its description.
func TestRegistryDescriptionsSayHowToContinue(t *testing.T) {
	continues := map[string][]string{
		"blame":                   {"a partial reply ends with the call that returns the next lines"},
		"get_commit":              {"a partial reply ends with the exact call that returns the next part", MetaKeyNext, "list_commits", "index"},
		"get_diff":                {"a partial reply ends with the exact call that returns the next part", MetaKeyNext},
		"get_file_content":        {"ask for a range, or use read_file"},
		"get_pull_request":        {"a partial reply ends with the exact call that returns the next part", MetaKeyNext},
		"get_pull_request_diff":   {"a partial reply ends with the exact call that returns the next part", MetaKeyNext},
		"list_changed_files":      {"a partial reply ends with the call that returns the next page"},
		"list_commits":            {"a partial reply ends with the call that returns the next page", "index"},
		"list_files":              {"a partial reply ends with the call that returns the next page"},
		"list_pull_request_files": {"a partial reply ends with the call that returns the next page"},
		"list_repositories":       {"a partial reply ends with the call that returns the next page"},
		"read_file":               {"a partial reply ends with the call that reads on"},
		"search_code":             {"narrow with pathGlobs or a more specific query when truncated"},
	}
	for _, d := range Tools() {
		words, ok := continues[d.Name()]
		if !ok {
			t.Errorf("%s: no entry here saying how its description tells an agent to continue a partial reply", d.Name())
			continue
		}
		desc := d.Tool().Description
		for _, w := range words {
			if !strings.Contains(desc, w) {
				t.Errorf("%s: the description does not say how to continue a partial reply (want %q in it):\n%s", d.Name(), w, desc)
			}
		}
		delete(continues, d.Name())
	}
	for name := range continues {
		t.Errorf("%s: listed here but no such tool", name)
	}
}

func TestSelectTools(t *testing.T) {
	names := func(defs []*ToolDef) []string {
		var out []string
		for _, d := range defs {
			out = append(out, d.Name())
		}
		return out
	}
	all, err := SelectTools(nil, nil)
	if err != nil || !slices.Equal(names(all), ToolNames()) {
		t.Fatalf("no selection: %v %v", names(all), err)
	}
	got, err := SelectTools([]string{"search_code", "read_file"}, nil)
	if err != nil || !slices.Equal(names(got), []string{"read_file", "search_code"}) {
		t.Fatalf("--tools: %v %v", names(got), err)
	}
	got, err = SelectTools([]string{"search_code", "read_file"}, []string{"read_file"})
	if err != nil || !slices.Equal(names(got), []string{"search_code"}) {
		t.Fatalf("--tools less --exclude-tools: %v %v", names(got), err)
	}
	got, err = SelectTools(nil, []string{"get_diff"})
	if err != nil || len(got) != len(registry)-1 || slices.Contains(names(got), "get_diff") {
		t.Fatalf("--exclude-tools: %v %v", names(got), err)
	}
	_, err = SelectTools([]string{"read_file", "grep"}, []string{"cat"})
	if err == nil || !strings.Contains(err.Error(), `"grep", "cat"`) || !strings.Contains(err.Error(), strings.Join(ToolNames(), ", ")) {
		t.Fatalf("unknown names: %v", err)
	}
	if _, err = SelectTools([]string{"read_file"}, []string{"read_file"}); err == nil || !strings.Contains(err.Error(), "no tool") {
		t.Fatalf("empty selection: %v", err)
	}
}

// A server given a selection serves only it.
func TestServerServesTheSelection(t *testing.T) {
	defs, err := SelectTools([]string{"read_file", "list_repositories"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New(nil, Config{MaxBytes: DefaultMaxBytes, Tools: defs})
	var got []string
	for _, tool := range listTools(t, s) {
		got = append(got, tool.Name)
	}
	if !slices.Equal(got, []string{"list_repositories", "read_file"}) {
		t.Fatalf("served %v", got)
	}
}

// Every tool that reads files at a ref says how to read a pull request's
// version (its head), since leaving ref out reads something else.
func TestRegistryDescriptionsSayHowToReadAPullRequest(t *testing.T) {
	for _, name := range []string{"read_file", "get_file_content", "search_code", "list_files", "blame"} {
		for _, d := range Tools() {
			if d.Name() == name && !strings.Contains(d.Tool().Description, atPullHead) {
				t.Errorf("%s: the description does not say how to read at a pull request's head:\n%s", name, d.Tool().Description)
			}
		}
	}
}
