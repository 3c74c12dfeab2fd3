package argcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// Arguments are checked here, against the tool's input schema, before the
// schema validator of github.com/google/jsonschema-go sees them. Its messages
// name JSON pointers and Go internals ("validating /properties/startLine:
// minimum: 0/1 is less than 1.000000"); these say in plain words what was
// wrong and what is accepted, one clause per problem:
//
//	problem                      message
//	not an object                arguments must be a JSON object of named parameters, like {"name": value} (got an array)
//	unknown name                 there is no parameter "x" (the parameters are a, b, c)
//	unknown name, one close      there is no parameter "file_path"; did you mean "path"? (the parameters are owner, repo, path, …)
//	null                         path must be a string, not null
//	                             ref must be a string, not null; leave it out to use its default
//	wrong type                   startLine must be a whole number (got the string "two")
//	fraction                     startLine must be a whole number (got 1.5)
//	below the minimum            startLine must be at least 1 (got 0)
//	above the maximum            endLine must be at most 2147483647 (got 1e19)
//	beyond a Go int (no bounds)  end_line must be at most 9223372036854775807 (got 9223372036854775808)
//	not in the enum              mode must be "merge-base" or "direct" (got "x")
//	too many items               paths must have at most 200 entries (got 201)
//	too long                     query must be at most 500 characters long (got 1100)
//	an item of the wrong type    paths[0] must be a string (got the number 1)
//	missing                      path is required (file path relative to the repository root)
//
// Other spellings of a parameter's name (aliases.go) are renamed before
// any check, and a single string sent for an array of strings is taken as
// the array of that one string.
//
// Models often send numbers and booleans as strings: a string is taken as
// the number it spells for an integer parameter ("950", "-1", "2.0", "1e3";
// exactly a JSON number literal, nothing trimmed) and as the boolean for a
// boolean parameter ("true", "false"), when the parameter does not take
// strings too. It is then judged as that number would be, so "-1" for a
// startLine is "at least 1 (got -1)" and "99999999999999999999" is "at most
// …". Other strings are the wrong type, as before.
//
// The validator runs afterwards only for a schema that uses a keyword not
// checked here (ChecksAll): none does today, and the validator's own check
// of a call cost about as much as the rest of reading 100 lines.

// DecodeObject reads a tool's arguments: a JSON object, or nothing (null or
// no bytes) for no arguments. Numbers stay json.Number, exactly as sent, so
// that 1e400 or 9223372036854775808 can be judged (and quoted) as they are.
func DecodeObject(args json.RawMessage) (map[string]any, error) {
	m := map[string]any{}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("more than one JSON value")
		}
	}
	if err != nil {
		// The protocol layer hands over valid JSON; this is the backstop.
		return nil, errcode.New(errcode.InvalidArgument, "arguments must be a JSON object of named parameters, and these are not valid JSON")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errcode.New(errcode.InvalidArgument, "arguments must be a JSON object of named parameters, like {\"name\": value} (got %s)", describeValue(v))
	}
	return obj, nil
}

// Check checks args against the tool's input schema s and says what is
// wrong, every problem at once, as one INVALID_ARGUMENT error. Integers it
// accepts are replaced by their int64 values (other numbers by float64), the
// form the validator and the decoder take.
func Check(s *jsonschema.Schema, args map[string]any) error {
	var problems []string
	names := PropertyNames(s)
	if isFalseSchema(s.AdditionalProperties) {
		var unknown []string
		for k := range args {
			if _, ok := s.Properties[k]; !ok {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			problems = append(problems, unknownParams(unknown, names, args))
		}
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, name := range names {
		v, ok := args[name]
		if !ok {
			continue
		}
		nv, problem := checkValue(name, s.Properties[name], v, required[name])
		if problem != "" {
			problems = append(problems, problem)
			continue
		}
		args[name] = nv
	}
	for _, name := range s.Required {
		if _, ok := args[name]; !ok {
			msg := name + " is required"
			if p := s.Properties[name]; p != nil && p.Description != "" {
				msg += " (" + p.Description + ")"
			}
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return errcode.New(errcode.InvalidArgument, "%s", strings.Join(problems, "; "))
	}
	normalizeNumbers(args) // numbers no check above has turned into int64
	return nil
}

// ChecksAll reports whether Check enforces every keyword of the input
// schema s, so that the validator could find nothing more: at the top,
// properties, required and additionalProperties false; for a property of
// one type (or of that type or null), the type and, by type, a string's
// enum and length, an integer's bounds, an array's count and items. Other
// keywords (pattern, a number's bounds, oneOf, a nested object's
// properties, ...) leave the validator to run. Annotations check nothing.
func ChecksAll(s *jsonschema.Schema) bool {
	if s.Type != "object" || (s.AdditionalProperties != nil && !isFalseSchema(s.AdditionalProperties)) {
		return false
	}
	rest := withoutAnnotations(*s)
	rest.Type, rest.Properties, rest.PropertyOrder, rest.Required, rest.AdditionalProperties = "", nil, nil, nil, nil
	if !reflect.ValueOf(rest).IsZero() {
		return false
	}
	for _, p := range s.Properties {
		if !checksValue(p) {
			return false
		}
	}
	return true
}

// checksValue is ChecksAll for one property's schema p (as checkValue
// reads it).
func checksValue(p *jsonschema.Schema) bool {
	types := TypesOf(p)
	types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	rest := withoutAnnotations(*p)
	rest.Type, rest.Types = "", nil
	switch {
	case len(types) > 1:
		return false
	case len(types) == 0:
	case types[0] == "string":
		rest.Enum, rest.MinLength, rest.MaxLength = nil, nil, nil
	case types[0] == "integer":
		rest.Minimum, rest.Maximum = nil, nil
	case types[0] == "array":
		if p.Items != nil && !checksValue(p.Items) {
			return false
		}
		rest.Items, rest.MinItems, rest.MaxItems = nil, nil, nil
	}
	return reflect.ValueOf(rest).IsZero()
}

// TypesOf is the types a schema allows: Type, or Types when Type is unset.
func TypesOf(p *jsonschema.Schema) []string {
	if p.Type != "" {
		return []string{p.Type}
	}
	return p.Types
}

// withoutAnnotations is s without the keywords that validate nothing.
func withoutAnnotations(s jsonschema.Schema) jsonschema.Schema {
	s.Schema, s.ID, s.Comment, s.Title, s.Description = "", "", "", "", ""
	s.Default, s.Examples = nil, nil
	s.Deprecated, s.ReadOnly, s.WriteOnly = false, false, false
	return s
}

// PropertyNames is the schema's properties in declaration order.
func PropertyNames(s *jsonschema.Schema) []string {
	names := slices.Clone(s.PropertyOrder)
	for k := range s.Properties {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	if len(names) != len(s.PropertyOrder) {
		slices.Sort(names[len(s.PropertyOrder):])
	}
	return slices.DeleteFunc(names, func(k string) bool { _, ok := s.Properties[k]; return !ok })
}

// isFalseSchema: additionalProperties false reads back as {"not": {}}.
func isFalseSchema(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

// checkValue checks one value against its property's schema; it returns the
// value to keep, or a problem.
func checkValue(name string, p *jsonschema.Schema, v any, required bool) (any, string) {
	types := TypesOf(p)
	if v == nil {
		if slices.Contains(types, "null") || len(types) == 0 {
			return nil, ""
		}
		msg := name + " must be " + expected(p) + ", not null"
		if !required {
			msg += "; leave it out to use its default"
		}
		return nil, msg
	}
	v = oneItem(p, coerceString(types, v))
	kind := jsonKind(v)
	switch {
	case len(types) == 0:
		return v, "" // anything goes: the validator has the last word
	case kind == "number" && slices.Contains(types, "integer"):
		return checkInteger(name, p, asNumber(v))
	case kind == "number" && slices.Contains(types, "number"):
		f, err := asNumber(v).Float64()
		if err != nil {
			return nil, fmt.Sprintf("%s must be a number within the range of a 64-bit float (got %s)", name, quoteNumber(asNumber(v)))
		}
		return f, ""
	case !slices.Contains(types, kind):
		return nil, fmt.Sprintf("%s must be %s (got %s)", name, expected(p), describeValue(v))
	}
	switch kind {
	case "string":
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, v) {
			return nil, fmt.Sprintf("%s must be %s (got %s)", name, enumList(p.Enum), quoteString(v.(string)))
		}
		// Lengths count code points, as JSON Schema does.
		n := utf8.RuneCountInString(v.(string))
		if p.MaxLength != nil && n > *p.MaxLength {
			return nil, fmt.Sprintf("%s must be at most %d characters long (got %d)", name, *p.MaxLength, n)
		}
		if p.MinLength != nil && n < *p.MinLength {
			return nil, fmt.Sprintf("%s must be at least %d characters long (got %d)", name, *p.MinLength, n)
		}
	case "array":
		items := v.([]any)
		if p.MaxItems != nil && len(items) > *p.MaxItems {
			return nil, fmt.Sprintf("%s must have at most %d entries (got %d)", name, *p.MaxItems, len(items))
		}
		if p.MinItems != nil && len(items) < *p.MinItems {
			return nil, fmt.Sprintf("%s must have at least %d entries (got %d)", name, *p.MinItems, len(items))
		}
		if p.Items != nil {
			for i, item := range items {
				nv, problem := checkValue(fmt.Sprintf("%s[%d]", name, i), p.Items, item, true)
				if problem != "" {
					return nil, problem
				}
				items[i] = nv
			}
		}
	case "object":
		normalizeNumbers(v)
	}
	return v, ""
}

// coerceString reads a string sent for an integer or boolean parameter (one
// that takes no strings) as the number or boolean it spells: a string that
// is exactly a JSON number literal becomes that json.Number, judged then as
// one ("2.0" is 2, "1.5" not whole, "-1" below a minimum of 0); "true" and
// "false" become booleans. Anything else, and any other value, is returned
// as it is.
func coerceString(types []string, v any) any {
	s, ok := v.(string)
	if !ok || slices.Contains(types, "string") {
		return v
	}
	switch {
	case slices.Contains(types, "integer") && isNumberLiteral(s):
		return json.Number(s)
	case slices.Contains(types, "boolean") && (s == "true" || s == "false"):
		return s == "true"
	}
	return v
}

// oneItem takes a string sent for an array of strings (one that takes no
// string itself) as the array of that one string: paths="src" is
// paths=["src"].
func oneItem(p *jsonschema.Schema, v any) any {
	s, ok := v.(string)
	types := TypesOf(p)
	if !ok || !slices.Contains(types, "array") || slices.Contains(types, "string") ||
		p.Items == nil || !slices.Contains(TypesOf(p.Items), "string") {
		return v
	}
	return []any{s}
}

// isNumberLiteral reports whether s is exactly a JSON number: an optional
// "-", digits without a leading zero, an optional fraction and exponent;
// no spaces, no "+" in front, no hex, no Inf or NaN.
func isNumberLiteral(s string) bool {
	i := 0
	digits := func() bool {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// checkInteger checks a number for an integer property: a whole number
// within the property's bounds, or within a Go int's when it has none.
func checkInteger(name string, p *jsonschema.Schema, n json.Number) (any, string) {
	v, whole, fits, neg := wholeNumber(string(n))
	if !whole {
		return nil, fmt.Sprintf("%s must be a whole number (got %s)", name, quoteNumber(n))
	}
	lo, hi := int64(math.MinInt), int64(math.MaxInt)
	if p.Minimum != nil && *p.Minimum > float64(lo) {
		lo = int64(math.Ceil(*p.Minimum))
	}
	if p.Maximum != nil && *p.Maximum < float64(hi) {
		hi = int64(math.Floor(*p.Maximum))
	}
	switch {
	case (!fits && neg) || (fits && v < lo):
		return nil, fmt.Sprintf("%s must be at least %d (got %s)", name, lo, quoteNumber(n))
	case (!fits && !neg) || (fits && v > hi):
		return nil, fmt.Sprintf("%s must be at most %d (got %s)", name, hi, quoteNumber(n))
	}
	return v, ""
}

// wholeNumber reads a JSON number literal exactly: whether it is a whole
// number and, if so, its value when it fits in an int64 (when it does not,
// neg tells on which side it falls). It does no big arithmetic, so a
// literal such as 1e999999999 costs no more than 1.
func wholeNumber(lit string) (v int64, whole, fits, neg bool) {
	s := lit
	if neg = strings.HasPrefix(s, "-"); neg {
		s = s[1:]
	}
	mant, expPart, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	exp := 0
	if expPart != "" {
		sign := 1
		switch expPart[0] {
		case '-':
			sign, expPart = -1, expPart[1:]
		case '+':
			expPart = expPart[1:]
		}
		expPart = strings.TrimLeft(expPart, "0")
		if len(expPart) > 9 {
			exp = sign * 1e9 // far beyond anything that matters
		} else if expPart != "" {
			e, _ := strconv.Atoi(expPart)
			exp = sign * e
		}
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	if digits == "" {
		return 0, true, true, false // zero, -0 included
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	digits = trimmed
	if exp < 0 {
		return 0, false, false, neg
	}
	if len(digits)+exp > 19 { // at least 10^19, past either end of an int64
		return 0, true, false, neg
	}
	u, err := strconv.ParseUint(digits+strings.Repeat("0", exp), 10, 64)
	if err != nil {
		return 0, true, false, neg
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), true, true, false
	case neg && u <= 1<<63:
		return -int64(u-1) - 1, true, true, true
	}
	return 0, true, false, neg
}

// asNumber is a number value as its JSON literal.
func asNumber(v any) json.Number {
	if f, ok := v.(float64); ok {
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return v.(json.Number)
}

// normalizeNumbers turns the json.Numbers inside v into float64s, in place.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	}
	return v
}
