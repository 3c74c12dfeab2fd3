package gitexec

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
)

// Process is a started git process.
type Process struct {
	Stdin   io.WriteCloser // nil unless asked for
	Stdout  io.ReadCloser  // nil for a writing command (its output is discarded)
	cmd     *exec.Cmd
	stderr  *capped
	release func() // gives back the process's room
	// yield lowers the process's CPU priority if it runs long while
	// other clients are active (nil: never); reaping: Wait has begun,
	// after which its pid may be another process's.
	yield   *time.Timer
	mu      sync.Mutex
	reaping bool
}

// Wait waits for the process to end and gives back its room.
func (p *Process) Wait() error {
	p.mu.Lock()
	p.reaping = true
	if p.yield != nil {
		p.yield.Stop()
	}
	p.mu.Unlock()
	err := p.cmd.Wait()
	p.release()
	return err
}

// yieldAfter is how long a command of a client runs before, if other
// clients are active, it yields the CPU to theirs (nice 19): a call's
// command that runs this long is an expensive one, whatever its tool.
const yieldAfter = 500 * time.Millisecond

// yieldWhenLong lowers p's priority once it has run yieldAfter, if its
// client, named, has others active then (fairSlots.othersActive).
func (p *Process) yieldWhenLong(slots *fairSlots, client string) {
	if slots == nil || client == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.yield = time.AfterFunc(yieldAfter, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.reaping && slots.othersActive(client) { // not reaped: the pid is still p's
			lowerPriority(p.cmd.Process.Pid, lowPriority)
		}
	})
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stderr is what the process wrote to stderr, its first 8 KiB: complete
// once Wait returned.
func (p *Process) Stderr() string { return p.stderr.String() }

// Start is the one way a git process starts. It waits (under wait) for the
// room the command's kind takes (a process slot, also a search slot for a
// search, room in the reader table for a long-lived reader; a writing
// command is bounded by its caller), makes the command line with the clean
// environment and the -c settings (execCmd: its own process group, ended
// with ctx), starts it in the sandbox with the grants the command needs
// (the repository's store; its work tree for a command on the work tree;
// writing its git directory, and the network, for a writing command), and
// caps its memory. The caller ends it with Wait.
func (r *Repo) Start(wait, ctx context.Context, c *Cmd, stdin bool) (*Process, error) {
	if c.err != nil {
		return nil, c.err
	}
	release, err := r.acquire(wait, c.room)
	if err != nil {
		return nil, err
	}
	if len(c.driverLines) > 0 {
		path, remove, err := r.writeDriverFile(c)
		if err != nil {
			release()
			return nil, err
		}
		c.attributesFile = path
		held := release
		release = func() { held(); remove() }
	}
	p, err := r.startProcess(ctx, c, stdin)
	if err != nil {
		release()
		return nil, err
	}
	if c.room != roomReader { // a reader serves every client's calls
		client := callctx.Client(ctx)
		if n := r.env.slots.niceness(client); n > 0 {
			lowerPriority(p.cmd.Process.Pid, n) // best effort: it only yields the CPU
		} else {
			p.yieldWhenLong(r.env.slots, client)
		}
	}
	p.release = release
	return p, nil
}

// SearchSlot takes a search slot and a process slot for steps that run in
// it one after another (Cmd.InCallersSlot), such as a work-tree search's.
func (r *Repo) SearchSlot(ctx context.Context) (release func(), err error) {
	return r.acquire(ctx, roomSearch)
}

// EarlySlot takes room for a command started before it is known to be
// needed (run in it with Cmd.InCallersSlot): the repository's share, then
// an Env slot, each only if room stays for a needed command, so that calls
// that each hold one and wait for a slot for their next command cannot wait
// on each other until their deadlines. false: none taken.
func (r *Repo) EarlySlot(ctx context.Context) (release func(), ok bool) {
	if r.env.slots == nil {
		return func() {}, true
	}
	if !r.commands.tryAcquireEarly(r.env.commandShare()) {
		return nil, false
	}
	slot, ok := r.env.acquireEarly(ctx)
	if !ok {
		r.commands.releaseEarly()
		return nil, false
	}
	return func() { slot(); r.commands.releaseEarly() }, true
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
			// The slot time is charged to the call's connection within
			// its client (fairslots.go).
			start, client, caller := time.Now(), callctx.Client(ctx), callctx.Caller(ctx)
			return func() {
				slot()
				r.commands.release()
				r.env.slots.charge(client, caller, time.Since(start))
			}, nil
		}
		slot()
		if err := r.commands.waitBelow(ctx, share); err != nil {
			return nil, err
		}
	}
}

func (r *Repo) startProcess(ctx context.Context, c *Cmd, stdin bool) (*Process, error) {
	if c.privateTree != "" && !gitdir.Within(r.env.dir, c.privateTree) {
		return nil, fmt.Errorf("git %s: a private tree outside the private home", c.Sub())
	}
	cmd := r.execCmd(ctx, c)
	p := &Process{cmd: cmd, stderr: &capped{max: maxStderr}}
	cmd.Stderr = p.stderr
	var err error
	if stdin {
		if p.Stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
	}
	if c.writes {
		cmd.Stdout = io.Discard
	} else if p.Stdout, err = cmd.StdoutPipe(); err != nil {
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
			name += " " + c.Sub()
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
	st, err := r.Store()
	r.grantsOnce.Do(func() {
		dirs := []string{r.gitDir}
		if err == nil {
			dirs = st.Dirs()
		}
		for _, d := range dirs {
			if r.confine == nil || slices.ContainsFunc(r.confine, func(c string) bool { return gitdir.Within(c, d) }) {
				r.store = append(r.store, grant{d, accessRead})
			}
		}
	})
	return r.store
}

// Store is where the repository's data lives (gitdir.ReadStore), found
// once: git can read no directory but these anyway (storeGrants).
func (r *Repo) Store() (gitdir.Store, error) {
	r.storeOnce.Do(func() { r.layout, r.layoutErr = gitdir.ReadStore(r.gitDir) })
	return r.layout, r.layoutErr
}
