package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// manifest is the part of manifest.json this helper reads; fill edits the
// template as a generic map so that every other field passes unchanged.
type manifest struct {
	Version string `json:"version"`
	Server  struct {
		Type       string    `json:"type"`
		EntryPoint string    `json:"entry_point"`
		MCPConfig  mcpConfig `json:"mcp_config"`
	} `json:"server"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
	UserConfig map[string]userConfigField `json:"user_config"`
}

type mcpConfig struct {
	Command           string               `json:"command"`
	Args              []string             `json:"args,omitempty"`
	Env               map[string]string    `json:"env,omitempty"`
	PlatformOverrides map[string]mcpConfig `json:"platform_overrides,omitempty"`
}

type userConfigField struct {
	Type     string `json:"type"`
	Required bool   `json:"required"`
	Default  any    `json:"default"`
}

const dirnameVar = "${__dirname}/"

// command is the program the manifest runs on platform (darwin, win32,
// linux): its override's, else the base one.
func (m *manifest) command(platform string) string {
	if o, ok := m.Server.MCPConfig.PlatformOverrides[platform]; ok && o.Command != "" {
		return o.Command
	}
	return m.Server.MCPConfig.Command
}

// bundlePath is where in the bundle a command in ${__dirname} lies.
func bundlePath(command string) (string, error) {
	rel, ok := strings.CutPrefix(command, dirnameVar)
	if !ok || rel == "" || strings.Contains(rel, "${") || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("command %q is not a file of the bundle (%sPATH)", command, dirnameVar)
	}
	return rel, nil
}

var semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// fill writes stage/manifest.json: the template with the version, the
// tools the server lists, and only the platforms whose binary is in stage.
func fill(template, stage, version, toolsBinary string, require []string) error {
	if !semver.MatchString(version) {
		return fmt.Errorf("version %q is not semver (MAJOR.MINOR.PATCH, no leading v)", version)
	}
	raw, err := os.ReadFile(template) //nolint:gosec // G304: the template scripts/mcpb names
	if err != nil {
		return err
	}
	var m manifest
	var doc map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("%s: %w", template, err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s: %w", template, err)
	}

	var kept []string
	for _, p := range m.Compatibility.Platforms {
		rel, err := bundlePath(m.command(p))
		if err != nil {
			return fmt.Errorf("%s: platform %s: %w", template, p, err)
		}
		if _, err := os.Stat(filepath.Join(stage, rel)); err != nil {
			fmt.Fprintf(os.Stderr, "mcpb: no %s binary (%s): the bundle leaves out that platform\n", p, filepath.Join(stage, rel))
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		return fmt.Errorf("no binary of any platform in %s", stage)
	}
	for _, p := range require {
		if !slices.Contains(kept, p) {
			return fmt.Errorf("no %s binary, which the bundle must have", p)
		}
	}
	server := doc["server"].(map[string]any)
	cfg := server["mcp_config"].(map[string]any)
	overrides, _ := cfg["platform_overrides"].(map[string]any)
	for p := range overrides {
		if !slices.Contains(kept, p) {
			delete(overrides, p)
		}
	}
	// The base command and entry point are those of a platform kept.
	first := m.command(kept[0])
	rel, _ := bundlePath(first)
	cfg["command"] = first
	server["entry_point"] = rel
	doc["compatibility"].(map[string]any)["platforms"] = kept
	doc["version"] = version

	// The tools every mode serves (a forge adds its pull request review
	// tools: tools_generated says there may be more).
	out, err := exec.Command(toolsBinary, "tools", "--json").Output()
	if err != nil {
		return fmt.Errorf("%s tools --json: %w", toolsBinary, err)
	}
	var listed []struct {
		Name        string `json:"name"`
		Annotations struct {
			Title string `json:"title"`
		} `json:"annotations"`
	}
	if err := json.Unmarshal(out, &listed); err != nil {
		return fmt.Errorf("%s tools --json: %w", toolsBinary, err)
	}
	var tools []map[string]string
	for _, t := range listed {
		tools = append(tools, map[string]string{"name": t.Name, "description": t.Annotations.Title})
	}
	if len(tools) == 0 {
		return fmt.Errorf("%s tools --json lists no tool", toolsBinary)
	}
	doc["tools"] = tools

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "${__dirname}" and "<" readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(stage, "manifest.json"), buf.Bytes(), 0o644)
}

// resolve is the command, arguments and environment a host that installed
// the bundle in dir runs on platform, given the values the user filled in:
// the rules packaging/mcpb/README.md describes ("How the host runs it").
func resolve(m *manifest, platform, dir, home string, user map[string]any) (command string, args []string, env map[string]string) {
	cfg := m.Server.MCPConfig
	command, args, env = cfg.Command, cfg.Args, cfg.Env
	if o, ok := cfg.PlatformOverrides[platform]; ok {
		if o.Command != "" {
			command = o.Command
		}
		if o.Args != nil {
			args = o.Args
		}
		if o.Env != nil {
			env = o.Env // replaces the base env whole, not key by key
		}
	}
	sep := "/"
	if platform == "win32" {
		sep = `\`
	}
	vars := map[string][]string{
		"__dirname":     {dir},
		"HOME":          {home},
		"DESKTOP":       {filepath.Join(home, "Desktop")},
		"DOCUMENTS":     {filepath.Join(home, "Documents")},
		"DOWNLOADS":     {filepath.Join(home, "Downloads")},
		"pathSeparator": {sep},
		"/":             {sep},
	}
	values := map[string]any{}
	for k, f := range m.UserConfig {
		if f.Default != nil {
			values[k] = f.Default
		}
	}
	for k, v := range user {
		values[k] = v
	}
	for k, v := range values {
		vars["user_config."+k] = asStrings(v)
	}

	command = substitute(command, vars)
	var outArgs []string
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "${"); ok && strings.HasPrefix(name, "user_config.") && strings.HasSuffix(name, "}") && strings.Count(a, "${") == 1 {
			// An argument that is one user value alone becomes as many
			// arguments as the value has items; an empty or unknown
			// value leaves the argument as written.
			if v := vars[strings.TrimSuffix(name, "}")]; len(v) > 1 || len(v) == 1 && v[0] != "" {
				outArgs = append(outArgs, v...)
				continue
			}
			outArgs = append(outArgs, a)
			continue
		}
		outArgs = append(outArgs, substitute(a, vars))
	}
	outEnv := map[string]string{}
	for k, v := range env {
		outEnv[k] = substitute(v, vars)
	}
	return command, outArgs, outEnv
}

// substitute replaces each ${NAME} of a known single value in s; an
// unknown name, or a list value inside a longer string, stays as written.
func substitute(s string, vars map[string][]string) string {
	for name, v := range vars {
		if len(v) == 1 {
			s = strings.ReplaceAll(s, "${"+name+"}", v[0])
		}
	}
	return s
}

func asStrings(v any) []string {
	switch v := v.(type) {
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, fmt.Sprint(e))
		}
		return out
	case []string:
		return v
	default: // a string, a number (JSON's float64) or a boolean
		return []string{fmt.Sprint(v)}
	}
}
