package gitexec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/sysmem"
)

// Env is the process-wide setting every git child runs with: its own HOME and
// global config file, so neither the user's nor the system's config applies.
type Env struct {
	dir  string
	vars []string
	// slots bounds the git processes running at once (long-lived cat-file
	// readers aside): past it, calls queue instead of piling up processes,
	// served client by client (fairslots.go).
	slots *fairSlots
	// searchSlots bounds the searches among them, so that searches (the
	// costliest class: a client chooses their pattern) cannot take every
	// slot and starve the other tools.
	searchSlots chan struct{}
	// readers bounds the long-lived cat-file readers across repositories.
	readers *readerTable
	// memory caps each git process's data segment (bytes; 0: no cap), so a
	// hostile pattern or object cannot take the host's memory.
	memory uint64
	// sandbox confines every git process (nil: off). See UseSandbox.
	sandbox *sandbox
	// lock is held open, locked, while the home is in use, so that a later
	// start can tell a home left by a killed server (homes.go).
	lock *os.File
}

// searchesDir is the directory of the private home that holds the copies
// work-tree searches make (TempDir).
const searchesDir = "searches"

// NewEnv creates the server's private git home, with the sandbox on where
// the kernel supports it, after removing the homes that servers no longer
// running left in the temporary directory (a server killed with SIGKILL
// cannot remove its own: homes.go). Close removes it.
func NewEnv() (*Env, error) {
	root := os.TempDir()
	sweepHomes(root)
	dir, lock, err := makeHome(root)
	if err != nil {
		return nil, fmt.Errorf("creating git home: %w", err)
	}
	fail := func(err error) (*Env, error) {
		os.RemoveAll(dir)
		closeLock(lock)
		return nil, err
	}
	global := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(global, nil, 0o600); err != nil {
		return fail(fmt.Errorf("creating git config: %w", err))
	}
	if err := os.Mkdir(filepath.Join(dir, searchesDir), 0o700); err != nil {
		return fail(fmt.Errorf("creating git home: %w", err))
	}
	if err := writeDiffDrivers(dir); err != nil {
		return fail(fmt.Errorf("creating git home: %w", err))
	}
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	vars := []string{
		"PATH=" + path,
		"HOME=" + dir,
		"XDG_CONFIG_HOME=" + dir,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + global,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_REPLACE_OBJECTS=1",
		// No grafts: info/grafts would hide commits and give others
		// parents they do not have. The file never exists (a graft file
		// that does, even /dev/null, makes git print a hint each run).
		"GIT_GRAFT_FILE=" + filepath.Join(dir, "no-grafts"),
		"GIT_OPTIONAL_LOCKS=0", // reads never write the index
		"GIT_PAGER=cat",
		"GIT_ASKPASS=",
		"SSH_ASKPASS=",
		// No transport at all: a partial clone's missing object is not
		// fetched (git 2.39 has no GIT_NO_LAZY_FETCH), so neither the
		// repository's remote.*.uploadpack runs nor anything is written.
		// An empty list allows no protocol; only Fetch sets its own.
		transportBan[0], transportBan[1],
		"TMPDIR=" + dir, // git's temporary files go where the sandbox lets it write
	}
	e := &Env{dir: dir, vars: vars, readers: newReaderTable(), lock: lock}
	// The sandbox is on wherever the kernel has it unless UseSandbox says
	// otherwise, so nothing, tests included, runs git unconfined by chance.
	if _, err := e.UseSandbox(SandboxAuto); err != nil {
		return fail(err)
	}
	return e, nil
}

// LimitProcesses lets at most n git commands run at once, searches at most
// half of them, and at most n cat-file readers live across repositories
// (never fewer than one repository may keep: with a small n, reads of one
// repository would queue behind each other); others wait. Call it before
// the Env is used.
func (e *Env) LimitProcesses(n int) {
	e.slots = newFairSlots(n)
	e.searchSlots = make(chan struct{}, max(1, n/2))
	e.readers.max = max(n, MaxReaders)
}

// MaxProcesses is the most git processes alive at once (commands and
// readers), 0 when unbounded.
func (e *Env) MaxProcesses() int { return e.slotCount() + e.readers.max }

// slotCount is how many process slots there are (0: unbounded).
func (e *Env) slotCount() int {
	if e.slots == nil {
		return 0
	}
	return e.slots.size
}

// LimitMemory caps the memory (RLIMIT_DATA) of every git process started
// from now on. Read-only file mappings (pack files) do not count.
func (e *Env) LimitMemory(bytes uint64) { e.memory = bytes }

// ShareMemory caps each git process at an equal share of budget (bytes;
// 0: half of the machine's memory), so that all git processes together,
// at most MaxProcesses of them, stay within it, and at most at perProcess.
// Call it after LimitProcesses. It returns the budget and the cap.
func (e *Env) ShareMemory(budget, perProcess uint64) (total, each uint64) {
	if budget == 0 {
		budget = sysmem.Total() / 2
	}
	each = perProcess
	if n := uint64(e.MaxProcesses()); n > 0 && budget/n < each {
		each = budget / n
	}
	e.memory = each
	return budget, each
}

// acquire waits for a process slot (a search also for a search slot);
// release gives them back.
func (e *Env) acquire(ctx context.Context, search bool) (release func(), err error) {
	if e.slots == nil {
		return func() {}, nil
	}
	releaseSearch := func() {}
	if search {
		select {
		case e.searchSlots <- struct{}{}:
			releaseSearch = func() { <-e.searchSlots }
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	client := callctx.Client(ctx)
	if err := e.slots.acquire(ctx, client); err != nil {
		releaseSearch()
		return nil, err
	}
	return func() { e.slots.release(client); releaseSearch() }, nil
}

// acquireEarly takes a process slot for a command started before it is
// known to be needed, only if one is free now and, of the slots, at least
// one stays out of such commands' hands: a call that holds one and waits
// for a slot for its next command cannot then wait for ever with every
// other such call. false: none taken.
func (e *Env) acquireEarly(ctx context.Context) (release func(), ok bool) {
	if e.slots == nil {
		return func() {}, true
	}
	client := callctx.Client(ctx)
	if !e.slots.tryAcquireEarly(client) {
		return nil, false
	}
	return func() { e.slots.releaseEarly(client) }, true
}

// TempDir makes a new directory in the private home, where the sandbox
// lets git read and write: a work-tree search's index and copies
// (Cmd.PrivateIndex, Cmd.OnPrivateCopy). The caller removes it.
func (e *Env) TempDir() (string, error) {
	return os.MkdirTemp(filepath.Join(e.dir, searchesDir), "")
}

// SlotsInUse is how many process slots are held now (0 when unbounded).
func (e *Env) SlotsInUse() int { return e.slots.inUse() }

// Close removes the private git home, then lets its lock go: while the
// home is being removed, no other start takes it for a leftover.
func (e *Env) Close() error {
	err := os.RemoveAll(e.dir)
	closeLock(e.lock)
	e.lock = nil
	return err
}

// safeConfig overrides, on every git command line, the settings through which
// a repository's own config could run a program, make git read a file of
// its choosing, or change what git prints. Command-line -c beats every
// config file. Diff drivers and textconv are also disabled per command with
// --no-ext-diff and --no-textconv, and what the commands say on their own
// command lines (-U, -M, -l, --indent-heuristic, --root, --no-follow,
// --no-decorate, --no-mailmap, --encoding, --no-ignore-revs-file, ...) is
// not repeated here. README, "Safety", lists
// every key and why.
var safeConfig = []string{
	// Programs.
	"core.fsmonitor=false",
	"core.hooksPath=/dev/null",
	"core.pager=cat",
	"credential.helper=",
	"core.askPass=",
	"core.sshCommand=false",
	"protocol.ext.allow=never",
	// Files the repository would have git read (a FIFO there hangs git;
	// outside the sandbox, a host file would order or shape the reply).
	"core.attributesFile=/dev/null",
	"core.excludesFile=/dev/null",
	"diff.orderFile=/dev/null", // read as no order: git's own
	// (mailmap.file and mailmap.blob: blame's own -c; log has --no-mailmap)
	// What a patch holds and in what order: git's defaults.
	"diff.context=3",
	"diff.interHunkContext=0",
	"diff.algorithm=default",
	"diff.suppressBlankEmpty=false",
	"diff.noprefix=false", // patches keep their a/ and b/ prefixes
	"diff.mnemonicPrefix=false",
	"diff.relative=false",
	"diff.dirstat=changes,noncumulative,3",
	"diff.colorMoved=false",
	"core.abbrev=auto",           // the index lines' abbreviated ids
	"core.bigFileThreshold=512m", // smaller, text files would read as binary
	"core.quotePath=true",
	"color.ui=false",
	"color.diff=false", // color.<command> beats color.ui
	"color.grep=false",
	"color.decorate=false",
	// What a log, a blame or a grep prints.
	"log.showSignature=false",
	"blame.showRoot=false", // a root commit's lines stay "boundary"
	"blame.blankBoundary=false",
	"blame.markUnblamableLines=false",
	"blame.markIgnoredLines=false",
	"grep.column=false",
	"grep.lineNumber=false",
	"grep.patternType=basic", // -F, -E, -P on the command line still win
	"grep.extendedRegexp=false",
	"grep.threads=0", // as many as cores, not as many as the config asks
	// No writes, no state kept.
	"core.untrackedCache=false",
	"gc.auto=0",
	"maintenance.auto=false",
	// Submodules are shown as their commit ids, never entered: a diff that
	// enters one starts a git child in the submodule's own repository,
	// with its config and none of these settings or flags.
	"diff.submodule=short",
	"submodule.recurse=false",
	"fetch.recurseSubmodules=false",
	"diff.ignoreSubmodules=none",
}
