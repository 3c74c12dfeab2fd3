package gitexec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// A server's private git home is a directory of the temporary directory
// named for the server that made it, homePrefix, its pid and a random end
// ("mcp-repo-tools-git-4242-1234567"), holding a file, homeLock, that the
// server keeps locked while it runs (where the system has flock). Close
// removes the home; a server killed with SIGKILL cannot, so each start
// removes the homes left by servers no longer running (sweepHomes): only
// directories of that name, owned by this user, whose lock is free and
// whose server is gone; never through a symbolic link (docs/security.md,
// review 4, finding 20).
const (
	homePrefix = "mcp-repo-tools-git-"
	homeLock   = "owner.lock"
)

// homesMu is held while this process makes a home and while it sweeps:
// a home of its own is locked before its sweep can see it.
var homesMu sync.Mutex

// makeHome creates a private git home in root, and its lock, held.
func makeHome(root string) (dir string, lock *os.File, err error) {
	homesMu.Lock()
	defer homesMu.Unlock()
	dir, err = os.MkdirTemp(root, homePrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", nil, err
	}
	lock, err = lockHome(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, lock, nil
}

// homePid is the pid a home's name says made it; false for any other name
// (a home of an older version, named without a pid, is never swept: its
// server may be running).
func homePid(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, homePrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	if !ok || err != nil || pid <= 0 || strconv.Itoa(pid) != digits {
		return 0, false
	}
	return pid, true
}

// sweepHomes removes the homes in root that servers no longer running
// left behind (leftover); errors are ignored: a home not removed now is
// tried again at the next start.
func sweepHomes(root string) {
	homesMu.Lock()
	defer homesMu.Unlock()
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, d := range entries {
		if pid, ok := homePid(d.Name()); ok && leftover(root, d.Name(), pid) {
			os.RemoveAll(filepath.Join(root, d.Name()))
		}
	}
}

// closeLock lets a home's lock go.
func closeLock(lock *os.File) {
	if lock != nil {
		lock.Close()
	}
}
