package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func listTools(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlagSet("tools", &o, false)
	asJSON := fs.Bool("json", false, "print the tools with their full input schemas (and output schemas, with --structured) as JSON")
	fs.SetOutput(stderr)
	if err := parse(fs, args); err != nil {
		return usageError(err)
	}
	if fs.NArg() > 0 {
		return usageError(errors.New("tools takes no arguments besides flags"))
	}
	// The listing comes from the tool registry: no repository is opened,
	// so it works anywhere.
	if err := o.validate(); err != nil {
		return err
	}
	tools := make([]*mcp.Tool, len(o.selected))
	for i, d := range o.selected {
		tools[i] = d.Listed(o.structured, o.maxBytes)
	}
	if *asJSON {
		data, err := json.MarshalIndent(tools, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(data))
		return nil
	}
	for _, t := range tools {
		fmt.Fprintf(stdout, "%s\n  %s\n", t.Name, t.Description)
		for _, p := range describeParams(t.InputSchema) {
			fmt.Fprintf(stdout, "    %s\n", p)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// describeParams renders each parameter as "name type (required|default X): description".
func describeParams(schema any) []string {
	s := parseSchema(schema)
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	// Required parameters first, then by name.
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	var out []string
	for _, name := range names {
		p := s.Properties[name]
		typ := p.jsonType()
		var notes []string
		if required[name] {
			notes = append(notes, "required")
		}
		if len(p.Default) > 0 {
			notes = append(notes, "default "+string(p.Default))
		}
		if p.Minimum != nil && p.Maximum != nil {
			notes = append(notes, strconv.FormatFloat(*p.Minimum, 'f', -1, 64)+"–"+strconv.FormatFloat(*p.Maximum, 'f', -1, 64))
		}
		line := name + " " + typ
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, ", ") + ")"
		}
		if p.Description != "" {
			line += ": " + p.Description
		}
		out = append(out, line)
	}
	return out
}

// inputSchema is what the commands read of a tool's input schema.
type inputSchema struct {
	Required   []string                  `json:"required"`
	Properties map[string]schemaProperty `json:"properties"`
}

type schemaProperty struct {
	Type        any             `json:"type"` // a name, or a list with "null"
	Description string          `json:"description"`
	Default     json.RawMessage `json:"default"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
}

func parseSchema(schema any) inputSchema {
	var s inputSchema
	// The schema is the registry's own, made by jsonschema-go: it always
	// round-trips, and a field it lacks is left empty in the listing.
	data, _ := json.Marshal(schema)
	_ = json.Unmarshal(data, &s)
	return s
}

// jsonType is the property's type, the non-null one when null is allowed
// too; "string" when the schema says nothing.
func (p schemaProperty) jsonType() string {
	switch t := p.Type.(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x != "null" {
				return fmt.Sprint(x)
			}
		}
	}
	return "string"
}
