package argcheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// Schema is a tool's input schema, ready to check calls against: the
// wrapper of every tool decodes its arguments with it.
type Schema struct {
	// Def is the schema as the tool declares it, Resolved the same ready
	// for the validator.
	Def      *jsonschema.Schema
	Resolved *jsonschema.Resolved
	// Aliases maps the other spellings the tool takes for its parameters
	// to their names (aliases.go).
	Aliases map[string]string
	// checked: Check enforces all the schema says (ChecksAll), so the
	// validator is not run.
	checked bool
}

// NewSchema resolves s for checking calls.
func NewSchema(s *jsonschema.Schema) (Schema, error) {
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	return Schema{Def: s, Resolved: resolved, Aliases: AliasesFor(s), checked: ChecksAll(s)}, err
}

// Decode renames the aliases of parameters to their names, checks the
// arguments against the schema (Check: plain words for what is wrong),
// applies its defaults, validates them when Check cannot vouch for all the
// schema says, and decodes them. Every failure is INVALID_ARGUMENT.
func Decode[In any](args json.RawMessage, schema Schema) (In, error) {
	var in In
	m, err := DecodeObject(args)
	if err != nil {
		return in, err
	}
	if err := ApplyAliases(schema.Aliases, m); err != nil {
		return in, err
	}
	if err := Check(schema.Def, m); err != nil {
		return in, err
	}
	// Backstops: defaults were validated when the schema was resolved, and
	// the validator runs only for what Check does not check; if one
	// fails, its own words are all there is.
	if err := schema.Resolved.ApplyDefaults(&m); err != nil {
		return in, errcode.New(errcode.InvalidArgument, "the arguments do not fit the tool's input schema: %v", err)
	}
	if !schema.checked {
		if err := schema.Resolved.Validate(&m); err != nil {
			return in, errcode.New(errcode.InvalidArgument, "the arguments do not fit the tool's input schema: %v", err)
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return in, errcode.New(errcode.InvalidArgument, "the arguments cannot be read: %v", err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return in, errcode.New(errcode.InvalidArgument, "%s has a value this tool cannot take", te.Field)
		}
		return in, errcode.New(errcode.InvalidArgument, "the arguments cannot be read: %v", err)
	}
	return in, nil
}

// ArgNames is the names of the parameters a call passed that are the
// tool's (an alias as the name it stands for), sorted, with a count of the
// others: names an agent made up are not repeated.
func (schema Schema) ArgNames(args json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	var names []string
	other := 0
	for k := range m {
		if target, ok := schema.Aliases[k]; ok {
			k = target
		}
		if _, ok := schema.Def.Properties[k]; ok {
			names = append(names, k)
		} else {
			other++
		}
	}
	slices.Sort(names)
	list := strings.Join(names, ",")
	if other > 0 {
		list += fmt.Sprintf(" (+%d unknown)", other)
	}
	return list
}
