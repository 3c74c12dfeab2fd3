package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every tool's input schema uses only keywords argcheck.Check enforces, so no
// call pays for the validator. A schema that comes to use another keyword
// still works (the validator runs for it) but fails here, to be seen.
func TestEveryToolSchemaIsCheckedWhole(t *testing.T) {
	for _, d := range registry {
		in, _, err := d.schemas()
		if err != nil {
			t.Fatal(err)
		}
		if !argcheck.ChecksAll(in) {
			data, _ := json.MarshalIndent(in, "", "  ")
			t.Errorf("%s: argcheck.Check does not enforce all of its input schema; the validator will run on every call:\n%s", d.name, data)
		}
	}
}

// A keyword argcheck.Check does not enforce leaves the validator to run, and
// its words are what the agent reads.
func TestChecksAllLeavesOtherKeywordsToTheValidator(t *testing.T) {
	ptrF := func(f float64) *float64 { return &f }
	cases := []struct {
		name string
		tune func(s *jsonschema.Schema)
		args string // arguments only the validator refuses
	}{
		{"pattern", func(s *jsonschema.Schema) { s.Properties["name"].Pattern = "^[a-z]+$" }, `{"name":"A1"}`},
		{"format", func(s *jsonschema.Schema) { s.Properties["name"].Format = "email" }, ``},
		{"a number's bounds", func(s *jsonschema.Schema) {
			s.Properties["ratio"] = &jsonschema.Schema{Type: "number", Maximum: ptrF(1)}
		}, `{"name":"ab","ratio":1.5}`},
		{"exclusiveMinimum", func(s *jsonschema.Schema) { s.Properties["count"].ExclusiveMinimum = ptrF(1) }, `{"name":"ab","count":1}`},
		{"an integer's enum", func(s *jsonschema.Schema) { s.Properties["count"].Enum = []any{1, 2} }, `{"name":"ab","count":3}`},
		{"two types", func(s *jsonschema.Schema) {
			s.Properties["count"].Types, s.Properties["count"].Type = []string{"integer", "string"}, ""
		}, ``},
		{"a nested object's properties", func(s *jsonschema.Schema) {
			s.Properties["opts"] = &jsonschema.Schema{Type: "object", Required: []string{"x"}, Properties: map[string]*jsonschema.Schema{"x": {Type: "string"}}}
		}, `{"name":"ab","opts":{}}`},
		{"uniqueItems", func(s *jsonschema.Schema) { s.Properties["paths"].UniqueItems = true }, `{"name":"ab","paths":["a","a"]}`},
		{"an item's pattern", func(s *jsonschema.Schema) { s.Properties["paths"].Items.Pattern = "^[a-z]+$" }, `{"name":"ab","paths":["A"]}`},
		{"additionalProperties a schema", func(s *jsonschema.Schema) {
			s.AdditionalProperties = &jsonschema.Schema{Type: "string"}
		}, `{"name":"ab","extra":1}`},
		{"oneOf at the top", func(s *jsonschema.Schema) {
			s.OneOf = []*jsonschema.Schema{{Required: []string{"count"}}, {Required: []string{"on"}}}
		}, `{"name":"ab"}`},
		{"minProperties", func(s *jsonschema.Schema) { s.MinProperties = new(int); *s.MinProperties = 3 }, `{"name":"ab"}`},
	}
	if !argcheck.ChecksAll(sampleSchema()) {
		t.Fatal("the sample schema itself is not checked whole")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := sampleSchema()
			c.tune(s)
			if argcheck.ChecksAll(s) {
				t.Fatal("argcheck.ChecksAll says argcheck.Check enforces it")
			}
			if c.args == "" {
				return
			}
			schema, err := argcheck.NewSchema(s)
			if err != nil {
				t.Fatal(err)
			}
			_, err = argcheck.Decode[map[string]any](json.RawMessage(c.args), schema)
			if err == nil || !strings.Contains(err.Error(), "the arguments do not fit the tool's input schema") {
				t.Fatalf("%s: got %v, want the validator's refusal", c.args, err)
			}
		})
	}
}

// sampleSchema uses every keyword argcheck.Check enforces.
func sampleSchema() *jsonschema.Schema {
	one, five, twenty, lo, hi := 1, 5, 20, 1.0, 10.0
	return &jsonschema.Schema{
		Type:     "object",
		Required: []string{"name"},
		Properties: map[string]*jsonschema.Schema{
			"name":  {Type: "string", Description: "a name", MinLength: &one, MaxLength: &twenty},
			"mode":  {Type: "string", Enum: []any{"a", "b"}, Default: json.RawMessage(`"a"`)},
			"count": {Type: "integer", Minimum: &lo, Maximum: &hi},
			"paths": {Types: []string{"null", "array"}, Items: &jsonschema.Schema{Type: "string"}, MaxItems: &five},
			"on":    {Type: "boolean"},
			"any":   {},
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// What the validator would refuse, argcheck.Check refuses: over many generated
// calls to every tool, a call argcheck.Check takes (defaults applied) the
// validator takes too. Without this, dropping the validator from the call
// path would rest on reading the two alone.
func TestCheckArgsRefusesWhatTheValidatorWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 7))
	const calls = 3000
	for _, d := range registry {
		in, _, err := d.schemas()
		if err != nil {
			t.Fatal(err)
		}
		schema, err := argcheck.NewSchema(in)
		if err != nil {
			t.Fatal(err)
		}
		taken := 0
		for range calls {
			args := genArgs(rng, in)
			m, err := argcheck.DecodeObject(json.RawMessage(args))
			if err != nil {
				t.Fatalf("%s: generated arguments are not an object: %s", d.name, args)
			}
			if argcheck.Check(in, m) != nil {
				continue
			}
			taken++
			if err := schema.Resolved.ApplyDefaults(&m); err != nil {
				t.Fatalf("%s %s: defaults: %v", d.name, args, err)
			}
			if err := schema.Resolved.Validate(&m); err != nil {
				t.Fatalf("%s %s: argcheck.Check took it, the validator refuses it: %v", d.name, args, err)
			}
		}
		// Both outcomes must be common, or the test proves little.
		if taken < calls/20 || taken > calls*19/20 {
			t.Errorf("%s: argcheck.Check took %d of %d generated calls; the generator needs a better mix", d.name, taken, calls)
		}
	}
}

// genArgs is a JSON object of arguments for schema s: each property left
// out, or given a value near what it takes (its bounds, lengths, enum and
// types, and a little off), sometimes a name it does not have.
func genArgs(rng *rand.Rand, s *jsonschema.Schema) string {
	var parts []string
	for _, name := range argcheck.PropertyNames(s) {
		if rng.IntN(5) < 2 && !slices.Contains(s.Required, name) {
			continue
		}
		if rng.IntN(20) == 0 {
			continue // a required one missing
		}
		parts = append(parts, fmt.Sprintf("%q:%s", name, genValue(rng, s.Properties[name])))
	}
	if rng.IntN(30) == 0 {
		parts = append(parts, `"bogus":1`)
	}
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return "{" + strings.Join(parts, ",") + "}"
}

// genValue is a value for property p: mostly of its type and near its
// limits, sometimes of another type.
func genValue(rng *rand.Rand, p *jsonschema.Schema) string {
	if rng.IntN(8) == 0 {
		return anyValue(rng)
	}
	types := argcheck.TypesOf(p)
	typ := ""
	if len(types) > 0 {
		typ = types[rng.IntN(len(types))]
	}
	switch typ {
	case "string":
		if len(p.Enum) > 0 && rng.IntN(3) > 0 {
			return fmt.Sprintf("%q", p.Enum[rng.IntN(len(p.Enum))])
		}
		n := rng.IntN(8)
		if p.MaxLength != nil && rng.IntN(2) == 0 {
			n = *p.MaxLength - 1 + rng.IntN(3)
		}
		r := []string{"a", "é", "\\n", "\\u0000", "1"}[rng.IntN(5)]
		return `"` + strings.Repeat(r, n) + `"`
	case "integer":
		lo, hi := -5.0, 5.0
		if p.Minimum != nil {
			lo = *p.Minimum
		}
		if p.Maximum != nil {
			hi = *p.Maximum
		}
		v := []string{
			fmt.Sprint(int64(lo)), fmt.Sprint(int64(lo) - 1), fmt.Sprint(int64(hi)), fmt.Sprint(int64(hi) + 1),
			fmt.Sprint(int64(lo) + rng.Int64N(10)), "1.5", "2.0", "1e3", "1e400", "-1e400", "9223372036854775808",
		}[rng.IntN(11)]
		if rng.IntN(6) == 0 {
			return `"` + v + `"` // a number as a string, as models send
		}
		return v
	case "boolean":
		return []string{"true", "false", `"true"`, `"no"`}[rng.IntN(4)]
	case "array":
		n := rng.IntN(4)
		if p.MaxItems != nil && rng.IntN(4) == 0 {
			n = *p.MaxItems + rng.IntN(2)
		}
		items := make([]string, n)
		for i := range items {
			if p.Items != nil {
				items[i] = genValue(rng, p.Items)
			} else {
				items[i] = anyValue(rng)
			}
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	return anyValue(rng)
}

func anyValue(rng *rand.Rand) string {
	return []string{"null", "true", "0", "-1", "1.5", `""`, `"x"`, `"7"`, "[]", `["a"]`, "{}", `{"a":1}`}[rng.IntN(12)]
}
