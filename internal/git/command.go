package git

import (
	"fmt"
	"strconv"
	"strings"
)

// arg is an argument this package wrote: a flag, a subcommand, a fixed
// operand. Only this package can make one, and inside it only a string
// constant becomes one without a conversion in plain sight (TestArgsAreConstants
// lists the few conversions there are). A value that comes from anywhere
// else (a caller, a repository, the forge) is a string, and a string enters
// a command line only through the methods below, which put it where git
// cannot read it as an option.
type arg string

// intArg is a flag with a number the package computed, such as -U3.
func intArg(flag arg, n int) arg { return flag + arg(strconv.Itoa(n)) }

// room says what bounds a kind of git process (see Env.acquire).
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

// command is one git command line and how it is to run. The runner adds
// the fixed global options (--git-dir, --literal-pathspecs unless the
// command's pathspecs carry their own magic, --work-tree, the -c settings)
// before it; see Repo.start, the one way a git process starts.
type command struct {
	args  []string // the subcommand and its arguments
	stage stage
	err   error // the first value refused; the command does not run

	// global are options before the subcommand, after the runner's own.
	global []string
	// magicPathspecs: the pathspecs say their own magic (glob, exclude),
	// so the command runs without --literal-pathspecs. Set only by
	// grepCommand; such a command takes no plain paths.
	magicPathspecs bool
	// readsFilesAsTheyAre: the command may run on the repository's work
	// tree. Set only by grepCommand: git grep reads work-tree files as they
	// are, whereas commands that compare the work tree with the index hash
	// changed files through the repository's clean filters, programs the
	// repository names that no command-line setting turns off in git 2.39.
	readsFilesAsTheyAre bool
	// workTree: run on the repository's own work tree (onWorkTree).
	// Otherwise --work-tree names the private home, or nothing (noWorkTree).
	workTree   bool
	noWorkTree bool
	// privateTree is the --work-tree of a work-tree search on copies the
	// server made (a directory of its private home; grepWorkTree).
	privateTree string
	room        room
	// writes: the sandbox lets the command write the repository's git
	// directory (and nothing else); its output is discarded. network is
	// the one protocol it may use ("": none); env are environment entries
	// added after the clean environment (later entries win): a writing
	// command's, or GIT_FLUSH=0 (fullyBuffered).
	writes  bool
	network string
	env     []string
}

// gitCommand starts a command line: the subcommand and its fixed options.
func gitCommand(sub arg, flags ...arg) *command {
	c := &command{args: []string{string(sub)}}
	return c.flags(flags...)
}

// grepCommand starts a git grep command line. A search takes a search slot
// as well as a process slot; its pathspecs carry explicit magic (see
// pathspecs), so it runs without --literal-pathspecs; and it is the one
// command that may run on the work tree (onWorkTree).
func grepCommand(flags ...arg) *command {
	c := gitCommand("grep", flags...)
	c.room = roomSearch
	c.magicPathspecs = true
	c.readsFilesAsTheyAre = true
	return c
}

// sub is the subcommand, for messages.
func (c *command) sub() string {
	if len(c.args) == 0 {
		return ""
	}
	return c.args[0]
}

func (c *command) refuse(format string, a ...any) *command {
	if c.err == nil {
		c.err = fmt.Errorf("git %s: "+format, append([]any{c.sub()}, a...)...)
	}
	return c
}

// flags adds options (and fixed operands) the package wrote.
func (c *command) flags(flags ...arg) *command {
	if len(flags) > 0 && c.stage != stageOptions {
		return c.refuse("option %q after the operands", flags[0])
	}
	for _, f := range flags {
		c.args = append(c.args, string(f))
	}
	return c
}

// flagValue adds an option that takes a value and the value as the next
// argument, such as -e PATTERN or --blob NAME: git takes the argument after
// such an option as its value whatever it starts with.
func (c *command) flagValue(flag arg, value string) *command {
	if c.stage != stageOptions {
		return c.refuse("option %q after the operands", flag)
	}
	c.args = append(c.args, string(flag), value)
	return c
}

// config adds -c key=value before the subcommand, after the runner's own
// settings (so it wins over them); it stays when a test takes those away.
func (c *command) config(kv arg) *command {
	c.global = append(c.global, "-c", string(kv))
	return c
}

// revs adds revisions (or other operands, such as a ref or config key)
// after --end-of-options, put there once. One that starts with "-" is
// refused all the same: no caller has a reason to pass one.
func (c *command) revs(revs ...string) *command {
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

// rev adds one revision or ref name where git also reads options, for
// commands without --end-of-options (git grep takes none in 2.39) and
// command lines that never had one: refused if it starts with "-".
func (c *command) rev(rev string) *command {
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
func (c *command) dashes() {
	if c.stage != stagePathspecs {
		c.args = append(c.args, "--")
		c.stage = stagePathspecs
	}
}

// paths adds literal paths after "--" (put there even when there are no
// paths). They are literal because the runner passes --literal-pathspecs;
// a command whose pathspecs carry magic takes none. Fetch passes its
// remote and refspecs here too: after "--" git reads no option.
func (c *command) paths(paths ...string) *command {
	if c.magicPathspecs {
		return c.refuse("plain paths on a command whose pathspecs carry magic")
	}
	c.dashes()
	c.args = append(c.args, paths...)
	return c
}

// pathspecs adds paths after "--", each with the given magic, such as
// ":(glob)": only on a command built without --literal-pathspecs
// (grepCommand), where every pathspec says its magic.
func (c *command) pathspecs(magic arg, paths ...string) *command {
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

// onWorkTree runs the command on the repository's own work tree: refused
// for every command but git grep (see readsFilesAsTheyAre).
func (c *command) onWorkTree() *command {
	if !c.readsFilesAsTheyAre {
		c.err = fmt.Errorf("git: %q does not run on the work tree (only grep does: other commands can run the repository's filters)", c.sub())
		return c
	}
	c.workTree = true
	return c
}

// privateIndex runs the command on a private index (env is its
// GIT_INDEX_FILE entry, a file of the private home): update-index then
// writes only that file, and no shared index beside the repository's.
func (c *command) privateIndex(env string) *command {
	c.env = append(c.env, env)
	return c.config("core.splitIndex=false")
}

// inCallersSlot runs the command in a slot its caller already holds (a
// work-tree search's steps, one after another in its search slot): under
// load, each step queueing again would cost the call its deadline.
func (c *command) inCallersSlot() *command {
	c.room = roomCaller
	return c
}

// longLived makes the command a long-lived reader (cat-file): it takes room
// in the Env's reader table, not a process slot.
func (c *command) longLived() *command {
	c.room = roomReader
	return c
}

// writing makes the command one that writes the repository (init, fetch,
// symbolic-ref): its sandbox may write the git directory and nothing else,
// network is the protocol it may use ("": none), env is added to the clean
// environment. Its caller bounds it.
func (c *command) writing(network string, env ...string) *command {
	c.writes, c.network, c.env, c.room = true, network, env, roomCaller
	return c
}

// fullyBuffered has git write its output a stdio buffer at a time
// (GIT_FLUSH=0) instead of flushing it after every record, as git log does
// when its output is a pipe: a page of 100 commits is 7 writes instead of
// 100, and the reader wakes as many times, which on a busy machine is what
// a short log costs beyond git's own work (issue 14). Only for commands
// whose output is read to its end or to a count of records, never waited
// on for its first record.
func (c *command) fullyBuffered() *command {
	c.env = append(c.env, "GIT_FLUSH=0")
	return c
}

// noWorkTree names no --work-tree at all: only git init, which has none yet.
func (c *command) withoutWorkTree() *command {
	c.noWorkTree = true
	return c
}
