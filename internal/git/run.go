package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// maxStderr caps what is kept of a git process's stderr.
const maxStderr = 8 << 10

// maxOutput caps what Output collects; larger answers must be streamed.
const maxOutput = 16 << 20

// Repo runs git against one repository.
type Repo struct {
	env      *Env
	gitDir   string // absolute
	workTree string // absolute; "" for a bare repository
	objects  *objectPool
	memo     memo // answers that depend only on commit ids

	storeOnce sync.Once
	store     []grant  // the sandbox's reads: the directories ReadStore finds
	confine   []string // if set, only store directories below one of these are granted

	rulesMu sync.Mutex
	rules   [2]*os.File // the sandbox's rulesets, made once: [1] also reads the work tree
}

// Open returns a runner for the repository at gitDir (absolute). workTree is
// "" for a bare repository.
func Open(env *Env, gitDir, workTree string) *Repo {
	r := &Repo{env: env, gitDir: gitDir, workTree: workTree}
	r.objects = newObjectPool(r)
	return r
}

// GitDir is the repository's absolute git directory.
func (r *Repo) GitDir() string { return r.gitDir }

// WorkTree is the absolute work tree, or "" for a bare repository.
func (r *Repo) WorkTree() string { return r.workTree }

// Close ends the repository's long-lived git processes and lets go of its
// sandbox rulesets (a start already using one keeps it until it is done).
func (r *Repo) Close() {
	r.objects.close()
	r.rulesMu.Lock()
	defer r.rulesMu.Unlock()
	for i, f := range r.rules {
		if f != nil {
			f.Close()
			r.rules[i] = nil
		}
	}
}

// ExitError is a git process that failed.
type ExitError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *ExitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("git %s: %s", e.Args[0], msg)
}

// command builds the git command line: fixed global options first, then the
// caller's arguments. Callers put user values only after --end-of-options or
// "--", never where git parses options. workTree is what --work-tree names
// (see workTreeFor); "" names none, which only git init needs.
func (r *Repo) command(ctx context.Context, workTree string, args []string) *exec.Cmd {
	argv := make([]string, 0, 2+2*len(safeConfig)+len(args))
	argv = append(argv, "--git-dir="+r.gitDir)
	if len(args) == 0 || args[0] != "grep" {
		// Paths are literal. The exception is grep, whose pathspecs Grep
		// builds itself, each with explicit magic (glob, exclude).
		argv = append(argv, "--literal-pathspecs")
	}
	if workTree != "" {
		argv = append(argv, "--work-tree="+workTree)
	}
	if !withoutSettings {
		for _, kv := range safeConfig {
			argv = append(argv, "-c", kv)
		}
	}
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, "git", argv...)
	cmd.Env = r.env.vars
	if withoutSettings {
		cmd.Env = slices.DeleteFunc(slices.Clone(cmd.Env), func(kv string) bool { return slices.Contains(transportBan, kv) })
	}
	cmd.Dir = r.env.dir // never the repository: git must not discover anything from cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// End the whole group: git may have started helpers of its own.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// workTreeFor is the --work-tree of a command: the repository's own only for
// commands that read it. Otherwise the private home, which holds no tracked
// file: left unnamed, git would take core.worktree from the repository's
// config (or the current directory), and a command comparing it with the
// index would run the repository's filters there.
func (r *Repo) workTreeFor(withWorkTree bool) string {
	if withWorkTree && r.workTree != "" {
		return r.workTree
	}
	return r.env.dir
}

// withoutSettings takes the first wall down: safeConfig leaves every command
// line and the transport ban the environment. Only tests set it, to show
// that the sandbox alone stops what the settings stop.
var withoutSettings bool

// transportBan are the environment entries that allow no transport.
var transportBan = []string{"GIT_ALLOW_PROTOCOL=", "GIT_PROTOCOL_FROM_USER=0"}

// start starts a command of this repository: in the sandbox, allowed to
// read the repository's own directories (and its work tree when the command
// reads it), then caps its memory.
func (r *Repo) start(cmd *exec.Cmd, withWorkTree bool) error {
	var err error
	if r.env.sandbox == nil {
		err = cmd.Start()
	} else {
		var rules *os.File
		if rules, err = r.ruleset(withWorkTree && r.workTree != ""); err == nil {
			err = r.env.sandbox.startWith(cmd, rules)
		}
	}
	if err != nil {
		return err
	}
	r.env.capMemory(cmd.Process.Pid)
	return nil
}

// ruleset is the repository's sandbox ruleset, made on first use: building
// one costs more than a tenth of a millisecond, a start uses it in a few
// microseconds.
func (r *Repo) ruleset(withWorkTree bool) (*os.File, error) {
	i := 0
	if withWorkTree {
		i = 1
	}
	r.rulesMu.Lock()
	defer r.rulesMu.Unlock()
	if r.rules[i] != nil {
		return r.rules[i], nil
	}
	grants := r.storeGrants()
	if withWorkTree {
		grants = append(grants[:len(grants):len(grants)], grant{r.workTree, accessRead})
	}
	rules, err := r.env.sandbox.ruleset(grants, false)
	if err == nil {
		r.rules[i] = rules
	}
	return rules, err
}

// ConfineReads keeps the sandbox from granting reads on any of the
// repository's directories outside dirs (absolute, symlinks resolved), such
// as alternates elsewhere: the served root, or the served repository's own
// directories. Package repo refuses such repositories before serving them;
// this holds even if that check is wrong. Call it before any git process
// of the repository starts.
func (r *Repo) ConfineReads(dirs ...string) { r.confine = dirs }

// storeGrants lets git read the directories the repository's data lives
// in, found once.
func (r *Repo) storeGrants() []grant {
	r.storeOnce.Do(func() {
		dirs := []string{r.gitDir}
		if st, err := ReadStore(r.gitDir); err == nil {
			dirs = st.Dirs()
		}
		for _, d := range dirs {
			if r.confine == nil || slices.ContainsFunc(r.confine, func(c string) bool { return below(c, d) }) {
				r.store = append(r.store, grant{d, accessRead})
			}
		}
	})
	return r.store
}

// below reports whether p is dir or below it (both clean and absolute).
func below(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// Output runs git and returns its stdout, which must stay under maxOutput.
func (r *Repo) Output(ctx context.Context, args ...string) ([]byte, error) {
	var out []byte
	err := r.Stream(ctx, args, func(stdout io.Reader) error {
		var err error
		out, err = io.ReadAll(io.LimitReader(stdout, maxOutput+1))
		if err == nil && len(out) > maxOutput {
			err = fmt.Errorf("git %s: output over %d bytes", args[0], maxOutput)
		}
		return err
	})
	return out, err
}

// Stream runs git and hands its stdout to consume. When consume returns before
// the end of the output, git is killed: nothing is produced that is not read.
func (r *Repo) Stream(ctx context.Context, args []string, consume func(stdout io.Reader) error) error {
	return r.stream(ctx, false, args, consume)
}

// StreamWorkTree is Stream for commands that read the work tree, which is
// only `git grep`: it reads work-tree files as they are. Commands that
// compare the work tree with the index (status, diff without two revisions,
// ls-files -m) hash changed files through the repository's clean filters
// (filter.<driver>.clean, chosen by .gitattributes), programs the repository
// names that no command-line setting turns off in git 2.39.
func (r *Repo) StreamWorkTree(ctx context.Context, args []string, consume func(stdout io.Reader) error) error {
	if len(args) == 0 || args[0] != "grep" {
		return fmt.Errorf("git: %q does not run on the work tree (only grep does: other commands can run the repository's filters)", strings.Join(args[:min(1, len(args))], ""))
	}
	return r.stream(ctx, true, args, consume)
}

func (r *Repo) stream(ctx context.Context, withWorkTree bool, args []string, consume func(io.Reader) error) error {
	release, err := r.env.acquire(ctx, len(args) > 0 && args[0] == "grep")
	if err != nil {
		return err
	}
	defer release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := r.command(ctx, r.workTreeFor(withWorkTree), args)
	stderr := &capped{max: maxStderr}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := r.start(cmd, withWorkTree); err != nil {
		return fmt.Errorf("starting git: %w", err)
	}
	consumeErr := consume(stdout)
	// Whatever consume left unread is not wanted: stop git rather than
	// letting it produce the rest.
	drained := consumeErr == nil && isDrained(stdout)
	if !drained {
		cancel()
	}
	waitErr := cmd.Wait()
	if consumeErr != nil {
		return consumeErr
	}
	if ctxErr := context.Cause(ctx); ctxErr != nil && drained {
		return ctxErr
	}
	if !drained {
		return nil // git was stopped on purpose
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		return &ExitError{Args: args, Code: exit.ExitCode(), Stderr: stderr.String()}
	}
	return waitErr
}

// isDrained reports whether r is at EOF, reading at most one byte.
func isDrained(r io.Reader) bool {
	var b [1]byte
	n, err := r.Read(b[:])
	return n == 0 && err != nil
}

// capped keeps the first max bytes written to it.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }
