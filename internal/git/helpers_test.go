package git

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
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

// gitDir is the absolute git directory of a test repository.
func gitDir(r *testrepo.Repo) string {
	if r.Bare {
		return r.Dir
	}
	return filepath.Join(r.Dir, ".git")
}

// open is our runner on a test repository, with its own Env.
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
	g := Open(env, gitDir(r), wt)
	t.Cleanup(g.Close)
	return g
}

// marker is a program a hostile repository names: running it leaves a file.
type marker struct {
	t      testing.TB
	Script string
	File   string
}

// newMarker writes a shell script that records each run in a marker file,
// then runs tail (for example `cat "$1"` for a textconv driver).
func newMarker(t testing.TB, name, tail string) *marker {
	t.Helper()
	dir := t.TempDir()
	m := &marker{t: t, Script: filepath.Join(dir, name+".sh"), File: filepath.Join(dir, name+".ran")}
	script := "#!/bin/sh\necho \"$0 $*\" >> '" + m.File + "'\n" + tail + "\n"
	if err := os.WriteFile(m.Script, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return m
}

// Ran reports whether the program ran since the last Reset.
func (m *marker) Ran() bool {
	_, err := os.Stat(m.File)
	return err == nil
}

func (m *marker) Reset() {
	if err := os.Remove(m.File); err != nil && !os.IsNotExist(err) {
		m.t.Fatal(err)
	}
}

// mustRun checks the control step: plain git did run the hostile program.
func (m *marker) mustRun(what string) {
	m.t.Helper()
	if !m.Ran() {
		m.t.Fatalf("control: %s did not run %s; the test proves nothing", what, filepath.Base(m.Script))
	}
	m.Reset()
}

// mustNotRun checks our runner did not run the hostile program.
func (m *marker) mustNotRun(what string) {
	m.t.Helper()
	if m.Ran() {
		data, _ := os.ReadFile(m.File)
		m.t.Fatalf("%s ran %s: %s", what, filepath.Base(m.Script), data)
	}
}

// plainEnv is the environment of a user running git by hand: no system or
// global config of the machine, and optional locks allowed (as by default).
func plainEnv(t testing.TB) []string {
	t.Helper()
	var env []string
	for _, kv := range testrepo.Env(t.TempDir()) {
		if !strings.HasPrefix(kv, "GIT_OPTIONAL_LOCKS=") {
			env = append(env, kv)
		}
	}
	return env
}

// commitFile writes path and commits it; it returns the commit id.
func commitFile(r *testrepo.Repo, path, content, msg string) string {
	r.Write(path, content)
	return r.Commit(msg)
}

// proc is a process found in /proc.
type proc struct {
	pid, ppid int
	state     byte
	cmdline   string
}

// procsWith lists the live (not zombie) processes whose command line holds
// every one of parts.
func procsWith(t testing.TB, parts ...string) []proc {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var found []proc
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		p, ok := readProc(pid)
		if !ok || p.state == 'Z' || p.state == 'X' {
			continue
		}
		if !slices.ContainsFunc(parts, func(s string) bool { return !strings.Contains(p.cmdline, s) }) {
			found = append(found, p)
		}
	}
	return found
}

func readProc(pid int) (proc, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+4 > len(s) {
		return proc{}, false
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 2 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return proc{pid: pid, ppid: ppid, state: f[0][0], cmdline: strings.ReplaceAll(string(cmdline), "\x00", " ")}, true
}

// catFiles lists the live `git cat-file` children of this test process that
// read gitDir.
func catFiles(t testing.TB, gitDir string) []proc {
	t.Helper()
	var kids []proc
	for _, p := range procsWith(t, "--git-dir="+gitDir+" ", "cat-file") {
		if p.ppid == os.Getpid() {
			kids = append(kids, p)
		}
	}
	return kids
}

// eventually polls cond for up to d.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// twoCommits is a repository whose commits c1 and c2 change a.txt.
func twoCommits(t *testing.T) (r *testrepo.Repo, c1, c2 string) {
	t.Helper()
	r = testrepo.New(t)
	c1 = commitFile(r, "a.txt", "one\n", "one")
	c2 = commitFile(r, "a.txt", "one\ntwo\n", "two")
	return r, c1, c2
}

// openSettingsOnly is a Repo with the sandbox off: only the command line
// and environment guard it.
func openSettingsOnly(t testing.TB, r *testrepo.Repo) *Repo {
	t.Helper()
	env := newEnv(t)
	if _, err := env.UseSandbox(gitexec.SandboxOff); err != nil {
		t.Fatal(err)
	}
	return openIn(t, env, r)
}

func writeTemp(t testing.TB, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "content")
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// readBlob reads a whole object through the pool.
func readBlob(t testing.TB, g *Repo, name string) string {
	t.Helper()
	var data []byte
	err := g.ReadObject(context.Background(), name, func(_ Object, body io.Reader) error {
		var err error
		data, err = io.ReadAll(body)
		return err
	})
	if err != nil {
		t.Fatalf("ReadObject(%q): %v", name, err)
	}
	return string(data)
}

// plainGit runs git without our runner, in dir, as a user would: this is the
// control step of each safety test.
func plainGit(t testing.TB, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

func mustPlainGit(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := plainGit(t, dir, env, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
