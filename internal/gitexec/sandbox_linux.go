package gitexec

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sandbox confines git children with Landlock. Only the OS thread that
// starts a child is restricted (a child inherits its parent thread's
// domain); that thread is locked to a goroutine that ends right after, so
// Go retires it and the server itself stays unrestricted. Helpers that
// restrict every thread of the process would confine the server instead.
type sandbox struct {
	abi    int
	fs     uint64  // file-system rights the kernel knows: all are handled
	net    uint64  // network rights handled (none granted) unless a command needs the network
	scoped uint64  // IPC the child may not reach outside its domain
	base   []grant // what git needs to run, for every command
	// fetchExtra is what a fetch needs on top: name resolution and TLS.
	fetchExtra []grant
}

// newSandbox checks the kernel supports Landlock and finds what git needs:
// its binary, its exec path (git-core), the ELF interpreter, the library
// and share directories, and the private directory home (read and write).
func newSandbox(home string) (*sandbox, error) {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return nil, fmt.Errorf("the kernel has no Landlock (%v); Linux 5.13 or later with Landlock enabled is needed", errno)
	}
	s := &sandbox{abi: int(abi)}
	s.fs = fsRights(s.abi)
	if s.abi >= 4 {
		s.net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if s.abi >= 6 {
		s.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	if gitBin, err = filepath.EvalSymlinks(gitBin); err != nil {
		return nil, err
	}
	execPath, err := gitExecPath(gitBin, home)
	if err != nil {
		return nil, err
	}
	s.base = []grant{
		{gitBin, accessExecute},
		{execPath, accessExecute},
		{"/dev/null", accessDevice},
		{"/dev/urandom", accessRead}, // temporary file names
		{home, accessWrite},
		// The loader reads its cache and the libraries; git init reads
		// its templates. Nothing else under /etc.
		{"/etc/ld.so.cache", accessRead},
		{"/etc/ld.so.preload", accessRead},
		{"/usr/share/git-core", accessRead},
	}
	if interp, err := elfInterpreter(gitBin); err == nil {
		s.base = append(s.base, grant{interp, accessExecute})
	}
	for _, d := range []string{"/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/local/lib"} {
		s.base = append(s.base, grant{d, accessRead})
	}
	for _, p := range []string{
		"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf",
		"/etc/services", "/etc/protocols", "/etc/ssl", "/etc/pki", "/etc/ca-certificates",
		"/usr/share/ca-certificates", "/usr/local/share/ca-certificates",
	} {
		s.fetchExtra = append(s.fetchExtra, grant{p, accessRead})
	}
	// Prove it works here before relying on it: a child that must run, and
	// one that must be refused.
	if err := s.selfTest(gitBin, home); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *sandbox) describe() string {
	return fmt.Sprintf("on (Landlock ABI %d): git reads only its repository, writes only a private directory, runs only git's own programs, opens no network connection but the forge fetch's", s.abi)
}

// fsRights lists the file-system rights a Landlock ABI knows.
func fsRights(abi int) uint64 {
	r := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// fileRights are the rights that apply to a file (not a directory).
const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
	unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

// rights turns an access into Landlock rights for this kernel.
func (s *sandbox) rights(a access) uint64 {
	read := uint64(unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR)
	switch a {
	case accessExecute:
		return read | unix.LANDLOCK_ACCESS_FS_EXECUTE
	case accessWrite:
		return s.fs &^ unix.LANDLOCK_ACCESS_FS_EXECUTE
	case accessDevice:
		return (unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE) & s.fs
	}
	return read
}

// ruleset builds a Landlock ruleset granting base plus grants (and the
// fetch's extras and the network when network is set). Paths that do not
// exist are skipped: there is nothing there to grant. One ruleset serves
// any number of starts.
func (s *sandbox) ruleset(grants []grant, network bool) (*os.File, error) {
	attr := unix.LandlockRulesetAttr{Access_fs: s.fs, Access_net: s.net, Scoped: s.scoped}
	if network {
		attr.Access_net = 0
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return nil, fmt.Errorf("sandbox: creating a Landlock ruleset: %w", errno)
	}
	rules := os.NewFile(fd, "landlock-ruleset")
	all := append(s.base[:len(s.base):len(s.base)], grants...)
	if network {
		all = append(all, s.fetchExtra...)
	}
	for _, g := range all {
		if err := s.addRule(int(fd), g); err != nil {
			rules.Close()
			return nil, err
		}
	}
	return rules, nil
}

func (s *sandbox) addRule(ruleset int, g grant) error {
	pfd, err := unix.Open(g.path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sandbox: opening %s: %w", g.path, err)
	}
	defer unix.Close(pfd)
	rights := s.rights(g.access)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return fmt.Errorf("sandbox: %s: %w", g.path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fileRights
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(pfd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("sandbox: granting %s: %w", g.path, errno)
	}
	return nil
}

// start starts cmd confined by base plus grants.
func (s *sandbox) start(cmd *exec.Cmd, grants []grant, network bool) error {
	rules, err := s.ruleset(grants, network)
	if err != nil {
		return err
	}
	defer rules.Close()
	return s.startWith(cmd, rules)
}

// startWith starts cmd confined by a ruleset made by ruleset.
func (s *sandbox) startWith(cmd *exec.Cmd, rules *os.File) error {
	conn, err := rules.SyscallConn()
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		// Never unlocked: when this goroutine returns, Go ends the thread
		// with its restriction, and the runtime makes no new thread from
		// a locked one. No other goroutine ever runs restricted.
		runtime.LockOSThread()
		var restrictErr error
		// Control keeps the descriptor open while it is used, even if
		// the repository is closed meanwhile.
		if err := conn.Control(func(fd uintptr) { restrictErr = restrictThread(int(fd)) }); err != nil {
			done <- fmt.Errorf("sandbox: %w", err)
			return
		}
		if restrictErr != nil {
			done <- restrictErr
			return
		}
		done <- cmd.Start()
	}()
	return <-done
}

// restrictThread confines the calling OS thread (only it: raw per-thread
// system calls, not the all-threads variants).
func restrictThread(ruleset int) error {
	if _, _, errno := unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("sandbox: no_new_privs: %w", errno)
	}
	if _, _, errno := unix.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("sandbox: landlock_restrict_self: %w", errno)
	}
	return nil
}

// gitExecPath asks git where its own programs live (git-core), before any
// sandbox, with nothing of any repository involved.
func gitExecPath(gitBin, home string) (string, error) {
	cmd := exec.Command(gitBin, "--exec-path")
	cmd.Env, cmd.Dir = []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}, home
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git --exec-path: %w", err)
	}
	return filepath.EvalSymlinks(strings.TrimSpace(string(out)))
}

// elfInterpreter is the dynamic loader the kernel runs for bin.
func elfInterpreter(bin string) (string, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				return "", err
			}
			return filepath.EvalSymlinks(strings.TrimRight(string(b), "\x00"))
		}
	}
	return "", errors.New("no interpreter: a static binary")
}

// selfTest runs `git --version` in the sandbox, which must work, and
// /bin/sh, which must be refused.
func (s *sandbox) selfTest(gitBin, home string) error {
	run := func(name string, args ...string) error {
		cmd := exec.Command(name, args...) //nolint:gosec // G204: the self-test's own two programs
		cmd.Env, cmd.Dir = []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}, home
		if err := s.start(cmd, nil, false); err != nil {
			return err
		}
		return cmd.Wait()
	}
	if err := run(gitBin, "--version"); err != nil {
		return fmt.Errorf("git does not run in the Landlock sandbox: %w", err)
	}
	if err := run("/bin/sh", "-c", "exit 0"); err == nil {
		return errors.New("the Landlock sandbox did not stop /bin/sh")
	}
	return nil
}
