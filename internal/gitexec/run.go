package gitexec

import (
	"bytes"
	"cmp"
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

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
)

// maxStderr caps what is kept of a git process's stderr.
const maxStderr = 8 << 10

// MaxOutput caps what Output collects; larger answers must be streamed
// (and callers that collect a stream keep to it too).
const MaxOutput = 16 << 20

// Repo starts git against one repository.
type Repo struct {
	env      *Env
	gitDir   string  // absolute
	workTree string  // absolute; "" for a bare repository
	readers  Idler   // the repository's long-lived readers, which the reader table may retire
	commands holding // the process slots the repository's commands hold (Env.commandShare)

	storeOnce  sync.Once
	grantsOnce sync.Once
	layout     gitdir.Store // gitdir.ReadStore's, found once (zero when it failed)
	layoutErr  error
	store      []grant  // the sandbox's reads: the layout's directories
	confine    []string // if set, only store directories below one of these are granted

	rulesMu sync.Mutex
	rules   [2]*os.File // the sandbox's rulesets, made once: [1] also reads the work tree
}

// Open returns the runner of the repository at gitDir (absolute). workTree
// is "" for a bare repository. readers are the repository's long-lived
// readers (nil: none), counted in the Env's reader table, which may retire
// the one idle the longest when another repository needs room.
func Open(env *Env, gitDir, workTree string, readers Idler) *Repo {
	r := &Repo{env: env, gitDir: gitDir, workTree: workTree, readers: readers}
	env.readers.add(r)
	return r
}

// GitDir is the repository's absolute git directory.
func (r *Repo) GitDir() string { return r.gitDir }

// WorkTree is the absolute work tree, or "" for a bare repository.
func (r *Repo) WorkTree() string { return r.workTree }

// Close takes the repository out of the reader table and lets go of its
// sandbox rulesets (a start already using one keeps it until it is done).
// The caller ends its long-lived readers first.
func (r *Repo) Close() {
	r.env.readers.remove(r)
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
// started by Repo.Start. The command puts values from the caller
// only after --end-of-options or "--", or as the value of an option that
// takes one (see Cmd).
func (r *Repo) execCmd(ctx context.Context, c *Cmd) *exec.Cmd {
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
	if c.diffDrivers {
		argv = append(argv, "-c", "core.attributesFile="+cmp.Or(c.attributesFile, filepath.Join(r.env.dir, diffDriversFile)))
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
	if c.diffDrivers {
		// No index: the work tree named (the private home) holds no
		// .gitattributes, and git would read the index's, over the
		// drivers given.
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], "GIT_INDEX_FILE="+filepath.Join(r.env.dir, noIndexFile))
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

// Output runs a command and returns its stdout, which must stay under
// MaxOutput.
func (r *Repo) Output(ctx context.Context, c *Cmd) ([]byte, error) {
	var out []byte
	err := r.Stream(ctx, c, func(stdout io.Reader) error {
		var err error
		out, err = io.ReadAll(io.LimitReader(stdout, MaxOutput+1))
		if err == nil && len(out) > MaxOutput {
			err = fmt.Errorf("git %s: output over %d bytes", c.Sub(), MaxOutput)
		}
		return err
	})
	return out, err
}

// Stream runs a command and hands its stdout to consume. When consume
// returns before the end of the output, git is killed: nothing is produced
// that is not read. A command on the work tree (OnWorkTree) is only ever
// git grep: it reads work-tree files as they are.
func (r *Repo) Stream(ctx context.Context, c *Cmd, consume func(stdout io.Reader) error) error {
	ran, err := r.streamUntil(ctx, c, consume)
	if cause := context.Cause(ctx); ran && cause != nil && errors.Is(err, cause) {
		return r.BlockedBy(cause) // git was stopped by the call's end: say what it may have waited on
	}
	return err
}

// streamUntil is stream's work; ran says whether git started.
func (r *Repo) streamUntil(ctx context.Context, c *Cmd, consume func(stdout io.Reader) error) (ran bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := r.Start(ctx, ctx, c, false)
	if err != nil {
		return false, err
	}
	consumeErr := consume(p.Stdout)
	// Whatever consume left unread is not wanted: stop git rather than
	// letting it produce the rest.
	drained := consumeErr == nil && isDrained(p.Stdout)
	if !drained {
		cancel()
	}
	waitErr := p.Wait()
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
		if refused := r.Refusal(p.stderr.String()); refused != nil && exit.ExitCode() == 128 {
			return true, fmt.Errorf("git %s: %w", c.Sub(), refused)
		}
		return true, &ExitError{Args: c.args, Code: exit.ExitCode(), Stderr: p.stderr.String()}
	}
	return true, waitErr
}

// RunWriting runs one of the commands that write a mirror (init, fetch,
// symbolic-ref; see Cmd.Writing) to its end.
func (r *Repo) RunWriting(ctx context.Context, c *Cmd) error {
	if !c.writes {
		return fmt.Errorf("git %s: not a writing command", c.Sub())
	}
	p, err := r.Start(ctx, ctx, c, false)
	if err != nil {
		return err
	}
	if err := p.Wait(); err != nil {
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
