package gitexec

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// newEnv is a private git home removed when the test ends.
func newEnv(t testing.TB) *Env {
	t.Helper()
	env, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// open is the runner on a test repository, with its own Env.
func open(t testing.TB, r *testrepo.Repo) *Repo {
	t.Helper()
	return openIn(t, newEnv(t), r)
}

func openIn(t testing.TB, env *Env, r *testrepo.Repo) *Repo {
	t.Helper()
	wt := r.Dir
	if r.Bare {
		wt = ""
	}
	g := Open(env, r.GitDir(), wt, nil)
	t.Cleanup(g.Close)
	return g
}

// runWithout runs our runner's own command line for args with the named
// safety settings removed: a "-c key=..." pair when the name holds a dot,
// else an environment variable. It shows that this setting, and nothing
// else, stops the hostile behaviour.
func runWithout(t testing.TB, r *Repo, withWorkTree bool, drop []string, args ...string) (string, error) {
	t.Helper()
	c := rawCommand(args...)
	c.workTree = withWorkTree // any command, as the runner would run it there
	cmd := r.execCmd(context.Background(), c)
	var argv []string
	for i := 0; i < len(cmd.Args); i++ {
		if cmd.Args[i] == "-c" && i+1 < len(cmd.Args) && slices.ContainsFunc(drop, func(k string) bool {
			return strings.HasPrefix(cmd.Args[i+1], k+"=")
		}) {
			i++
			continue
		}
		argv = append(argv, cmd.Args[i])
	}
	cmd.Args = argv
	var env []string
	for _, kv := range cmd.Env {
		if !slices.ContainsFunc(drop, func(k string) bool { return strings.HasPrefix(kv, k+"=") }) {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// rawCommand builds a command from raw arguments, as only tests may: each
// becomes a trusted argument. A grep is built as Grep builds it.
func rawCommand(args ...string) *Cmd {
	if len(args) == 0 {
		return &Cmd{}
	}
	c := Command(Arg(args[0]))
	if args[0] == "grep" {
		c = Grep()
	}
	for _, a := range args[1:] {
		c.Flags(Arg(a))
	}
	return c
}

// outputRaw runs the runner's output for a raw command line.
func outputRaw(ctx context.Context, r *Repo, args ...string) ([]byte, error) {
	return r.Output(ctx, rawCommand(args...))
}

// streamRaw runs the runner's stream for a raw command line.
func streamRaw(ctx context.Context, r *Repo, args []string, consume func(stdout io.Reader) error) error {
	return r.Stream(ctx, rawCommand(args...), consume)
}

// output runs our runner's output and fails the test on error.
func output(t testing.TB, r *Repo, args ...string) string {
	t.Helper()
	out, err := outputRaw(context.Background(), r, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// workTreeOutput runs a raw command on the work tree (OnWorkTree) and
// returns stdout.
func workTreeOutput(t testing.TB, r *Repo, args ...string) (string, error) {
	t.Helper()
	var out []byte
	err := r.Stream(context.Background(), rawCommand(args...).OnWorkTree(), func(stdout io.Reader) error {
		var err error
		out, err = io.ReadAll(stdout)
		return err
	})
	return string(out), err
}

// commitFile writes path and commits it; it returns the commit id.
func commitFile(r *testrepo.Repo, path, content, msg string) string {
	r.Write(path, content)
	return r.Commit(msg)
}

// twoCommits is a repository whose commits c1 and c2 change a.txt.
func twoCommits(t testing.TB) (r *testrepo.Repo, c1, c2 string) {
	t.Helper()
	r = testrepo.New(t)
	c1 = commitFile(r, "a.txt", "one\n", "one")
	c2 = commitFile(r, "a.txt", "one\ntwo\n", "two")
	return r, c1, c2
}

// openSettingsOnly is the runner with the sandbox off: only the command
// line and environment guard it.
func openSettingsOnly(t testing.TB, r *testrepo.Repo) *Repo {
	t.Helper()
	env := newEnv(t)
	if _, err := env.UseSandbox(SandboxOff); err != nil {
		t.Fatal(err)
	}
	return openIn(t, env, r)
}

// bigBlob adds a blob of size bytes (not committed) and returns its id.
func bigBlob(t testing.TB, r *testrepo.Repo, size int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%09d\n", i)
	}
	return strings.TrimSpace(r.Git("hash-object", "-w", writeTemp(t, b.String()[:size])))
}

func writeTemp(t testing.TB, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "content")
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// The watchers of package testrepo.
var (
	plainEnv   = testrepo.PlainEnv
	plainGit   = testrepo.PlainGit
	procsWith  = testrepo.ProcsWith
	eventually = testrepo.Eventually
	alive      = testrepo.Alive
)
