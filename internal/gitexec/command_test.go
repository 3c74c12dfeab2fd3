package gitexec

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// argvOf is the whole command line the runner would run c with.
func argvOf(r *Repo, c *Cmd) []string {
	return r.execCmd(context.Background(), c).Args[1:]
}

// withoutConfig drops the -c settings, which every command line has alike.
func withoutConfig(argv []string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		if argv[i] == "-c" && i+1 < len(argv) && slices.Contains(safeConfig, argv[i+1]) {
			i++
			continue
		}
		out = append(out, argv[i])
	}
	return out
}

// The builder puts user values only after --end-of-options or "--", or as
// the value of an option that takes one; everything else is refused before
// git starts.
func TestCommandBuilder(t *testing.T) {
	env := &Env{dir: "/home"}
	r := &Repo{env: env, gitDir: "/repo/.git", workTree: "/repo"}
	global := []string{"--git-dir=/repo/.git", "--literal-pathspecs", "--work-tree=/home"}
	for _, tc := range []struct {
		name string
		c    *Cmd
		want []string // after the global options; nil: refused
	}{
		{"revs and paths", Command("log", "-1").Revs("abc", "def").Paths("a", "-b"),
			[]string{"log", "-1", "--end-of-options", "abc", "def", "--", "a", "-b"}},
		{"one --end-of-options", Command("merge-base").Revs("a").Revs("b"),
			[]string{"merge-base", "--end-of-options", "a", "b"}},
		{"one --", Command("log").Revs("c").Paths().Paths("x"),
			[]string{"log", "--end-of-options", "c", "--", "x"}},
		{"option value", Command("config").FlagValue("--blob", "-x:.gitmodules"),
			[]string{"config", "--blob", "-x:.gitmodules"}},
		{"rev without --end-of-options", Command("ls-tree", "-r").Rev("abc"),
			[]string{"ls-tree", "-r", "abc"}},
		{"number", Command("diff", IntArg("-U", 3)), []string{"diff", "-U3"}},
		{"rev with a dash", Command("log").Revs("--output=/tmp/x"), nil},
		{"positional rev with a dash", Command("ls-tree").Rev("-d"), nil},
		{"flag after revisions", Command("log").Revs("c").Flags("-p"), nil},
		{"flag value after paths", Command("log").Paths("a").FlagValue("-e", "x"), nil},
		{"revisions after paths", Command("log").Paths("a").Revs("c"), nil},
		{"magic under --literal-pathspecs", Command("log").Pathspecs(":(glob)", "*.go"), nil},
		{"plain paths on grep", Grep().Paths("a"), nil},
		{"magic that is not magic", Grep().Pathspecs("-", "x"), nil},
		{"work tree for a command that runs filters", Command("status").OnWorkTree(), nil},
		{"work tree for diff", Command("diff").OnWorkTree(), nil},
	} {
		if tc.want == nil {
			if tc.c.err == nil {
				t.Errorf("%s: %q not refused", tc.name, tc.c.args)
			}
			continue
		}
		if tc.c.err != nil {
			t.Errorf("%s: %v", tc.name, tc.c.err)
			continue
		}
		if got, want := withoutConfig(argvOf(r, tc.c)), append(slices.Clone(global), tc.want...); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, want)
		}
	}

	// What a command is, not its name, decides how it runs.
	grep := Grep("-n").FlagValue("-e", "x").Pathspecs(":(glob)", "*.go").OnWorkTree()
	if grep.err != nil || grep.room != roomSearch || !grep.workTree {
		t.Fatalf("grep: err %v, room %d, work tree %v", grep.err, grep.room, grep.workTree)
	}
	if got, want := withoutConfig(argvOf(r, grep)), []string{"--git-dir=/repo/.git", "--work-tree=/repo", "grep", "-n", "-e", "x", "--", ":(glob)*.go"}; !slices.Equal(got, want) {
		t.Errorf("grep on the work tree:\n got %q\nwant %q", got, want)
	}
	// A command merely named grep is an ordinary command.
	named := Command("grep", "-e", "x")
	if named.room != roomCommand || !slices.Contains(argvOf(r, named), "--literal-pathspecs") {
		t.Errorf("Command(grep): room %d, argv %q", named.room, argvOf(r, named))
	}
	if named.OnWorkTree(); named.err == nil {
		t.Error("Command(grep) may run on the work tree")
	}
	if c := Command("cat-file", "--batch-command", "-z").LongLived(); c.room != roomReader {
		t.Errorf("cat-file reader: room %d", c.room)
	}
	init := Command("init", "--bare").WithoutWorkTree().Writing("")
	if got := withoutConfig(argvOf(r, init)); !slices.Equal(got, []string{"--git-dir=/repo/.git", "--literal-pathspecs", "init", "--bare"}) || init.room != roomCaller {
		t.Errorf("init: room %d, argv %q", init.room, got)
	}
	// A fetch's own settings come after the runner's, and its environment
	// after the clean one.
	fetch := Command("fetch").Config("http.followRedirects=false").Paths("https://h/r", "+refs/heads/*:refs/heads/*").Writing("https", "GIT_ALLOW_PROTOCOL=https")
	cmd := r.execCmd(context.Background(), fetch)
	if got := withoutConfig(cmd.Args[1:]); !slices.Equal(got, append(slices.Clone(global), "-c", "http.followRedirects=false", "fetch", "--", "https://h/r", "+refs/heads/*:refs/heads/*")) {
		t.Errorf("fetch: %q", got)
	}
	if i := slices.Index(cmd.Args, "-c"); i < 0 || cmd.Args[i+1] != safeConfig[0] {
		t.Errorf("fetch: the runner's settings do not come first: %q", cmd.Args)
	}
	if cmd.Env[len(cmd.Env)-1] != "GIT_ALLOW_PROTOCOL=https" {
		t.Errorf("fetch: environment %q", cmd.Env)
	}
}

// A refused command starts no git, and says why.
func TestRefusedCommandDoesNotRun(t *testing.T) {
	r, _, _ := twoCommits(t)
	g := openSettingsOnly(t, r)
	written := filepath.Join(t.TempDir(), "written")
	// Control: as an option, the value writes a file.
	output(t, g, "log", "-1", "--output="+written)
	if err := os.Remove(written); err != nil {
		t.Fatalf("control: git log --output wrote nothing: %v", err)
	}
	for _, c := range []*Cmd{
		Command("log", "-1").Revs("--output=" + written),
		Command("log", "-1").Rev("--output=" + written),
		Command("status").OnWorkTree(),
	} {
		if _, err := g.Output(context.Background(), c); err == nil || !strings.HasPrefix(err.Error(), "git") {
			t.Errorf("%q = %v, want refused", c.args, err)
		}
	}
	if err := g.RunWriting(context.Background(), Command("config", "core.bare", "true")); err == nil {
		t.Error("RunWriting ran a command not built as writing")
	}
	if _, err := os.Stat(written); err == nil {
		t.Fatal("a refused command ran")
	}
	// Behind the refusal, --end-of-options holds on its own: past it the
	// same value is a revision git does not know.
	if _, err := outputRaw(context.Background(), g, "log", "-1", "--end-of-options", "--output="+written, "--"); err == nil {
		t.Error("git log --end-of-options --output=... succeeded")
	}
	if _, err := os.Stat(written); err == nil {
		t.Fatal("--output= after --end-of-options wrote a file")
	}
}

// Nothing but this package starts git: outside it, non-test code calls
// exec.Command or exec.CommandContext only in cmd/bench (which runs plain
// git as the oracle, the go tool and the server), internal/testrepo
// (which builds test repositories with the git CLI) and packaging/mcpb
// (the bundle's build helper: it runs the bundled server as a host does,
// on a clone it makes), none of which the server links. In this package, only
// the runner (run.go) and the sandbox's set-up and self-test
// (sandbox_linux.go, before any repository is involved) do. (Under
// internal/, internal/archtest's TestOnlyGitexecImportsOsExec keeps even
// the import here.)
func TestOnlyGitexecStartsGit(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	allowed := func(rel string) bool {
		switch {
		case rel == "internal/gitexec/run.go", rel == "internal/gitexec/sandbox_linux.go":
			return true
		case strings.HasPrefix(rel, "cmd/bench/"), strings.HasPrefix(rel, "internal/testrepo/"), strings.HasPrefix(rel, "packaging/mcpb/"):
			return true
		}
		return false
	}
	fset := token.NewFileSet()
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		seen++
		execName := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "os/exec" {
				execName = "exec"
				if imp.Name != nil {
					execName = imp.Name.Name
				}
			}
		}
		if execName == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == execName && (sel.Sel.Name == "Command" || sel.Sel.Name == "CommandContext") {
				if !allowed(rel) {
					t.Errorf("%s: %s.%s outside internal/gitexec's runner: start git through internal/gitexec", fset.Position(sel.Pos()), execName, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Fatalf("only %d Go files under %s: the walk missed the module", seen, root)
	}
}
