package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// check reads the packed bundle: exactly manifest.json and the binary of
// each platform it declares, byte for byte those of stage, the binaries
// executable; then unpacks it and runs the linux server the way the host
// would (resolve), on repo and on a directory holding a copy of it.
func check(bundle, stage, repo string) error {
	raw, err := os.ReadFile(filepath.Join(stage, "manifest.json")) //nolint:gosec // G304: the stage scripts/mcpb names
	if err != nil {
		return err
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	if m.Server.Type != "binary" {
		return fmt.Errorf("server.type %q, want binary", m.Server.Type)
	}
	want := map[string]bool{"manifest.json": false}
	for _, p := range m.Compatibility.Platforms {
		rel, err := bundlePath(m.command(p))
		if err != nil {
			return fmt.Errorf("platform %s: %w", p, err)
		}
		want[filepath.ToSlash(rel)] = true // executable
	}
	if _, ok := want[m.Server.EntryPoint]; !ok {
		return fmt.Errorf("entry_point %q is no platform's command", m.Server.EntryPoint)
	}

	zr, err := zip.OpenReader(bundle)
	if err != nil {
		return err
	}
	defer zr.Close()
	tmp, err := os.MkdirTemp("", "mcpb-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	unpacked := filepath.Join(tmp, "bundle")
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		exe, ok := want[f.Name]
		if !ok {
			return fmt.Errorf("%s holds %s, which the manifest does not run", bundle, f.Name)
		}
		staged, err := os.ReadFile(filepath.Join(stage, filepath.FromSlash(f.Name))) //nolint:gosec // G304: a name the manifest declares (want), in the stage
		if err != nil {
			return err
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		if !bytes.Equal(data, staged) {
			return fmt.Errorf("%s in the bundle (%d bytes) differs from the staged file (%d bytes)", f.Name, len(data), len(staged))
		}
		mode := f.Mode()
		if !mode.IsRegular() || exe && mode.Perm() != 0o755 || !exe && mode.Perm()&0o111 != 0 {
			return fmt.Errorf("%s: mode %v in the bundle, want %s", f.Name, mode, map[bool]string{true: "-rwxr-xr-x", false: "not executable"}[exe])
		}
		path := filepath.Join(unpacked, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, mode.Perm()); err != nil {
			return err
		}
		fmt.Printf("ok %s %d bytes %v\n", f.Name, len(data), mode.Perm())
	}
	var wantNames []string
	for n := range want {
		wantNames = append(wantNames, n)
	}
	sort.Strings(names)
	sort.Strings(wantNames)
	if !slices.Equal(names, wantNames) {
		return fmt.Errorf("%s holds %v, want %v", bundle, names, wantNames)
	}

	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return fmt.Errorf("the bundle's server runs here only on linux/amd64 (this is %s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	if !slices.Contains(m.Compatibility.Platforms, "linux") {
		return fmt.Errorf("the bundle has no linux binary to run")
	}
	repo, err = filepath.Abs(repo)
	if err != nil {
		return err
	}
	// A user who filled in the repository only.
	if err := runBundle(&m, unpacked, tmp, map[string]any{"repo": repo}, func(ctx context.Context, cs *mcp.ClientSession) error {
		text, err := callText(ctx, cs, "read_file", map[string]any{"path": "README.md", "endLine": 1})
		if err != nil {
			return err
		}
		if !strings.Contains(text, "# mcp-repo-tools") {
			return fmt.Errorf("read_file README.md endLine=1 gave %q", text)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("with the repository set: %w", err)
	}
	// A user who set a directory of repositories, and cleared the
	// repository field (an empty value, not an absent one).
	root := filepath.Join(tmp, "root")
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", repo, filepath.Join(root, "local", "self.git")).CombinedOutput(); err != nil { //nolint:gosec // G204: a copy of the checkout scripts/mcpb names
		return fmt.Errorf("git clone --bare: %v: %s", err, out)
	}
	if err := runBundle(&m, unpacked, tmp, map[string]any{"repo": "", "root": root, "forge": "", "token": ""}, func(ctx context.Context, cs *mcp.ClientSession) error {
		text, err := callText(ctx, cs, "list_repositories", map[string]any{})
		if err != nil {
			return err
		}
		if !strings.Contains(text, "local/self") {
			return fmt.Errorf("list_repositories gave %q, want local/self in it", text)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("with the directory of repositories set: %w", err)
	}
	return nil
}

// runBundle starts the unpacked bundle's linux server as the host would,
// in a working directory that is no repository (the settings alone say
// what it serves), checks initialize and tools/list, then runs then.
func runBundle(m *manifest, unpacked, tmp string, user map[string]any, then func(context.Context, *mcp.ClientSession) error) error {
	home := filepath.Join(tmp, "home")
	command, args, env := resolve(m, "linux", unpacked, home, user)
	for k, v := range env {
		if strings.Contains(v, "${") {
			return fmt.Errorf("env %s=%q: a variable was left unreplaced (an optional setting needs a default)", k, v)
		}
	}
	for _, a := range args {
		if strings.Contains(a, "${") {
			return fmt.Errorf("argument %q: a variable was left unreplaced", a)
		}
	}
	shown := map[string]string{}
	for k, v := range env {
		if strings.HasSuffix(k, "TOKEN") && v != "" {
			v = "(set)"
		}
		shown[k] = v
	}
	fmt.Printf("run %s %s with %v\n", command, strings.Join(args, " "), shown)

	cmd := exec.Command(command, args...) //nolint:gosec // G204: the bundle's own server, the command its manifest names, as the host runs it
	cmd.Dir = tmp
	cmd.Stderr = os.Stderr
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "MCP_REPO_TOOLS_") && k != "FORGEJO_TOKEN" && k != "GITEA_TOKEN" && k != "HOME" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+home)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpb-check", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	defer cs.Close()
	if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "mcp-repo-tools" {
		return fmt.Errorf("initialize: server info %+v, want mcp-repo-tools", info)
	}
	var listed []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		listed = append(listed, tool.Name)
	}
	for _, t := range m.Tools {
		if !slices.Contains(listed, t.Name) {
			return fmt.Errorf("tools/list: %s, which the manifest names, is not listed (have %v)", t.Name, listed)
		}
	}
	fmt.Printf("ok initialize, tools/list: %d tools\n", len(listed))
	return then(ctx, cs)
}

func callText(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s: tool error: %s", tool, text.String())
	}
	fmt.Printf("ok %s\n", tool)
	return text.String(), nil
}
