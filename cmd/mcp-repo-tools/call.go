package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect runs the server in-process and returns a client session on it:
// `call` and `tools` take exactly the path an MCP client takes.
func connect(ctx context.Context, a *app) (*mcp.ClientSession, error) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := a.srv.MCP().Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-repo-tools-cli", Version: shortVersion()}, nil)
	return client.Connect(ctx, ct, nil)
}

func call(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlagSet("call", &o, false)
	asJSON := fs.Bool("json", false, "print the whole tool result as JSON (structured content included)")
	fs.SetOutput(stderr)
	if err := parse(fs, args); err != nil {
		return usageError(err)
	}
	if fs.NArg() == 0 {
		return usageError(errors.New("call needs a tool name: mcp-repo-tools call TOOL [key=value ...]"))
	}
	o.quietFailedCalls = true // the error is printed below
	a, err := newApp(ctx, &o, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	cs, err := connect(ctx, a)
	if err != nil {
		return err
	}
	defer cs.Close()
	name := fs.Arg(0)
	tool, err := findTool(ctx, cs, name)
	if err != nil {
		return usageError(err)
	}
	arguments, err := toolArguments(tool, fs.Args()[1:])
	if err != nil {
		return usageError(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: arguments})
	if err != nil {
		return err
	}
	if *asJSON {
		data, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(data))
	} else {
		out := stdout
		if res.IsError {
			out = stderr
		}
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text := t.Text
				if !strings.HasSuffix(text, "\n") {
					text += "\n"
				}
				if _, err := io.WriteString(out, text); err != nil {
					return err
				}
			}
		}
	}
	if res.IsError {
		return exitCode(1)
	}
	return nil
}

func findTool(ctx context.Context, cs *mcp.ClientSession, name string) (*mcp.Tool, error) {
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	return nil, fmt.Errorf("unknown tool %q; tools: %s", name, strings.Join(names, ", "))
}

// toolArguments turns key=value words into arguments typed by the tool's
// input schema: numbers, booleans, arrays (JSON or comma-separated) and
// strings.
func toolArguments(tool *mcp.Tool, words []string) (map[string]any, error) {
	props := schemaProperties(tool.InputSchema)
	args := map[string]any{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q is not key=value", w)
		}
		p, known := props[k]
		if !known {
			// Another spelling of a parameter, or a mistake: the server
			// judges the name, and reads a string as the number, boolean
			// or one-item array its parameter takes.
			args[k] = v
			continue
		}
		val, err := typedValue(p, v)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: %w", k, v, err)
		}
		args[k] = val
	}
	return args, nil
}

func typedValue(typ, v string) (any, error) {
	switch typ {
	case "integer", "number":
		var n json.Number
		if err := json.Unmarshal([]byte(v), &n); err != nil {
			return nil, errors.New("not a number")
		}
		return n, nil
	case "boolean":
		return strconv.ParseBool(v)
	case "array":
		if strings.HasPrefix(strings.TrimSpace(v), "[") {
			var a []any
			err := json.Unmarshal([]byte(v), &a)
			return a, err
		}
		if v == "" {
			return []string{}, nil
		}
		return strings.Split(v, ","), nil
	default:
		return v, nil
	}
}

// schemaProperties maps each input property to its JSON type.
func schemaProperties(schema any) map[string]string {
	s := parseSchema(schema)
	out := map[string]string{}
	for name, p := range s.Properties {
		out[name] = p.jsonType()
	}
	return out
}
