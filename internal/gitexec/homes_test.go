//go:build unix

package gitexec

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// holdHomeEnv, set, makes TestHoldHome a server's stand-in: it makes an
// Env in TMPDIR, prints its home and waits to be killed.
const holdHomeEnv = "GITEXEC_TEST_HOLD_HOME"

func TestHoldHome(t *testing.T) {
	if os.Getenv(holdHomeEnv) == "" {
		t.Skip("a helper process of TestLeftoverHomesSwept")
	}
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(e.dir + "\n")
	select {}
}

// holdHome starts a process that makes a private git home in tmp and holds
// it until killed; it returns the process and the home.
func holdHome(t *testing.T, tmp string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldHome$", "-test.count=1")
	cmd.Env = append(os.Environ(), holdHomeEnv+"=1", "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the helper printed no home: %v", err)
	}
	return cmd, strings.TrimSpace(line)
}

// TestLeftoverHomesSwept: review 4, finding 20. A server killed with
// SIGKILL left its private git home in the temporary directory, and no
// later start removed it. A start now removes the homes of servers no
// longer running: the one a killed server left, and one whose server died
// before it locked its home; it keeps a running server's, its own, a home
// named in the old way (its server may run), another user's name given to
// a symbolic link (and what the link points at), and a home whose lock is
// no regular file.
func TestLeftoverHomesSwept(t *testing.T) {
	tmp := t.TempDir()
	killed, killedHome := holdHome(t, tmp)
	_, liveHome := holdHome(t, tmp)
	if !strings.HasPrefix(filepath.Base(killedHome), homePrefix+strconv.Itoa(killed.Process.Pid)+"-") {
		t.Fatalf("a home is not named for its server's pid %d: %s", killed.Process.Pid, killedHome)
	}
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	if _, err := os.Stat(filepath.Join(killedHome, "gitconfig")); err != nil {
		t.Fatalf("the killed server's home is not there to sweep: %v", err)
	}
	// A pid no process has: a pid is at most 2^22 on Linux.
	const gone = 1<<22 + 12345
	noLock := filepath.Join(tmp, homePrefix+strconv.Itoa(gone)+"-1")
	oldName := filepath.Join(tmp, homePrefix+"123456789")
	odd := filepath.Join(tmp, homePrefix+strconv.Itoa(gone)+"-2")
	for _, d := range []string{noLock, oldName, filepath.Join(odd, homeLock)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	target := t.TempDir()
	if err := os.WriteFile(filepath.Join(target, "keep"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, homePrefix+strconv.Itoa(gone)+"-3")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}

	t.Setenv("TMPDIR", tmp)
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	for _, d := range []string{killedHome, noLock} {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("%s was left by a server no longer running, and is still there (%v)", d, err)
		}
	}
	for _, d := range []string{liveHome, e.dir, oldName, odd, link, filepath.Join(target, "keep")} {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s should be kept: %v", d, err)
		}
	}
	// A second Env of the same process keeps the first's home.
	e2, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if _, err := os.Stat(filepath.Join(e.dir, "gitconfig")); err != nil {
		t.Errorf("a second Env of this process swept the first's home: %v", err)
	}
}
