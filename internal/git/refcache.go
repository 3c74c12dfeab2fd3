package git

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
)

// A branch name costs a cat-file round trip to resolve, and its answer can
// change at any time. refCache keeps the answer for a plain ref name with a
// stamp of every file git reads to resolve it in the files backend: the
// loose files of git's dwim rules for the name in the git and common
// directories, the symrefs they hold, followed, and packed-refs. While a
// new stamp equals the kept one, git would read the same bytes and give the
// same answer, so a few stats stand in for the round trip.
//
// A file's stat is its device, inode, size, mtime and ctime: a rewrite
// shows even when mtime is set back (ctime cannot be). The stamp is taken
// before git is asked: a change between the two makes the kept stamp
// outdated (never matched again), not wrong. A file changed twice within
// one timestamp tick can keep its stat (size and inode reused), so an
// answer is kept only once every file it stamps is older than refSettle;
// until then git answers every time, as without the cache.

// refSettle: files younger than this when stamped may still change without
// their stat showing it. Local Linux filesystems stamp times from a clock
// that ticks every 1-10 ms; 2 s also covers those that keep whole seconds
// (ext3, HFS+) or two (FAT), and some clock skew. JGit's FileSnapshot
// assumes 2 s when it has not measured the filesystem. A ref moved in the
// last 2 s costs a round trip, as it did before.
const refSettle = 2 * time.Second

// refCacheBytes bounds what the names kept per repository cost (names,
// ids and the paths of their stamps); when full the cache is emptied (as
// memo is): simple, and bounded however long the names.
const refCacheBytes = 256 << 10

// maxSymrefDepth is git's SYMREF_MAXDEPTH: git reads no further.
const maxSymrefDepth = 5

// refRules are git's ref_rev_parse_rules: git tries each in order, and
// the first that resolves wins.
var refRules = []string{"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"}

type refCache struct {
	mu      sync.Mutex
	entries map[string]refEntry
	// bytes and youngBytes are what entries and young cost (refCost).
	bytes, youngBytes int
	// dirs is the identity of the git and common directories when the
	// cache first stamped: git's readers resolved the common directory,
	// and the sandbox the store, when they started; if either comes to
	// resolve elsewhere, the cache keeps nothing more.
	dirs   [2]fileID
	pinned bool
	// young holds, for a name whose files were too young to keep its
	// answer, when they will have settled: until then stamping it again
	// is of no use, and a branch that moves all the time costs a round
	// trip only, as before the cache.
	young map[string]time.Time

	now    func() time.Time // tests only: the clock
	window time.Duration    // tests only: refSettle when 0
}

type refEntry struct {
	oid   string
	files []stamped
}

// stamped is one path of a stamp and what it was.
type stamped struct {
	path   string
	follow bool // a directory's identity (stat), else the path itself (lstat)
	id     fileID
}

// fileID is what a stat says of a path. An absent path is the zero
// fileID, one below a file notDir; a directory in a ref's place is only
// its mode, as git reads nothing in it (it looks in packed-refs instead).
type fileID struct {
	mode         uint32
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
}

// notDir is the mode of a path below a file (ENOTDIR).
const notDir = 1

// errUncacheable: git could read the path other than as a plain file (a
// symlink, a FIFO), or it cannot be stat'ed: the name is left to git.
var errUncacheable = errors.New("not a path the ref cache can stamp")

// blockingFile is a *gitdir.FileError if path is a file that an open for reading
// waits on (a FIFO) or that is no file at all (a socket, a device), else nil.
func blockingFile(path string) *gitdir.FileError {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice) == 0 {
		return nil
	}
	return &gitdir.FileError{Path: path, Kind: gitdir.KindOf(fi.Mode())}
}

// get is the answer kept for name if every file stamped is as it was.
func (c *refCache) get(name string) (string, bool) {
	c.mu.Lock()
	e, ok := c.entries[name]
	c.mu.Unlock()
	if !ok {
		return "", false
	}
	for _, s := range e.files {
		if id, err := statID(s.path, s.follow); err != nil || id != s.id {
			return "", false
		}
	}
	return e.oid, true
}

// refStamp is what stamp found before git was asked.
type refStamp struct {
	files []stamped
	// rules[k] is where rule k's files end in files, and the length of
	// the object id its chain of loose files ends in when git surely
	// reads no further than that (0 when it may).
	rules []ruleEnd
	taken time.Time
	// blocked is a loose ref file git would wait on for ever (a FIFO, a
	// socket, a device): the name is refused rather than asked of git.
	blocked *gitdir.FileError
}

type ruleEnd struct{ end, idLen int }

// put keeps git's answer for name with the stamp taken before git was
// asked, unless a file it needs is too young to trust its stat.
func (c *refCache) put(name, oid string, st refStamp) {
	files := st.files
	for k, r := range st.rules {
		// git takes the first rule that resolves: this one holds the
		// answer, and what later rules hold cannot change it. A file at
		// the top of the git directory git may pass over (versions
		// differ on which names there are refs) unless it is named as
		// root refs are (HEAD, FETCH_HEAD): later rules stay stamped.
		if k == 0 && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != "" {
			continue
		}
		if r.idLen == len(oid) {
			files = files[:r.end]
			break
		}
	}
	// taken is from before the stats: a change after a stat gets a time
	// no older than that minus one tick, so it shows on a file older than
	// taken minus the window.
	var newest int64
	for _, s := range files {
		if s.id.mode == syscall.S_IFREG {
			newest = max(newest, s.id.mtime, s.id.ctime)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if settled := time.Unix(0, newest).Add(c.settle()); settled.After(st.taken) {
		cost := len(name) + refEntryBytes
		if c.young == nil || c.youngBytes+cost > refCacheBytes {
			c.young, c.youngBytes = map[string]time.Time{}, 0
		}
		c.young[name] = settled
		c.youngBytes += cost
		return
	}
	cost := refCost(name, oid, files)
	if c.entries == nil || c.bytes+cost > refCacheBytes {
		c.entries, c.bytes = map[string]refEntry{}, 0
	}
	c.entries[name] = refEntry{oid: oid, files: files}
	c.bytes += cost
}

// refEntryBytes is what one entry costs beyond its strings (the map entry
// and the slice header), stampedBytes one stamped file beyond its path.
const (
	refEntryBytes = 96
	stampedBytes  = 80
)

// refCost is what keeping name's answer costs.
func refCost(name, oid string, files []stamped) int {
	n := len(name) + len(oid) + refEntryBytes
	for _, f := range files {
		n += len(f.path) + stampedBytes
	}
	return n
}

// settle is refSettle, or the tests' window.
func (c *refCache) settle() time.Duration {
	if c.window != 0 {
		return c.window
	}
	return refSettle
}

// clock is now, or the tests' clock.
func (c *refCache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// unsettled reports whether name's files were too young when last
// stamped and are still, going by the clock.
func (c *refCache) unsettled(name string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, ok := c.young[name]
	if ok && !now.Before(until) {
		delete(c.young, name)
	}
	return ok && now.Before(until)
}

// stamp records what git reads to resolve name in the repository at
// gitDir. ok is false when no answer may be kept: the name is not a plain
// ref name, the refs are not in loose files and packed-refs, or the files
// are not where stat can be trusted.
func (c *refCache) stamp(gitDir, name string) (st refStamp, ok bool) {
	st.taken = c.clock()
	if !cacheableName(name) || c.unsettled(name, st.taken) {
		return st, false
	}
	b := stampBuilder{ids: map[string]fileID{}, walked: map[string]bool{}}
	common, ok := b.commonDir(gitDir)
	if !ok || !c.pin(b.ids[gitDir], b.ids[common]) {
		return st, false
	}
	dirs := []string{gitDir}
	if common != gitDir {
		dirs = append(dirs, common)
	}
	for _, d := range dirs {
		// A reftable repository keeps its refs elsewhere; one that becomes
		// one (git refs migrate) changes this stat.
		if b.add(d+"/reftable", false) != (fileID{}) {
			return st, false
		}
	}
	b.add(common+"/packed-refs", false)
	for _, rule := range refRules {
		idLen := b.ref(dirs, strings.Replace(rule, "%s", name, 1), 0)
		if len(dirs) > 1 {
			idLen = 0 // git reads a ref in one of them only: which, this does not decide
		}
		st.rules = append(st.rules, ruleEnd{len(b.stamp), idLen})
	}
	if b.blocked != nil {
		b.blocked.Name = strings.TrimPrefix(strings.TrimPrefix(b.blocked.Path, common+"/"), gitDir+"/")
		st.blocked = b.blocked
	}
	if b.failed || !b.local() {
		return st, false
	}
	st.files = b.stamp
	return st, true
}

// blockingRef is the first loose file git would wait on (a FIFO, ...) in
// resolving the plain ref name, or nil.
func (c *refCache) blockingRef(gitDir, name string) *gitdir.FileError {
	if !cacheableName(name) {
		return nil
	}
	st, _ := c.stamp(gitDir, name)
	return st.blocked
}

// pin remembers the directories' identity on first use and reports
// whether they still resolve there.
func (c *refCache) pin(gitDir, common fileID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.pinned {
		c.dirs, c.pinned = [2]fileID{gitDir, common}, true
	}
	return c.dirs == [2]fileID{gitDir, common}
}

type stampBuilder struct {
	stamp   []stamped
	ids     map[string]fileID // the paths stamped
	walked  map[string]bool   // the ref files read for a symref
	failed  bool
	blocked *gitdir.FileError // the first path git would wait on
}

// add stats path into the stamp, once.
func (b *stampBuilder) add(path string, follow bool) fileID {
	if id, ok := b.ids[path]; ok {
		return id
	}
	id, err := statID(path, follow)
	if err != nil {
		b.failed = true
		if b.blocked == nil {
			b.blocked = blockingFile(path)
		}
	}
	b.ids[path] = id
	b.stamp = append(b.stamp, stamped{path, follow, id})
	return id
}

// commonDir finds the common directory as git does, spelled as git spells
// it (gitDir + "/" + commondir's content) so that the kernel resolves it
// at each stat as it does for git; it stamps the commondir file and both
// directories' identity.
func (b *stampBuilder) commonDir(gitDir string) (string, bool) {
	file := gitDir + "/commondir"
	id := b.add(file, false)
	common := gitDir
	switch {
	case b.failed: // a symlink, say: git would follow it
		return "", false
	case id.mode == 0: // no commondir: the git directory is the common one
	case id.mode == syscall.S_IFREG:
		data, err := gitdir.ReadSmallFile(file)
		p := strings.TrimRight(string(data), "\r\n")
		if err != nil || p == "" {
			return "", false
		}
		if !strings.HasPrefix(p, "/") {
			p = gitDir + "/" + p
		}
		common = p
	default:
		return "", false
	}
	b.add(gitDir, true)
	b.add(common, true)
	return common, !b.failed
}

// ref stamps the loose files of the full ref name in every directory and,
// for each that is a symref, those of its target. It returns the length of
// the object id the last file read holds, if it holds one as git reads it
// (0 otherwise).
func (b *stampBuilder) ref(dirs []string, ref string, depth int) (idLen int) {
	if depth >= maxSymrefDepth {
		return 0
	}
	for _, d := range dirs {
		path := d + "/" + ref
		if b.add(path, false).mode != syscall.S_IFREG || b.walked[path] {
			continue
		}
		b.walked[path] = true
		// Read after the stat: if it changed in between, the stamp is
		// outdated already.
		data, err := gitdir.ReadSmallFile(path)
		if err != nil {
			b.failed = true
			return 0
		}
		content := strings.TrimRight(string(data), " \t\n\r")
		target, ok := strings.CutPrefix(content, "ref:")
		if !ok {
			idLen = objectIDLen(content)
			continue
		}
		target = strings.TrimLeft(target, " \t\n\r")
		if !PlainRefName(target) {
			b.failed = true // git may read it in a way this does not follow
			return 0
		}
		idLen = b.ref(dirs, target, depth+1)
	}
	return idLen
}

// objectIDLen is the length of the object id a loose ref file holds as git
// reads it (hex digits, then the end or white space), 0 if it holds none.
func objectIDLen(content string) int {
	n := len(content) - len(strings.TrimLeft(content, hexDigits))
	if n < len(content) && !strings.ContainsRune(" \t\n\r", rune(content[n])) {
		return 0
	}
	return n
}

// local reports whether the files stamped are on local filesystems. It
// asks only of the files git opens and reads: a missing path or a
// directory git looks up with lstat, as this does, through the same
// kernel caches.
func (b *stampBuilder) local() bool {
	checked := map[uint64]bool{}
	for _, s := range b.stamp {
		if s.id.mode != syscall.S_IFREG || checked[s.id.dev] {
			continue
		}
		if !localFileSystem(s.path) {
			return false
		}
		checked[s.id.dev] = true
	}
	return true
}

// cacheableName: name is a plain ref name whose answer comes from refs
// only. An all-hex name may be read as an object id, and "...-g<hex>" as
// describe output, when no ref has it: such an answer depends on objects.
func cacheableName(name string) bool {
	if !PlainRefName(name) || (len(name) >= 4 && isHex(name)) {
		return false
	}
	if i := strings.LastIndex(name, "-g"); i >= 0 && len(name) > i+2 && isHex(name[i+2:]) {
		return false
	}
	return true
}

// PlainRefName reports whether name is a ref name by git's rules (roughly, and stricter:
// only [A-Za-z0-9._/-]), and git's files backend keeps it at
// <dir>/<name>. Names under worktrees/ and main-worktree/ live elsewhere.
func PlainRefName(name string) bool {
	if name == "" || name[0] == '-' || strings.Contains(name, "..") ||
		strings.HasPrefix(name, "worktrees/") || strings.HasPrefix(name, "main-worktree/") {
		return false
	}
	if strings.Trim(name, refNameChars) != "" {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part[0] == '.' || strings.HasSuffix(part, ".lock") || strings.HasSuffix(part, ".") {
			return false
		}
	}
	return true
}

const (
	refNameChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-"
	hexDigits    = "0123456789abcdefABCDEF"
)

func isHex(s string) bool { return strings.Trim(s, hexDigits) == "" }
