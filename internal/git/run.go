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
	"time"
)

// maxStderr caps what is kept of a git process's stderr.
const maxStderr = 8 << 10

// maxOutput caps what output collects; larger answers must be streamed.
const maxOutput = 16 << 20

// Repo runs git against one repository.
type Repo struct {
	env      *Env
	gitDir   string // absolute
	workTree string // absolute; "" for a bare repository
	objects  *objectPool
	memo     memo       // answers that depend only on commit ids
	refs     refCache   // branch names resolved, kept while their files stay as they were
	commands holding    // the process slots the repository's commands hold (Env.commandShare)
	index    indexCache // the index's listing, kept while the index file stays as it was

	storeOnce  sync.Once
	grantsOnce sync.Once
	layout     Store // ReadStore's, found once (zero when it failed)
	layoutErr  error
	store      []grant  // the sandbox's reads: the layout's directories
	confine    []string // if set, only store directories below one of these are granted

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

// execCmd turns a command into the process to run: fixed global options
// first, then the command's own. Every git process is made here, and
// started by Repo.start. The command puts values from outside the package
// only after --end-of-options or "--", or as the value of an option that
// takes one (see command).
func (r *Repo) execCmd(ctx context.Context, c *command) *exec.Cmd {
	argv := make([]string, 0, 3+2*len(safeConfig)+len(c.global)+len(c.args))
	argv = append(argv, "--git-dir="+r.gitDir)
	if !c.magicPathspecs {
		// Paths are literal. The exception is grep, whose pathspecs Grep
		// builds itself, each with explicit magic (glob, exclude).
		argv = append(argv, "--literal-pathspecs")
	}
	switch {
	case c.privateTree != "":
		argv = append(argv, "--work-tree="+c.privateTree)
	case !c.noWorkTree:
		argv = append(argv, "--work-tree="+r.workTreeFor(c.workTree))
	}
	if !withoutSettings {
		for _, kv := range safeConfig {
			argv = append(argv, "-c", kv)
		}
	}
	argv = append(argv, c.global...)
	argv = append(argv, c.args...)
	cmd := exec.CommandContext(ctx, "git", argv...) //nolint:gosec // G204: the one place git starts; argv is built by the command builder
	cmd.Env = r.env.vars
	if withoutSettings {
		cmd.Env = slices.DeleteFunc(slices.Clone(cmd.Env), func(kv string) bool { return slices.Contains(transportBan, kv) })
	}
	if len(c.env) > 0 {
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], c.env...) // later entries win
	}
	cmd.Dir = r.env.dir // never the repository: git must not discover anything from cwd
	ownGroup(cmd)
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

// process is a started git process.
type process struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser // nil unless asked for
	stdout  io.ReadCloser  // nil for a writing command (its output is discarded)
	stderr  *capped
	release func() // gives back the process's room
}

// wait waits for the process to end and gives back its room.
func (p *process) wait() error {
	err := p.cmd.Wait()
	p.release()
	return err
}

// start is the one way a git process starts. It waits (under wait) for the
// room the command's kind takes (a process slot, also a search slot for a
// search, room in the reader table for a long-lived reader; a writing
// command is bounded by its caller), makes the command line with the clean
// environment and the -c settings (execCmd: its own process group, ended
// with ctx), starts it in the sandbox with the grants the command needs
// (the repository's store; its work tree for a command on the work tree;
// writing its git directory, and the network, for a writing command), and
// caps its memory. The caller ends it with wait.
func (r *Repo) start(wait, ctx context.Context, c *command, stdin bool) (*process, error) {
	if c.err != nil {
		return nil, c.err
	}
	release, err := r.acquire(wait, c.room)
	if err != nil {
		return nil, err
	}
	p, err := r.startProcess(ctx, c, stdin)
	if err != nil {
		release()
		return nil, err
	}
	p.release = release
	return p, nil
}

// acquire waits for the room a kind of process takes.
func (r *Repo) acquire(ctx context.Context, kind room) (release func(), err error) {
	switch kind {
	case roomReader:
		table := r.env.readers
		if err := table.acquire(ctx); err != nil {
			return nil, err
		}
		return table.release, nil
	case roomCaller:
		return func() {}, nil
	}
	if r.env.slots == nil {
		return func() {}, nil
	}
	// A slot, in the client's turn (fairslots.go), then the repository's
	// share: past it, the slot is given back and the call waits without
	// one another repository could use. (Waiting for the share first
	// would count calls that wait for a slot in the share, first come
	// first served, whoever their client.)
	for {
		slot, err := r.env.acquire(ctx, kind == roomSearch)
		if err != nil {
			return nil, err
		}
		share := r.env.commandShare()
		if r.commands.tryAcquire(share) {
			return func() { slot(); r.commands.release() }, nil
		}
		slot()
		if err := r.commands.waitBelow(ctx, share); err != nil {
			return nil, err
		}
	}
}

func (r *Repo) startProcess(ctx context.Context, c *command, stdin bool) (*process, error) {
	cmd := r.execCmd(ctx, c)
	p := &process{cmd: cmd, stderr: &capped{max: maxStderr}}
	cmd.Stderr = p.stderr
	var err error
	if stdin {
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
	}
	if c.writes {
		cmd.Stdout = io.Discard
	} else if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	switch {
	case c.writes:
		err = r.env.startIn(cmd, []grant{{r.gitDir, accessWrite}}, c.network != "")
	case r.env.sandbox == nil:
		err = cmd.Start()
	default:
		var rules *os.File
		if rules, err = r.ruleset(c.workTree && r.workTree != ""); err == nil {
			err = r.env.sandbox.startWith(cmd, rules)
		}
	}
	if err != nil {
		name := "git"
		if c.room == roomReader {
			name += " " + c.sub()
		}
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	if err := r.env.capMemory(cmd.Process.Pid); err != nil {
		// Uncapped, it must not run: end it before it does any work.
		_ = cmd.Cancel()
		_ = cmd.Wait()
		return nil, fmt.Errorf("capping the memory of git: %w", err)
	}
	return p, nil
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
	st, err := r.storeLayout()
	r.grantsOnce.Do(func() {
		dirs := []string{r.gitDir}
		if err == nil {
			dirs = st.Dirs()
		}
		for _, d := range dirs {
			if r.confine == nil || slices.ContainsFunc(r.confine, func(c string) bool { return Within(c, d) }) {
				r.store = append(r.store, grant{d, accessRead})
			}
		}
	})
	return r.store
}

// storeLayout is ReadStore's answer for the repository, found once: git
// can read no directory but these anyway (storeGrants).
func (r *Repo) storeLayout() (Store, error) {
	r.storeOnce.Do(func() { r.layout, r.layoutErr = ReadStore(r.gitDir) })
	return r.layout, r.layoutErr
}

// Within reports whether p is dir or below it (both clean and absolute).
func Within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// output runs a command and returns its stdout, which must stay under
// maxOutput.
func (r *Repo) output(ctx context.Context, c *command) ([]byte, error) {
	var out []byte
	err := r.stream(ctx, c, func(stdout io.Reader) error {
		var err error
		out, err = io.ReadAll(io.LimitReader(stdout, maxOutput+1))
		if err == nil && len(out) > maxOutput {
			err = fmt.Errorf("git %s: output over %d bytes", c.sub(), maxOutput)
		}
		return err
	})
	return out, err
}

// stream runs a command and hands its stdout to consume. When consume
// returns before the end of the output, git is killed: nothing is produced
// that is not read. A command on the work tree (onWorkTree) is only ever
// git grep: it reads work-tree files as they are.
func (r *Repo) stream(ctx context.Context, c *command, consume func(stdout io.Reader) error) error {
	ran, err := r.streamUntil(ctx, c, consume)
	if cause := context.Cause(ctx); ran && cause != nil && errors.Is(err, cause) {
		return r.blockedBy(cause) // git was stopped by the call's end: say what it may have waited on
	}
	return err
}

// streamUntil is stream's work; ran says whether git started.
func (r *Repo) streamUntil(ctx context.Context, c *command, consume func(stdout io.Reader) error) (ran bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := r.start(ctx, ctx, c, false)
	if err != nil {
		return false, err
	}
	consumeErr := consume(p.stdout)
	// Whatever consume left unread is not wanted: stop git rather than
	// letting it produce the rest.
	drained := consumeErr == nil && isDrained(p.stdout)
	if !drained {
		cancel()
	}
	waitErr := p.wait()
	if consumeErr != nil {
		return true, consumeErr
	}
	if ctxErr := context.Cause(ctx); ctxErr != nil && drained {
		return true, ctxErr
	}
	if !drained {
		return true, nil // git was stopped on purpose
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		// git dies (128) on a refusal; a grep that found nothing (1) may
		// have warned about files it could not read.
		if refused := r.refusal(p.stderr.String()); refused != nil && exit.ExitCode() == 128 {
			return true, fmt.Errorf("git %s: %w", c.sub(), refused)
		}
		return true, &ExitError{Args: c.args, Code: exit.ExitCode(), Stderr: p.stderr.String()}
	}
	return true, waitErr
}

// runWriting runs one of the commands that write a mirror (init, fetch,
// symbolic-ref; see command.writing) to its end.
func (r *Repo) runWriting(ctx context.Context, c *command) error {
	if !c.writes {
		return fmt.Errorf("git %s: not a writing command", c.sub())
	}
	p, err := r.start(ctx, ctx, c, false)
	if err != nil {
		return err
	}
	if err := p.wait(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(p.stderr.String()))
	}
	return nil
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
