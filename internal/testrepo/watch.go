package testrepo

// What a test watches: the hostile programs a repository names (Marker),
// plain git run by hand as the control, the processes git left running.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Marker is a program a hostile repository names: running it leaves a file.
type Marker struct {
	t      testing.TB
	Script string
	File   string
}

// NewMarker writes a shell script that records each run in a marker file,
// then runs tail (for example `cat "$1"` for a textconv driver).
func NewMarker(t testing.TB, name, tail string) *Marker {
	t.Helper()
	dir := t.TempDir()
	m := &Marker{t: t, Script: filepath.Join(dir, name+".sh"), File: filepath.Join(dir, name+".ran")}
	script := "#!/bin/sh\necho \"$0 $*\" >> '" + m.File + "'\n" + tail + "\n"
	if err := os.WriteFile(m.Script, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return m
}

// Ran reports whether the program ran since the last Reset.
func (m *Marker) Ran() bool {
	_, err := os.Stat(m.File)
	return err == nil
}

func (m *Marker) Reset() {
	if err := os.Remove(m.File); err != nil && !os.IsNotExist(err) {
		m.t.Fatal(err)
	}
}

// MustRun checks the control step: plain git did run the hostile program.
func (m *Marker) MustRun(what string) {
	m.t.Helper()
	if !m.Ran() {
		m.t.Fatalf("control: %s did not run %s; the test proves nothing", what, filepath.Base(m.Script))
	}
	m.Reset()
}

// MustNotRun checks our runner did not run the hostile program.
func (m *Marker) MustNotRun(what string) {
	m.t.Helper()
	if m.Ran() {
		data, _ := os.ReadFile(m.File)
		m.t.Fatalf("%s ran %s: %s", what, filepath.Base(m.Script), data)
	}
}

// PlainEnv is the environment of a user running git by hand: no system or
// global config of the machine, and optional locks allowed (as by default).
func PlainEnv(t testing.TB) []string {
	t.Helper()
	var env []string
	for _, kv := range Env(t.TempDir()) {
		if !strings.HasPrefix(kv, "GIT_OPTIONAL_LOCKS=") {
			env = append(env, kv)
		}
	}
	return env
}

// PlainGit runs git without our runner, in dir, as a user would: this is the
// control step of each safety test.
func PlainGit(t testing.TB, dir string, env []string, args ...string) (string, error) {
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

func MustPlainGit(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := PlainGit(t, dir, env, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Proc is a process found in /proc.
type Proc struct {
	Pid, PPid int
	State     byte
	Cmdline   string
}

// ProcsWith lists the live (not zombie) processes whose command line holds
// every one of parts.
func ProcsWith(t testing.TB, parts ...string) []Proc {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var found []Proc
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		p, ok := ReadProc(pid)
		if !ok || p.State == 'Z' || p.State == 'X' {
			continue
		}
		if !slices.ContainsFunc(parts, func(s string) bool { return !strings.Contains(p.Cmdline, s) }) {
			found = append(found, p)
		}
	}
	return found
}

func ReadProc(pid int) (Proc, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+4 > len(s) {
		return Proc{}, false
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 2 {
		return Proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return Proc{Pid: pid, PPid: ppid, State: f[0][0], Cmdline: strings.ReplaceAll(string(cmdline), "\x00", " ")}, true
}

// CatFiles lists the live `git cat-file` children of this test process that
// read gitDir.
func CatFiles(t testing.TB, gitDir string) []Proc {
	t.Helper()
	var kids []Proc
	for _, p := range ProcsWith(t, "--git-dir="+gitDir+" ", "cat-file") {
		if p.PPid == os.Getpid() {
			kids = append(kids, p)
		}
	}
	return kids
}

// Eventually polls cond for up to d.
func Eventually(d time.Duration, cond func() bool) bool {
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

// Alive reports whether pid is a live process (not gone, not a zombie).
func Alive(pid int) bool {
	p, ok := ReadProc(pid)
	return ok && p.State != 'Z' && p.State != 'X'
}
