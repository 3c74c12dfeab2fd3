package argcheck

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// expected says what a property accepts.
func expected(p *jsonschema.Schema) string {
	if len(p.Enum) > 0 {
		return enumList(p.Enum)
	}
	types := TypesOf(p)
	var says []string
	for _, t := range types {
		switch t {
		case "null":
			continue
		case "string":
			says = append(says, "a string")
		case "integer":
			says = append(says, "a whole number")
		case "number":
			says = append(says, "a number")
		case "boolean":
			says = append(says, "true or false")
		case "object":
			says = append(says, "an object")
		case "array":
			if p.Items != nil && p.Items.Type != "" {
				says = append(says, "an array of "+plural(p.Items.Type))
			} else {
				says = append(says, "an array")
			}
		}
	}
	return strings.Join(says, " or ")
}

func plural(jsonType string) string {
	switch jsonType {
	case "integer":
		return "whole numbers"
	case "boolean":
		return "booleans"
	}
	return jsonType + "s"
}

func enumList(enum []any) string {
	q := make([]string, len(enum))
	for i, e := range enum {
		if s, ok := e.(string); ok {
			q[i] = strconv.Quote(s)
		} else {
			q[i] = fmt.Sprint(e)
		}
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// jsonKind is the JSON type of a value decoded with UseNumber.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// describeValue names what was sent, quoting it when short enough to help.
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "the string " + quoteString(x)
	case json.Number:
		return "the number " + quoteNumber(x)
	case bool:
		return fmt.Sprintf("the boolean %t", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// quoteString quotes a string from the input, cut to maxQuotedLen runes.
func quoteString(s string) string {
	if r := []rune(s); len(r) > maxQuotedLen {
		return strconv.Quote(string(r[:maxQuotedLen])) + "…"
	}
	return strconv.Quote(s)
}

// quoteNumber repeats a number literal as sent, cut when long.
func quoteNumber(n json.Number) string {
	if len(n) > maxQuotedLen {
		return fmt.Sprintf("%s… (%d characters)", n[:maxQuotedLen/2], len(n))
	}
	return string(n)
}
