package server

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
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
// reply left out. A tool with a cursor says it in the cursor's description
// (and its description need not repeat what the schema says); a diff tool
// says what a part ends with; any other tool says in its description how it
// goes on: the words it must hold.
func TestRegistryDescriptionsSayHowToContinue(t *testing.T) {
	continues := map[string]string{
		"blame":                      partialNext,
		"get_commit_status":          partialNext,
		"list_action_runs":           partialNext,
		"read_job_log":               partialNext,
		"list_pull_request_comments": partialNext,
		"list_repositories":          partialNext,
		"read_file":                  partialNext,
		"get_file_content":           "Refuses a file too large for one reply",
		"search_code":                partialNext,
	}
	for _, d := range Tools() {
		desc := d.Tool().Description
		if cursor, ok := inputProps(t, d)["cursor"]; ok {
			if cursor.Description != cursorDoc {
				t.Errorf("%s: cursor's description is %q, not the one every cursor has (%q)", d.Name(), cursor.Description, cursorDoc)
			}
			if w, ok := continues[d.Name()]; ok {
				t.Errorf("%s: takes a cursor, and is listed here with %q", d.Name(), w)
			}
			continue
		}
		w, ok := continues[d.Name()]
		if !ok && !strings.Contains(desc, partEnds) {
			t.Errorf("%s: no cursor, not a diff tool, and no entry here saying how its description tells an agent to continue a partial reply", d.Name())
		}
		if !strings.Contains(desc, w) {
			t.Errorf("%s: the description does not say how to continue a partial reply (want %q in it):\n%s", d.Name(), w, desc)
		}
	}
}

// cursorDoc is what every cursor parameter says.
const cursorDoc = "from a reply's next call"

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
		"get_pull_request":           {"get_pull_request_diff", "list_commits"},
		"list_repositories":          {},
		"list_symbols":               {"read_file"},
		"find_symbol":                {"list_symbols", "search_code"},
		"get_pull_request_symbols":   {"get_pull_request_diff", "find_symbol"},
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

// What an omitted ref (or head) means, for each tool that takes an optional
// one: said once, in that parameter's description, where it is true.
// read_file and search_code read the work tree (HEAD in a bare repository,
// as a forge's mirror is); get_file_content the default branch, as Gitea's
// API does; the forge's checks, the default branch; the others HEAD.
var omittedRefRules = map[string]struct{ param, rule string }{
	"blame":              {"ref", "omit for HEAD"},
	"list_files":         {"ref", "omit for HEAD"},
	"list_commits":       {"ref", "omit for HEAD"},
	"list_symbols":       {"ref", "omit for HEAD"},
	"find_symbol":        {"ref", "omit for HEAD"},
	"get_diff":           {"head", "omit for HEAD"},
	"list_changed_files": {"head", "omit for HEAD"},
	"read_file":          {"ref", "omit for the work tree (HEAD if bare)"},
	"search_code":        {"ref", "omit for the work tree (HEAD if bare)"},
	"get_file_content":   {"ref", "omit for the default branch"},
	"get_commit_status":  {"ref", "neither: the default branch"},
	"list_action_runs":   {"ref", "neither: the default branch"},
}

// Each tool that takes an optional ref or head says once what leaving it out
// means, in that parameter's description, and its description says nothing
// of it (issue 32: one sentence about an omitted ref stood in ten
// descriptions, wrong for some of them). A diff tool says what a part ends
// with in the same words as the others.
func TestRegistryDescriptionsShareTheRules(t *testing.T) {
	for _, d := range Tools() {
		desc, props := d.Tool().Description, inputProps(t, d)
		optional := map[string]bool{}
		for _, name := range []string{"ref", "head"} {
			if _, ok := props[name]; ok && !slices.Contains(requiredOf(t, d), name) {
				optional[name] = true
			}
		}
		want, ok := omittedRefRules[d.Name()]
		if ok != (len(optional) > 0) {
			t.Errorf("%s: takes an optional ref or head %v, has a rule here %v", d.Name(), optional, ok)
		}
		rules := map[string]bool{}
		for _, r := range omittedRefRules {
			rules[r.rule] = true
		}
		said := 0
		for name, p := range props {
			for rule := range rules {
				if strings.Contains(p.Description, rule) {
					said++
					if name != want.param || rule != want.rule {
						t.Errorf("%s: %s says %q; want %q in %s", d.Name(), name, rule, want.rule, want.param)
					}
				}
			}
		}
		if ok && said != 1 {
			t.Errorf("%s: the rule for an omitted %s (%q) is said %d times in its parameters, want once", d.Name(), want.param, want.rule, said)
		}
		for _, w := range []string{"HEAD", "work tree", "omitted"} {
			if strings.Contains(desc, w) {
				t.Errorf("%s: the description speaks of %q: what an omitted ref means is its parameter's to say:\n%s", d.Name(), w, desc)
			}
		}
		diffTool := slices.Contains([]string{"get_diff", "get_pull_request_diff", "get_commit"}, d.Name())
		if diffTool != strings.Contains(desc, partEnds) {
			t.Errorf("%s: a diff tool %v, says what a part ends with %v", d.Name(), diffTool, !diffTool)
		}
	}
}

// The tools that lead to a diff give the one rule for reading it whole or
// file by file, once each, and no tool another (issue 32, item 5).
func TestRegistryDescriptionsGiveTheOneDiffRule(t *testing.T) {
	gives := []string{"get_diff", "get_pull_request_diff", "list_pull_request_files"}
	for _, d := range Tools() {
		desc := d.Tool().Description
		want := 0
		if slices.Contains(gives, d.Name()) {
			want = 1
		}
		if n := strings.Count(desc, wholeDiff); n != want {
			t.Errorf("%s: gives the rule for a whole diff %d times, want %d:\n%s", d.Name(), n, want, desc)
		}
		for _, old := range []string{"3 parts", "55,000", "÷", "pure renames"} {
			if strings.Contains(desc, old) {
				t.Errorf("%s: still gives the old rule (%q):\n%s", d.Name(), old, desc)
			}
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

// Every tool that reads files at a ref says, in its ref's description, how
// to read a pull request's version (its head), since leaving ref out reads
// something else.
func TestRegistryDescriptionsSayHowToReadAPullRequest(t *testing.T) {
	for _, d := range Tools() {
		if !slices.Contains([]string{"read_file", "get_file_content", "search_code", "list_files", "blame", "list_commits"}, d.Name()) {
			continue
		}
		if ref := inputProps(t, d)["ref"]; !strings.Contains(ref.Description, "refs/pull/N/head") {
			t.Errorf("%s: ref's description does not say how to read at a pull request's head: %q", d.Name(), ref.Description)
		}
	}
}
