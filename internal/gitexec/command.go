package gitexec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Arg is an argument the code wrote: a flag, a subcommand, a fixed
// operand. Only a string constant becomes one without a conversion in
// plain sight, and no code under internal/ converts a computed string to
// Arg but IntArg (TestArgsAreConstants). A value that comes from anywhere
// else (a caller, a repository, the forge) is a string, and a string enters
// a command line only through the methods below, which put it where git
// cannot read it as an option.
type Arg string

// IntArg is a flag with a number the package computed, such as -U3.
func IntArg(flag Arg, n int) Arg { return flag + Arg(strconv.Itoa(n)) }

// room says what bounds a kind of git process (see Repo.acquire).
type room int

const (
	roomCommand room = iota // a process slot
	roomSearch              // a search slot and a process slot
	roomReader              // room in the Env's reader table, held until the process ends
	roomCaller              // bounded by its caller (forge.Mirrors, or a slot it holds), not by the slots
)

// stage is how far a command line has got: git reads options only in the
// first.
type stage int

const (
	stageOptions   stage = iota // options, and the values of options that take one
	stageEndOfOpts              // after --end-of-options: revisions and other operands
	stagePathspecs              // after "--": paths
)

// Cmd is one git command line and how it is to run. The runner adds
// the fixed global options (--git-dir, --literal-pathspecs unless the
// command's pathspecs carry their own magic, --work-tree, the -c settings)
// before it; see Repo.Start, the one way a git process starts.
type Cmd struct {
	args  []string // the subcommand and its arguments
	stage stage
	err   error // the first value refused; the command does not run

	// global are options before the subcommand, after the runner's own.
	global []string
	// magicPathspecs: the pathspecs say their own magic (glob, exclude),
	// so the command runs without --literal-pathspecs. Set only by
	// Grep; such a command takes no plain paths.
	magicPathspecs bool
	// readsFilesAsTheyAre: the command may run on the repository's work
	// tree. Set only by Grep: git grep reads work-tree files as they
	// are, whereas commands that compare the work tree with the index hash
	// changed files through the repository's clean filters, programs the
	// repository names that no command-line setting turns off in git 2.39.
	readsFilesAsTheyAre bool
	// workTree: run on the repository's own work tree (OnWorkTree).
	// Otherwise --work-tree names the private home, or nothing (WithoutWorkTree).
	workTree   bool
	noWorkTree bool
	// privateTree is the --work-tree of a work-tree search on copies the
	// server made (a directory of its private home; OnPrivateCopy).
	privateTree string
	room        room
	// writes: the sandbox lets the command write the repository's git
	// directory (and nothing else); its output is discarded. network is
	// the one protocol it may use ("": none); env are environment entries
	// added after the clean environment (later entries win): a writing
	// command's, or GIT_FLUSH=0 (FullyBuffered).
	writes  bool
	network string
	env     []string
	// diffDrivers: the command reads the server's table of diff drivers
	// as its attributes file (diffdrivers.go), with driverLines after it
	// (in attributesFile, a file Start writes for the command).
	diffDrivers    bool
	driverLines    []string
	attributesFile string
}

// Command starts a command line: the subcommand and its fixed options.
func Command(sub Arg, flags ...Arg) *Cmd {
	c := &Cmd{args: []string{string(sub)}}
	return c.Flags(flags...)
}

// Grep starts a git grep command line. A search takes a search slot
// as well as a process slot; its pathspecs carry explicit magic (see
// pathspecs), so it runs without --literal-pathspecs; and it is the one
// command that may run on the work tree (OnWorkTree).
func Grep(flags ...Arg) *Cmd {
	c := Command("grep", flags...)
	c.room = roomSearch
	c.magicPathspecs = true
	c.readsFilesAsTheyAre = true
	return c
}

// Args is the command line after the runner's global options: for
// messages and tests.
func (c *Cmd) Args() []string { return slices.Clone(c.args) }

// Settings are the command's own -c settings (key=value): for tests.
func (c *Cmd) Settings() []string {
	var kv []string
	for i := 1; i < len(c.global); i += 2 {
		kv = append(kv, c.global[i])
	}
	return kv
}

// Env is what the command adds to the clean environment: for tests.
func (c *Cmd) Env() []string { return slices.Clone(c.env) }

// Sub is the subcommand, for messages.
func (c *Cmd) Sub() string {
	if len(c.args) == 0 {
		return ""
	}
	return c.args[0]
}

func (c *Cmd) refuse(format string, a ...any) *Cmd {
	if c.err == nil {
		c.err = fmt.Errorf("git %s: "+format, append([]any{c.Sub()}, a...)...)
	}
	return c
}

// Flags adds options (and fixed operands) the package wrote.
func (c *Cmd) Flags(flags ...Arg) *Cmd {
	if len(flags) > 0 && c.stage != stageOptions {
		return c.refuse("option %q after the operands", flags[0])
	}
	for _, f := range flags {
		c.args = append(c.args, string(f))
	}
	return c
}

// FlagValue adds an option that takes a value and the value as the next
// argument, such as -e PATTERN or --blob NAME: git takes the argument after
// such an option as its value whatever it starts with.
func (c *Cmd) FlagValue(flag Arg, value string) *Cmd {
	if c.stage != stageOptions {
		return c.refuse("option %q after the operands", flag)
	}
	c.args = append(c.args, string(flag), value)
	return c
}

// Config adds -c key=value before the subcommand, after the runner's own
// settings (so it wins over them); it stays when a test takes those away.
func (c *Cmd) Config(kv Arg) *Cmd {
	c.global = append(c.global, "-c", string(kv))
	return c
}

// Revs adds revisions (or other operands, such as a ref or config key)
// after --end-of-options, put there once. One that starts with "-" is
// refused all the same: no caller has a reason to pass one.
func (c *Cmd) Revs(revs ...string) *Cmd {
	if c.stage == stagePathspecs {
		return c.refuse("revisions after the paths")
	}
	if c.stage == stageOptions {
		c.args = append(c.args, "--end-of-options")
		c.stage = stageEndOfOpts
	}
	for _, r := range revs {
		if strings.HasPrefix(r, "-") {
			return c.refuse("%q could be read as an option", r)
		}
		c.args = append(c.args, r)
	}
	return c
}

// Rev adds one revision or ref name where git also reads options, for
// commands without --end-of-options (git grep takes none in 2.39) and
// command lines that never had one: refused if it starts with "-".
func (c *Cmd) Rev(rev string) *Cmd {
	if c.stage == stagePathspecs {
		return c.refuse("revisions after the paths")
	}
	if strings.HasPrefix(rev, "-") {
		return c.refuse("%q could be read as an option", rev)
	}
	c.args = append(c.args, rev)
	return c
}

// dashes puts "--" on the command line once.
func (c *Cmd) dashes() {
	if c.stage != stagePathspecs {
		c.args = append(c.args, "--")
		c.stage = stagePathspecs
	}
}

// Paths adds literal paths after "--" (put there even when there are no
// paths). They are literal because the runner passes --literal-pathspecs;
// a command whose pathspecs carry magic takes none. Fetch passes its
// remote and refspecs here too: after "--" git reads no option.
func (c *Cmd) Paths(paths ...string) *Cmd {
	if c.magicPathspecs {
		return c.refuse("plain paths on a command whose pathspecs carry magic")
	}
	c.dashes()
	c.args = append(c.args, paths...)
	return c
}

// Pathspecs adds paths after "--", each with the given magic, such as
// ":(glob)": only on a command built without --literal-pathspecs
// (Grep), where every pathspec says its magic.
func (c *Cmd) Pathspecs(magic Arg, paths ...string) *Cmd {
	if !c.magicPathspecs {
		return c.refuse("pathspec magic %q under --literal-pathspecs", magic)
	}
	if !strings.HasPrefix(string(magic), ":(") || !strings.HasSuffix(string(magic), ")") {
		return c.refuse("pathspec magic %q is not :(...)", magic)
	}
	c.dashes()
	for _, p := range paths {
		c.args = append(c.args, string(magic)+p)
	}
	return c
}

// OnWorkTree runs the command on the repository's own work tree: refused
// for every command but git grep (see readsFilesAsTheyAre).
func (c *Cmd) OnWorkTree() *Cmd {
	if !c.readsFilesAsTheyAre {
		c.err = fmt.Errorf("git: %q does not run on the work tree (only grep does: other commands can run the repository's filters)", c.Sub())
		return c
	}
	c.workTree = true
	return c
}

// PrivateIndex runs the command on a private index, a file of the private
// home (Env.TempDir): update-index then writes only that file, and no
// shared index beside the repository's.
func (c *Cmd) PrivateIndex(file string) *Cmd {
	c.env = append(c.env, "GIT_INDEX_FILE="+file)
	return c.Config("core.splitIndex=false")
}

// OnPrivateCopy runs a search on copies the server made in a directory of
// the private home (Env.TempDir): index is its index file, tree its
// --work-tree. Refused at the start if tree is not in the private home.
func (c *Cmd) OnPrivateCopy(index, tree string) *Cmd {
	c.env = append(c.env, "GIT_INDEX_FILE="+index)
	c.privateTree = tree
	return c
}

// InCallersSlot runs the command in a slot its caller already holds (a
// work-tree search's steps, one after another in its search slot): under
// load, each step queueing again would cost the call its deadline.
func (c *Cmd) InCallersSlot() *Cmd {
	c.room = roomCaller
	return c
}

// LongLived makes the command a long-lived reader (cat-file): it takes room
// in the Env's reader table, not a process slot.
func (c *Cmd) LongLived() *Cmd {
	c.room = roomReader
	return c
}

// Writing makes the command one that writes the repository (init, fetch,
// symbolic-ref): its sandbox may write the git directory and nothing else,
// network is the protocol it may use ("": none), env is added to the clean
// environment. Its caller bounds it.
func (c *Cmd) Writing(network string, env ...string) *Cmd {
	c.writes, c.network, c.env, c.room = true, network, env, roomCaller
	return c
}

// FullyBuffered has git write its output a stdio buffer at a time
// (GIT_FLUSH=0) instead of flushing it after every record, as git log does
// when its output is a pipe: a page of 100 commits is 7 writes instead of
// 100, and the reader wakes as many times, which on a busy machine is what
// a short log costs beyond git's own work (issue 14). Only for commands
// whose output is read to its end or to a count of records, never waited
// on for its first record.
func (c *Cmd) FullyBuffered() *Cmd {
	c.env = append(c.env, "GIT_FLUSH=0")
	return c
}

// WithoutWorkTree names no --work-tree at all: only git init, which has none yet.
func (c *Cmd) WithoutWorkTree() *Cmd {
	c.noWorkTree = true
	return c
}
