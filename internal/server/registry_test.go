package server

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
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

// inputProps is a tool's input schema's properties, by name.
func inputProps(t *testing.T, d *ToolDef) map[string]*jsonschema.Schema {
	t.Helper()
	in, ok := d.Tool().InputSchema.(*jsonschema.Schema)
	if !ok {
		t.Fatalf("%s: input schema %T", d.Name(), d.Tool().InputSchema)
	}
	return in.Properties
}

// Every reply is bounded, so an agent must learn how to get what a partial
// reply left out. Where a tool takes a cursor, its description says only
// that a partial reply ends with the next call and points at cursor, whose
// own description carries the details (issue 23, item 7): where the call
// is, that it is made as given, and what the cursor pins. A tool without a
// cursor says how it goes on in its description: the words it must hold.
func TestRegistryDescriptionsSayHowToContinue(t *testing.T) {
	continues := map[string][]string{
		"blame":                      {"a partial reply ends with the call that returns the next lines"},
		"get_commit_status":          {"a partial reply ends with the call for the next page"},
		"list_action_runs":           {"a partial reply ends with the call for the next page"},
		"read_job_log":               {"a partial reply ends with the call that reads on"},
		"list_pull_request_comments": {"a partial reply ends with the call for the next part, by comment id"},
		"get_file_content":           {"ask for a range, or use read_file"},
		"list_repositories":          {"a partial reply ends with the call that returns the next page"},
		"read_file":                  {"a partial reply ends with the call that reads on"},
		"search_code":                {"narrow with pathGlobs or a more specific query when truncated"},
	}
	for _, d := range Tools() {
		desc := d.Tool().Description
		cursor, paged := inputProps(t, d)["cursor"]
		if !paged {
			words, ok := continues[d.Name()]
			if !ok {
				t.Errorf("%s: no cursor, and no entry here saying how its description tells an agent to continue a partial reply", d.Name())
			}
			for _, w := range words {
				if !strings.Contains(desc, w) {
					t.Errorf("%s: the description does not say how to continue a partial reply (want %q in it):\n%s", d.Name(), w, desc)
				}
			}
			delete(continues, d.Name())
			continue
		}
		if !strings.Contains(desc, "a partial reply ends with the call for the next") && !strings.Contains(desc, "then the next call (see cursor)") {
			t.Errorf("%s: the description does not say that a partial reply ends with the next call:\n%s", d.Name(), desc)
		}
		if !strings.Contains(desc, "(see cursor)") || strings.Contains(desc, paging.MetaKeyNext) {
			t.Errorf("%s: the description does not point at cursor, or repeats its details (%s):\n%s", d.Name(), paging.MetaKeyNext, desc)
		}
		for _, w := range []string{"leave out for the first", "gives the exact call for the next", "this cursor", paging.MetaKeyNext, "make it as given, until a reply has none"} {
			if !strings.Contains(cursor.Description, w) {
				t.Errorf("%s: cursor's description lacks %q:\n%s", d.Name(), w, cursor.Description)
			}
		}
		if !strings.Contains(cursor.Description, "pins") && !strings.Contains(cursor.Description, "at the same") {
			t.Errorf("%s: cursor's description does not say what it pins:\n%s", d.Name(), cursor.Description)
		}
	}
	for name := range continues {
		t.Errorf("%s: listed here but no such tool, or it takes a cursor", name)
	}
}

// descriptionVerbs are the verbs a description may start with.
var descriptionVerbs = []string{"Get", "List", "Read", "Search", "Blame"}

// descriptionResources are what a first sentence names: one at least.
var descriptionResources = []string{"diff", "commit", "file", "pull request", "repositor", "director", "lines"}

// Every description is under 1,000 characters, and its first sentence
// starts with a verb and names the resource it acts on (TDQS's purpose:
// a specific verb and resource).
func TestRegistryDescriptionsShape(t *testing.T) {
	for _, d := range Tools() {
		desc := d.Tool().Description
		if n := utf8.RuneCountInString(desc); n >= 1000 {
			t.Errorf("%s: the description is %d characters, 1,000 or more", d.Name(), n)
		}
		first, _, _ := strings.Cut(desc, ". ")
		verb, _, _ := strings.Cut(first, " ")
		if !slices.Contains(descriptionVerbs, verb) {
			t.Errorf("%s: the first sentence starts with %q, not one of the verbs %v: %q", d.Name(), verb, descriptionVerbs, first)
		}
		if !slices.ContainsFunc(descriptionResources, func(r string) bool { return strings.Contains(first, r) }) {
			t.Errorf("%s: the first sentence names none of %v: %q", d.Name(), descriptionResources, first)
		}
	}
}

// Every description names the sibling to use instead, for the pairs an
// agent confuses (issue 23, item 7).
func TestRegistryDescriptionsNameTheirSiblings(t *testing.T) {
	siblings := map[string][]string{
		"read_file":                  {"get_file_content"},
		"get_file_content":           {"read_file"},
		"get_diff":                   {"get_pull_request_diff", "get_commit", "list_changed_files"},
		"get_pull_request_diff":      {"get_diff", "get_commit", "list_pull_request_files"},
		"get_commit":                 {"get_diff", "get_pull_request_diff", "list_commits"},
		"list_changed_files":         {"list_pull_request_files", "get_diff"},
		"list_pull_request_files":    {"list_changed_files", "get_pull_request_diff"},
		"search_code":                {"list_files", "read_file"},
		"list_files":                 {"search_code"},
		"list_commits":               {"get_commit", "blame"},
		"blame":                      {"list_commits", "get_commit"},
		"get_pull_request":           {"list_pull_request_files", "get_pull_request_diff", "list_commits"},
		"list_repositories":          {},
		"get_commit_status":          {"get_pull_request", "list_action_runs"},
		"list_action_runs":           {"read_job_log", "get_commit_status"},
		"read_job_log":               {"list_action_runs", "read_file"},
		"list_pull_request_reviews":  {"list_pull_request_comments", "get_pull_request_diff"},
		"list_pull_request_comments": {"list_pull_request_reviews"},
	}
	for _, d := range Tools() {
		want, ok := siblings[d.Name()]
		if !ok {
			t.Errorf("%s: no entry here naming the siblings its description must name", d.Name())
		}
		for _, sib := range want {
			if !strings.Contains(d.Tool().Description, sib) {
				t.Errorf("%s: the description does not name %s:\n%s", d.Name(), sib, d.Tool().Description)
			}
		}
	}
}

// One rule for an omitted ref, stated in the same words by every tool
// that takes a ref or a head; what a diff's part ends with, in the same
// words by every diff tool.
func TestRegistryDescriptionsShareTheRules(t *testing.T) {
	for _, d := range Tools() {
		desc, props := d.Tool().Description, inputProps(t, d)
		_, ref := props["ref"]
		_, head := props["head"]
		optional := !slices.Contains(requiredOf(t, d), "ref")
		if states := strings.Contains(desc, omittedRef); (ref && optional || head) != states {
			t.Errorf("%s: takes an optional ref %v or a head %v, but states the rule for an omitted one %v:\n%s", d.Name(), ref && optional, head, states, desc)
		}
		if strings.Count(desc, "HEAD") != strings.Count(omittedRef, "HEAD")*strings.Count(desc, omittedRef) {
			t.Errorf("%s: says HEAD outside the one rule:\n%s", d.Name(), desc)
		}
		diffTool := slices.Contains([]string{"get_diff", "get_pull_request_diff", "get_commit"}, d.Name())
		if diffTool != strings.Contains(desc, partEnds) {
			t.Errorf("%s: a diff tool %v, says what a part ends with %v", d.Name(), diffTool, !diffTool)
		}
	}
}

// requiredOf is a tool's required parameters.
func requiredOf(t *testing.T, d *ToolDef) []string {
	t.Helper()
	return d.Tool().InputSchema.(*jsonschema.Schema).Required
}

func TestSelectTools(t *testing.T) {
	names := func(defs []*ToolDef) []string {
		var out []string
		for _, d := range defs {
			out = append(out, d.Name())
		}
		return out
	}
	all, err := SelectTools(nil, nil, true)
	if err != nil || !slices.Equal(names(all), ToolNames()) {
		t.Fatalf("no selection: %v %v", names(all), err)
	}
	got, err := SelectTools([]string{"search_code", "read_file"}, nil, true)
	if err != nil || !slices.Equal(names(got), []string{"read_file", "search_code"}) {
		t.Fatalf("--tools: %v %v", names(got), err)
	}
	got, err = SelectTools([]string{"search_code", "read_file"}, []string{"read_file"}, true)
	if err != nil || !slices.Equal(names(got), []string{"search_code"}) {
		t.Fatalf("--tools less --exclude-tools: %v %v", names(got), err)
	}
	got, err = SelectTools(nil, []string{"get_diff"}, true)
	if err != nil || len(got) != len(registry)-1 || slices.Contains(names(got), "get_diff") {
		t.Fatalf("--exclude-tools: %v %v", names(got), err)
	}
	_, err = SelectTools([]string{"read_file", "grep"}, []string{"cat"}, true)
	if err == nil || !strings.Contains(err.Error(), `"grep", "cat"`) || !strings.Contains(err.Error(), strings.Join(ToolNames(), ", ")) {
		t.Fatalf("unknown names: %v", err)
	}
	if _, err = SelectTools([]string{"read_file"}, []string{"read_file"}, true); err == nil || !strings.Contains(err.Error(), "no tool") {
		t.Fatalf("empty selection: %v", err)
	}
	// Without a forge, the forge-only tools are left out, and naming one
	// is refused in words that say why.
	local, err := SelectTools(nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range registry {
		if slices.Contains(names(local), d.Name()) == d.ForgeOnly() {
			t.Errorf("without a forge: %s served %v, forge-only %v", d.Name(), !d.ForgeOnly(), d.ForgeOnly())
		}
	}
	if _, err := SelectTools([]string{"list_pull_request_reviews"}, nil, false); err == nil || !strings.Contains(err.Error(), "served with --forge") {
		t.Fatalf("a forge-only tool named without a forge: %v", err)
	}
}

// A server given a selection serves only it.
func TestServerServesTheSelection(t *testing.T) {
	defs, err := SelectTools([]string{"read_file", "list_repositories"}, nil, true)
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
