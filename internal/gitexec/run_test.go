//go:build unix

package gitexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// within fails the test if f does not return within d (a hang guard, not a
// speed assertion).
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
}

// When the consumer stops reading, git is killed: nobody reads its output
// any more, so if Stream returns at all, git did not run to the end.
func TestStreamEarlyReturnStopsGit(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "a\n", "a")
	big := bigBlob(t, r, 16<<20)
	g := open(t, r)
	for _, args := range [][]string{
		{"cat-file", "blob", big},
		{"cat-file", "--batch-all-objects", "--batch"},
	} {
		var read int64
		var err error
		within(t, 10*time.Second, func() {
			err = streamRaw(context.Background(), g, args, func(stdout io.Reader) error {
				read, _ = io.CopyN(io.Discard, stdout, 64<<10)
				return nil
			})
		})
		if err != nil || read != 64<<10 {
			t.Fatalf("Stream(%v) stopped early = %v after %d bytes, want nil", args, err, read)
		}
		if left := procsWith(t, "--git-dir="+r.GitDir()+" ", args[0]); len(left) > 0 {
			t.Fatalf("git still running after Stream returned: %+v", left)
		}
	}
	// The consumer's own error is returned as it is.
	boom := errors.New("boom")
	err := streamRaw(context.Background(), g, []string{"cat-file", "blob", big}, func(stdout io.Reader) error {
		io.CopyN(io.Discard, stdout, 100)
		return boom
	})
	if err != boom {
		t.Fatalf("Stream = %v, want the consumer's error", err)
	}
	// Stdin is empty: a command reading it ends at once.
	out, err := outputRaw(context.Background(), g, "cat-file", "--batch-check")
	if err != nil || len(out) != 0 {
		t.Fatalf("cat-file --batch-check with no input = %q, %v", out, err)
	}
}

func TestStreamExitError(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "a\n", "a")
	g := open(t, r)
	ctx := context.Background()

	_, err := outputRaw(ctx, g, "rev-parse", "--verify", "--end-of-options", "nope^{commit}")
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 128 || !strings.Contains(ee.Stderr, "fatal: Needed a single revision") || ee.Args[0] != "rev-parse" {
		t.Fatalf("Output(rev-parse nope) = %#v", err)
	}
	if msg := err.Error(); msg != "git rev-parse: fatal: Needed a single revision" {
		t.Errorf("Error() = %q", msg)
	}

	// git grep: exit 1 and no stderr means no match.
	err = g.Stream(ctx, Grep().FlagValue("-e", "nothing-matches").OnWorkTree(), func(stdout io.Reader) error {
		_, err := io.Copy(io.Discard, stdout)
		return err
	})
	if !errors.As(err, &ee) || ee.Code != 1 || ee.Stderr != "" {
		t.Fatalf("grep without a match = %#v", err)
	}

	// stderr is capped: one error line per path, far more than 8 KiB.
	args := []string{"ls-files", "--error-unmatch", "--"}
	for i := range 500 {
		args = append(args, fmt.Sprintf("missing/path/number-%04d/%s", i, strings.Repeat("x", 40)))
	}
	plain, _ := plainGit(t, r.Dir, plainEnv(t), args...)
	if len(plain) <= 2*maxStderr {
		t.Fatalf("control: plain git printed only %d bytes", len(plain))
	}
	_, err = outputRaw(ctx, g, args...)
	if !errors.As(err, &ee) || ee.Code != 1 {
		t.Fatalf("Output(ls-files --error-unmatch) = %v", err)
	}
	if len(ee.Stderr) != maxStderr || !strings.HasPrefix(plain, ee.Stderr) {
		t.Fatalf("stderr kept: %d bytes (want %d, the start of git's %d)", len(ee.Stderr), maxStderr, len(plain))
	}
}

func TestOutputLimit(t *testing.T) {
	r := testrepo.New(t)
	big := bigBlob(t, r, MaxOutput+1)
	g := open(t, r)
	_, err := outputRaw(context.Background(), g, "cat-file", "blob", big)
	if err == nil || !strings.Contains(err.Error(), "output over") {
		t.Fatalf("Output of %d bytes = %v", MaxOutput+1, err)
	}
	if out, err := outputRaw(context.Background(), g, "cat-file", "-s", big); err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(MaxOutput+1) {
		t.Fatalf("cat-file -s = %q, %v", out, err)
	}
}

// At the deadline the whole process group is killed, children of git
// included. A shell alias given on the command line makes git start a
// child that holds git's stdout (the runner adds no alias of its own; this
// is only the test's way to get a grandchild).
func TestStreamDeadlineKillsProcessGroup(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "a\n", "a")
	g := openSettingsOnly(t, r) // its git alias runs a shell, which the sandbox would refuse
	hang := func(pidFile string) []string {
		return []string{"-c", "alias.hang=!echo $$ > '" + pidFile + "'; exec sleep 60", "hang"}
	}
	childPid := func(pidFile string) int {
		t.Helper()
		var pid int
		if !eventually(5*time.Second, func() bool {
			data, err := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
			return err == nil && pid > 0
		}) {
			t.Fatal("the alias did not start")
		}
		return pid
	}

	// Control: the runner's command line without the process group and its
	// kill: git dies at the deadline, its child lives on.
	pidFile := filepath.Join(t.TempDir(), "control.pid")
	// The deadline leaves git time to start its alias on a loaded machine.
	const deadline = 1500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	cmd := g.execCmd(ctx, rawCommand(hang(pidFile)...))
	cmd.SysProcAttr = nil
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	cmd.WaitDelay = 200 * time.Millisecond
	var sink bytes.Buffer
	cmd.Stdout = &sink
	cmd.Run()
	cancel()
	orphan := childPid(pidFile)
	if !alive(orphan) {
		t.Fatal("control: the child of git died with git; the test proves nothing")
	}
	syscall.Kill(orphan, syscall.SIGKILL)

	pidFile = filepath.Join(t.TempDir(), "runner.pid")
	ctx, cancel = context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	var err error
	within(t, 10*time.Second, func() {
		err = streamRaw(ctx, g, hang(pidFile), func(stdout io.Reader) error {
			_, err := io.Copy(io.Discard, stdout)
			return err
		})
	})
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Stream past its deadline = %v", err)
	}
	child := childPid(pidFile)
	if !eventually(2*time.Second, func() bool { return !alive(child) }) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Fatal("the child of git outlived the deadline")
	}
	// Had only git been killed, the child would hold stdout open and Stream
	// would wait out WaitDelay (2s) past the deadline.
	if elapsed >= deadline+2*time.Second {
		t.Errorf("Stream returned %s after its start, want well before the deadline plus WaitDelay", elapsed)
	}

	// A context that is already done starts nothing.
	if err := streamRaw(ctx, g, []string{"log"}, func(io.Reader) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Stream with an expired context = %v", err)
	}
}
