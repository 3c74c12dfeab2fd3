package argcheck

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// The other spellings agents send for a parameter, taken without an error
// and without being advertised: each tool's schema names a parameter one
// way (the seeds fix some names), and an agent that learnt another tool's
// spelling, or GitHub's, should not lose a call to it.
//
// Each group is the spellings of one idea. A tool that has one of them as a
// parameter takes the others as that parameter; a name that is itself a
// parameter of the tool is never an alias. Groups are tried in order, so a
// spelling two groups share is the first one's: "path" is get_diff's
// paths only because get_diff has no path of its own.
var AliasGroups = [][]string{
	{"path", "filePath", "file_path", "file"},
	{"startLine", "start_line"},
	{"endLine", "end_line"},
	{"index", "number", "pull_number", "pullNumber"},
	// Every ref parameter names a commit (a branch, tag or SHA).
	{"ref", "sha", "commit"},
	{"paths", "path", "files", "filePath", "file_path", "file", "file_paths", "filePaths"},
	{"pathGlobs", "glob", "globs", "path_globs"},
	{"maxBytes", "max_bytes"},
	{"contextLines", "context_lines"},
	{"maxResults", "max_results"},
	{"caseSensitive", "case_sensitive"},
	{"withMetadata", "with_metadata"},
}

// AliasesFor maps each alias the tool with input schema s takes to the
// parameter it stands for.
func AliasesFor(s *jsonschema.Schema) map[string]string {
	aliases := map[string]string{}
	for _, group := range AliasGroups {
		i := slices.IndexFunc(group, func(name string) bool { _, ok := s.Properties[name]; return ok })
		if i < 0 {
			continue
		}
		for _, alias := range group {
			_, real := s.Properties[alias]
			_, taken := aliases[alias]
			if !real && !taken {
				aliases[alias] = group[i]
			}
		}
	}
	return aliases
}

// ApplyAliases renames the aliases in args to the parameters they stand
// for. A parameter given twice, under its name and an alias or under two
// aliases, is refused: which value was meant cannot be known.
func ApplyAliases(aliases map[string]string, args map[string]any) error {
	given := map[string][]string{} // parameter → the names it was given as
	for k := range args {
		if target, ok := aliases[k]; ok {
			given[target] = append(given[target], k)
		}
	}
	var problems []string
	for _, target := range slices.Sorted(maps.Keys(given)) {
		names := given[target]
		if _, ok := args[target]; ok {
			names = append(names, target)
		}
		if len(names) > 1 {
			slices.Sort(names)
			quoted := make([]string, len(names))
			for i, n := range names {
				quoted[i] = strconv.Quote(n)
			}
			problems = append(problems, fmt.Sprintf("%s is given more than once (as %s): pass it once, as %s", target, strings.Join(quoted, " and "), target))
			continue
		}
		args[target] = args[names[0]]
		delete(args, names[0])
	}
	if len(problems) > 0 {
		return errcode.New(errcode.InvalidArgument, "%s", strings.Join(problems, "; "))
	}
	return nil
}
