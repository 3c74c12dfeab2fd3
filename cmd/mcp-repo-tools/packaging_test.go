package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The MCP Registry entry (server.json) and the MCPB bundle's manifest
// template (packaging/mcpb/manifest.json) against the flags they name;
// packaging/mcpb/README.md says how they are built.

const (
	registryName = "io.github.mcp-repo-tools/mcp-repo-tools"
	githubRepo   = "https://github.com/mcp-repo-tools/mcp-repo-tools"
)

var semverRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// registrySchema is the registry's server.json schema kept in testdata
// (testdata/registry/README.md says where it comes from).
func registrySchema(t *testing.T) (*jsonschema.Resolved, string) {
	t.Helper()
	raw, err := os.ReadFile("testdata/registry/server.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs, s.ID
}

func readJSON(t *testing.T, file string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return doc
}

// serveFlags is the flag set of serve, whose names the environment
// variables follow (envName).
func serveFlags() map[string]string {
	env := map[string]string{}
	newFlagSet("serve", &options{}, true).VisitAll(func(f *flag.Flag) { env[envName(f.Name)] = f.Name })
	return env
}

func TestServerJSON(t *testing.T) {
	rs, schemaID := registrySchema(t)
	doc := readJSON(t, "../../server.json")
	if err := rs.Validate(doc); err != nil {
		t.Fatalf("server.json against the registry's schema: %v", err)
	}
	if doc["$schema"] != schemaID {
		t.Errorf("$schema %v, want %s (the schema in testdata)", doc["$schema"], schemaID)
	}
	checkServerJSON(t, doc, false)

	// The validator does read the schema's rules: each of these breaks one.
	for name, breakIt := range map[string]func(d map[string]any){
		"description over 100 characters": func(d map[string]any) { d["description"] = strings.Repeat("x", 101) },
		"name without a slash":            func(d map[string]any) { d["name"] = "mcp-repo-tools" },
		"package version latest":          func(d map[string]any) { pkg(d, "oci")["version"] = "latest" },
		"package without transport":       func(d map[string]any) { delete(pkg(d, "mcpb"), "transport") },
		"short sha256":                    func(d map[string]any) { pkg(d, "mcpb")["fileSha256"] = "abc" },
		"environment variable without a name": func(d map[string]any) {
			delete(pkg(d, "oci")["environmentVariables"].([]any)[0].(map[string]any), "name")
		},
	} {
		d := readJSON(t, "../../server.json")
		breakIt(d)
		if err := rs.Validate(d); err == nil {
			t.Errorf("%s: passes the schema", name)
		}
	}

	// scripts/mcpb writes dist/server.json: this one with the SHA-256 of
	// the bundle it packed, the entry a release publishes.
	built, err := os.ReadFile("../../dist/server.json")
	if errors.Is(err, fs.ErrNotExist) {
		t.Log("no dist/server.json (scripts/mcpb writes it): its checks skipped")
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var published map[string]any
	if err := json.Unmarshal(built, &published); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(published); err != nil {
		t.Fatalf("dist/server.json against the registry's schema: %v", err)
	}
	checkServerJSON(t, published, true)
	sum, _ := pkg(published, "mcpb")["fileSha256"].(string)
	delete(pkg(published, "mcpb"), "fileSha256")
	if !reflect.DeepEqual(published, doc) {
		t.Errorf("dist/server.json differs from server.json by more than the bundle's fileSha256")
	}
	id, _ := pkg(doc, "mcpb")["identifier"].(string)
	bundle, err := os.ReadFile(filepath.Join("../../dist/mcpb", path.Base(id)))
	if err != nil {
		t.Fatalf("dist/server.json names a bundle that is not in dist/mcpb: %v", err)
	}
	if h := sha256.Sum256(bundle); hex.EncodeToString(h[:]) != sum {
		t.Errorf("dist/server.json: fileSha256 %s, the bundle's is %x", sum, h)
	}
}

// checkServerJSON: what the schema cannot say. withSHA: the published
// entry, which carries the bundle's SHA-256 (the registry requires it for
// an mcpb package); the one in git does not (each pack differs).
func checkServerJSON(t *testing.T, doc map[string]any, withSHA bool) {
	t.Helper()
	if doc["name"] != registryName {
		t.Errorf("name %v, want %s", doc["name"], registryName)
	}
	if repo, _ := doc["repository"].(map[string]any); repo["url"] != githubRepo || repo["source"] != "github" {
		t.Errorf("repository %v, want %s on github", repo, githubRepo)
	}
	version, _ := doc["version"].(string)
	if !semverRE.MatchString(version) {
		t.Fatalf("version %q is not semver", version)
	}
	if u, err := url.Parse(doc["websiteUrl"].(string)); err != nil || u.Scheme != "https" {
		t.Errorf("websiteUrl %v is not an https URL", doc["websiteUrl"])
	}

	oci := pkg(doc, "oci")
	if want := "ghcr.io/mcp-repo-tools/mcp-repo-tools:" + version; oci["identifier"] != want {
		t.Errorf("oci identifier %v, want %s (the version is in the tag)", oci["identifier"], want)
	}
	for _, k := range []string{"version", "fileSha256", "registryBaseUrl"} {
		if _, ok := oci[k]; ok {
			t.Errorf("oci package has %s, which the registry refuses for oci", k)
		}
	}
	mcpb := pkg(doc, "mcpb")
	if want := githubRepo + "/releases/download/v" + version + "/mcp-repo-tools-" + version + ".mcpb"; mcpb["identifier"] != want {
		t.Errorf("mcpb identifier %v, want %s", mcpb["identifier"], want)
	}
	for _, k := range []string{"version", "registryBaseUrl"} {
		if _, ok := mcpb[k]; ok {
			t.Errorf("mcpb package has %s (the URL says it all)", k)
		}
	}
	if _, ok := mcpb["fileSha256"]; ok != withSHA {
		t.Errorf("mcpb fileSha256 present: %v, want %v", ok, withSHA)
	}

	flags := serveFlags()
	for _, kind := range []string{"oci", "mcpb"} {
		p := pkg(doc, kind)
		if tr, _ := p["transport"].(map[string]any); tr["type"] != "stdio" {
			t.Errorf("%s transport %v, want stdio", kind, p["transport"])
		}
		vars, _ := p["environmentVariables"].([]any)
		if len(vars) == 0 {
			t.Errorf("%s: no environmentVariables", kind)
		}
		seen := map[string]bool{}
		for _, v := range vars {
			ev := v.(map[string]any)
			name, _ := ev["name"].(string)
			flagName, ok := flags[name]
			switch {
			case !ok:
				t.Errorf("%s: %s is the variable of no serve flag", kind, name)
				continue
			case seen[name]:
				t.Errorf("%s: %s twice", kind, name)
			case flagName == "http" || strings.HasPrefix(flagName, "http-"):
				t.Errorf("%s: %s would not serve stdio", kind, name)
			}
			seen[name] = true
			if secret, _ := ev["isSecret"].(bool); secret != strings.HasSuffix(flagName, "token") {
				t.Errorf("%s: %s isSecret %v", kind, name, secret)
			}
			if def, ok := ev["default"].(string); ok {
				if f := newFlagSet("serve", &options{}, true).Lookup(flagName); f.DefValue != def {
					t.Errorf("%s: %s default %q, the flag's is %q", kind, name, def, f.DefValue)
				}
			}
		}
		for _, name := range []string{"MCP_REPO_TOOLS_REPO", "MCP_REPO_TOOLS_ROOT", "MCP_REPO_TOOLS_FORGE", "MCP_REPO_TOOLS_TOKEN"} {
			if !seen[name] {
				t.Errorf("%s: %s not offered", kind, name)
			}
		}
	}
}

// pkg is the package of server.json of a registry type.
func pkg(doc map[string]any, registryType string) map[string]any {
	for _, p := range doc["packages"].([]any) {
		if p := p.(map[string]any); p["registryType"] == registryType {
			return p
		}
	}
	return map[string]any{}
}

// The bundle passes each setting in an environment variable, never as an
// argument: the host leaves an argument that is one empty value as
// written ("${user_config.forge}"), and an environment variable filled
// with an empty value must be as if unset, which holds for a string flag
// whose default is empty.
func TestMCPBManifestTemplate(t *testing.T) {
	var m struct {
		Server struct {
			Type      string `json:"type"`
			MCPConfig struct {
				Command           string            `json:"command"`
				Args              []string          `json:"args"`
				Env               map[string]string `json:"env"`
				PlatformOverrides map[string]struct {
					Command string            `json:"command"`
					Args    []string          `json:"args"`
					Env     map[string]string `json:"env"`
				} `json:"platform_overrides"`
			} `json:"mcp_config"`
		} `json:"server"`
		Compatibility struct {
			Platforms []string `json:"platforms"`
		} `json:"compatibility"`
		UserConfig map[string]struct {
			Type      string `json:"type"`
			Required  bool   `json:"required"`
			Default   any    `json:"default"`
			Sensitive bool   `json:"sensitive"`
		} `json:"user_config"`
	}
	raw, err := os.ReadFile("../../packaging/mcpb/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	cfg := m.Server.MCPConfig
	if m.Server.Type != "binary" || !reflect.DeepEqual(cfg.Args, []string{"serve"}) {
		t.Errorf("server type %q args %q, want binary, [serve]", m.Server.Type, cfg.Args)
	}
	wantCommand := map[string]string{
		"darwin": "${__dirname}/server/darwin/mcp-repo-tools",
		"win32":  "${__dirname}/server/win32/mcp-repo-tools.exe",
		"linux":  "${__dirname}/server/linux/mcp-repo-tools",
	}
	if !reflect.DeepEqual(m.Compatibility.Platforms, []string{"darwin", "win32", "linux"}) {
		t.Errorf("platforms %v", m.Compatibility.Platforms)
	}
	for _, p := range m.Compatibility.Platforms {
		o := cfg.PlatformOverrides[p]
		if o.Command != wantCommand[p] || o.Args != nil || o.Env != nil {
			t.Errorf("%s: override %+v, want command %s alone", p, o, wantCommand[p])
		}
	}

	flags := serveFlags()
	used := map[string]bool{}
	for name, value := range cfg.Env {
		flagName, ok := flags[name]
		if !ok {
			t.Errorf("env %s is the variable of no serve flag", name)
			continue
		}
		key, ok := strings.CutPrefix(value, "${user_config.")
		key, ok2 := strings.CutSuffix(key, "}")
		f, known := m.UserConfig[key]
		if !ok || !ok2 || !known {
			t.Errorf("env %s=%q: want ${user_config.KEY} of a user_config field", name, value)
			continue
		}
		used[key] = true
		if f.Required || f.Default != "" {
			t.Errorf("user_config.%s: required %v default %#v, want optional with default \"\" (an absent value would stay \"%s\")", key, f.Required, f.Default, value)
		}
		if f.Sensitive != strings.HasSuffix(flagName, "token") {
			t.Errorf("user_config.%s: sensitive %v", key, f.Sensitive)
		}
		// Empty means unset: the flag's default is empty, and parse
		// takes the empty variable without complaint.
		o := options{}
		fs := newFlagSet("serve", &o, true)
		if d := fs.Lookup(flagName).DefValue; d != "" {
			t.Errorf("env %s: --%s defaults to %q, so an empty value would not leave it unset", name, flagName, d)
		}
		t.Setenv(name, "")
		if err := parse(fs, nil); err != nil {
			t.Errorf("env %s empty: %v", name, err)
		} else if v := fs.Lookup(flagName).Value.String(); v != "" {
			t.Errorf("env %s empty: --%s is %q", name, flagName, v)
		}
	}
	for key := range m.UserConfig {
		if !used[key] {
			t.Errorf("user_config.%s reaches the server through no env variable", key)
		}
	}
	for _, a := range cfg.Args {
		if strings.Contains(a, "${user_config.") {
			t.Errorf("argument %q: settings go through env", a)
		}
	}
}
