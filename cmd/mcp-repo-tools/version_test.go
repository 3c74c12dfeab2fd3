package main

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func TestVersionOf(t *testing.T) {
	const platform = "go1.26.8 linux/amd64"
	vcs := func(version, revision, modified string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/mcp-repo-tools/mcp-repo-tools", Version: version}}
		if revision != "" {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: "vcs", Value: "git"}, debug.BuildSetting{Key: "vcs.revision", Value: revision})
		}
		if modified != "" {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		return info
	}
	const rev = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"
	for _, c := range []struct {
		name        string
		info        *debug.BuildInfo
		release     buildStamp
		short, line string
	}{
		{"release build", vcs("(devel)", "", ""), buildStamp{"v0.1.0", rev, "clean"},
			"v0.1.0", "mcp-repo-tools v0.1.0 (commit 1a2b3c4d5e6f, clean tree, go1.26.8 linux/amd64)"},
		{"release build, modified", vcs("(devel)", "", ""), buildStamp{"v0.1.0-2-g1a2b3c4-dirty", rev, "modified"},
			"v0.1.0-2-g1a2b3c4-dirty", "mcp-repo-tools v0.1.0-2-g1a2b3c4-dirty (commit 1a2b3c4d5e6f, modified tree, go1.26.8 linux/amd64)"},
		// The release build's stamp wins over Go's, whole.
		{"release over vcs", vcs("v0.0.0-20260102030405-ffffffffffff", "ffffffffffffffff", "true"), buildStamp{"v0.2.0", rev, "clean"},
			"v0.2.0", "mcp-repo-tools v0.2.0 (commit 1a2b3c4d5e6f, clean tree, go1.26.8 linux/amd64)"},
		{"go build with vcs, tag", vcs("v0.1.0", rev, "false"), buildStamp{},
			"v0.1.0", "mcp-repo-tools v0.1.0 (commit 1a2b3c4d5e6f, clean tree, go1.26.8 linux/amd64)"},
		{"go build with vcs, modified", vcs("v0.0.0-20260102030405-1a2b3c4d5e6f+dirty", rev, "true"), buildStamp{},
			"v0.0.0-20260102030405-1a2b3c4d5e6f+dirty", "mcp-repo-tools v0.0.0-20260102030405-1a2b3c4d5e6f+dirty (commit 1a2b3c4d5e6f, modified tree, go1.26.8 linux/amd64)"},
		{"go install @version", vcs("v0.1.0", "", ""), buildStamp{},
			"v0.1.0", "mcp-repo-tools v0.1.0 (go1.26.8 linux/amd64)"},
		{"go run", vcs("(devel)", "", ""), buildStamp{},
			"(devel)", "mcp-repo-tools (devel) (go1.26.8 linux/amd64)"},
		{"no build info", nil, buildStamp{},
			"(devel)", "mcp-repo-tools (devel) (go1.26.8 linux/amd64)"},
	} {
		short, line := versionOf(c.info, c.release, platform)
		if short != c.short || line != c.line {
			t.Errorf("%s:\n got %q, %q\nwant %q, %q", c.name, short, line, c.short, c.line)
		}
	}
}

// releaseParser is what every release binary's version line says of
// list_symbols' parser: tree-sitter, whatever this test was built with.
const releaseParser = "symbols by tree-sitter (c cpp go java javascript python rust tsx typescript)"

// userXDGCache is XDG_CACHE_HOME as the test started, before TestMain set
// it to a directory of the tests' own (package variables are set first).
var userXDGCache, userHasXDGCache = os.LookupEnv("XDG_CACHE_HOME")

// userCacheEnv is the environment with the user's XDG_CACHE_HOME again:
// scripts/release's zig and Go's build cache are the user's (warm, and
// nothing made in the tests' cache, where the cursor key's directory must
// stay the server's alone).
func userCacheEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			env = append(env, kv)
		}
	}
	if userHasXDGCache {
		env = append(env, "XDG_CACHE_HOME="+userXDGCache)
	}
	return env
}

// scripts/release, run in a repository holding this module's source,
// gives the binary the version git describe gives the checkout, its commit
// and whether the tree was clean; `version` prints them and the server
// gives the version as serverInfo.version.
func TestReleaseBuildVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary with scripts/release, several times")
	}
	if runtime.GOOS != "linux" {
		t.Skip("scripts/release needs GNU tar and touch (CI runs it on Linux)")
	}
	if got := parserDetail(); strings.HasPrefix(got, "symbols by tree-sitter ") && got != releaseParser {
		t.Fatalf("this build's parser is %q: make releaseParser say so", got)
	}
	r := testrepo.New(t)
	copySource(t, r.Dir)
	r.Commit("the source")
	platform := runtime.GOOS + "/" + runtime.GOARCH
	build := func() string { // the built binary's path
		t.Helper()
		cmd := exec.Command("bash", "scripts/release")
		cmd.Dir = r.Dir
		cmd.Env = append(userCacheEnv(), "RELEASE_PLATFORMS="+platform)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("scripts/release: %v\n%s", err, out)
		}
		return filepath.Join(r.Dir, "dist", "bin", runtime.GOOS+"-"+runtime.GOARCH, "mcp-repo-tools")
	}
	check := func(version, tree string) string { // the binary's path
		t.Helper()
		bin := build()
		out, err := exec.Command(bin, "version").CombinedOutput()
		// Release builds carry the tree-sitter parser (cgo through zig).
		want := "mcp-repo-tools " + version + " (commit " + r.Head()[:12] + ", " + tree + " tree, " + releaseParser + ", " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
		if err != nil || string(out) != want {
			t.Fatalf("version: %v\n got %q\nwant %q", err, out, want)
		}
		archive := filepath.Join(r.Dir, "dist", "mcp-repo-tools_"+version+"_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz")
		if _, err := os.Stat(archive); err != nil {
			t.Fatalf("the archive is not named by the version: %v", err)
		}
		sums, err := os.ReadFile(filepath.Join(r.Dir, "dist", "checksums.txt"))
		if err != nil || !strings.HasSuffix(string(sums), "  "+filepath.Base(archive)+"\n") {
			t.Fatalf("checksums.txt: %v %q", err, sums)
		}
		return bin
	}

	// The abbreviated commit, in the script's environment.
	short := func() string {
		t.Helper()
		cmd := exec.Command("git", "rev-parse", "--short", "HEAD")
		cmd.Dir = r.Dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}

	// No tag: the abbreviated commit, as git describe --always gives it.
	check(short(), "clean")

	r.Git("tag", "-a", "v9.8.7", "-m", "v9.8.7")
	bin := check("v9.8.7", "clean")
	client := mcp.NewClient(&mcp.Implementation{Name: "version-test"}, nil)
	cmd := exec.Command(bin, "serve")
	cmd.Dir = r.Dir
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ServerInfo; got.Name != "mcp-repo-tools" || got.Version != "v9.8.7" {
		t.Errorf("serverInfo %+v, want mcp-repo-tools v9.8.7", got)
	}
	cs.Close()

	// A changed file, then an untracked one: dirty.
	r.Write("README.md", "changed\n")
	check("v9.8.7-dirty", "modified")
	r.Git("checkout", "--", "README.md")
	r.Write("new.txt", "untracked\n")
	check("v9.8.7-dirty", "modified")
	if err := os.Remove(filepath.Join(r.Dir, "new.txt")); err != nil {
		t.Fatal(err)
	}

	// A commit after the tag.
	r.Git("commit", "-q", "--allow-empty", "-m", "after the tag")
	check("v9.8.7-1-g"+short(), "clean")
}

// copySource copies what scripts/release needs of this checkout to dir:
// go.mod, go.sum, README.md, LICENSE, the scripts (release and its C
// toolchain's), and the module's non-test Go files and the
// tree-sitter queries they embed.
func copySource(t *testing.T, dir string) {
	t.Helper()
	top, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"go.mod", "go.sum", "README.md", "LICENSE",
		filepath.Join("scripts", "release"), filepath.Join("scripts", "zig"), filepath.Join("scripts", "cross-cc")}
	err = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != top && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "dist"):
			return filepath.SkipDir
		case !d.IsDir() && (strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, ".scm")):
			rel, err := filepath.Rel(top, path)
			files = append(files, rel)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(top, rel))
		if err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(rel, "scripts") {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, mode); err != nil {
			t.Fatal(err)
		}
	}
	// dist/ is ignored there as here.
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("/dist/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
