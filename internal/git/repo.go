// Package git is what the server knows of git: the commands it runs and the
// parsing of their output (diff, log, blame, grep, trees, refs), the
// long-lived cat-file readers and what they read, the caches of answers
// that depend only on commit ids or on files that have not changed. It
// starts no process itself: every git process starts through package
// gitexec, with the command lines built here from constants and checked
// values (gitexec.Cmd). See docs/architecture.md, "Safety layers".
package git

import "github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"

// Env is the process-wide setting every git child runs with (gitexec.Env:
// its private home, environment, slots, memory cap and sandbox), and what
// the repositories share of what git answered: small blobs recently read.
type Env struct {
	*gitexec.Env
	// blobs keeps small blobs recently read (blobcache.go).
	blobs blobCache
}

// NewEnv creates the server's private git home, with the sandbox on where
// the kernel supports it (gitexec.NewEnv). Close removes it.
func NewEnv() (*Env, error) {
	e, err := gitexec.NewEnv()
	if err != nil {
		return nil, err
	}
	return &Env{Env: e}, nil
}

// Repo reads one repository through git.
type Repo struct {
	env      *Env
	run      *gitexec.Repo // starts its git processes
	gitDir   string        // absolute
	workTree string        // absolute; "" for a bare repository
	objects  *objectPool
	memo     memo       // answers that depend only on commit ids
	refs     refCache   // branch names resolved, kept while their files stay as they were
	index    indexCache // the index's listing, kept while the index file stays as it was
}

// Open returns a Repo for the repository at gitDir (absolute). workTree is
// "" for a bare repository.
func Open(env *Env, gitDir, workTree string) *Repo {
	r := &Repo{env: env, gitDir: gitDir, workTree: workTree}
	r.objects = newObjectPool(r)
	r.run = gitexec.Open(env.Env, gitDir, workTree, r.objects)
	return r
}

// GitDir is the repository's absolute git directory.
func (r *Repo) GitDir() string { return r.gitDir }

// WorkTree is the absolute work tree, or "" for a bare repository.
func (r *Repo) WorkTree() string { return r.workTree }

// ConfineReads keeps the sandbox from granting reads on any of the
// repository's directories outside dirs (gitexec.Repo.ConfineReads). Call
// it before any git process of the repository starts.
func (r *Repo) ConfineReads(dirs ...string) { r.run.ConfineReads(dirs...) }

// Close ends the repository's long-lived git processes and lets go of its
// sandbox rulesets.
func (r *Repo) Close() {
	r.objects.close()
	r.run.Close()
}
