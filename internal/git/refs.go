package git

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

// CommitID resolves a revision to the full id of the commit it names,
// peeling tags. Trusted input only: a caller's revision goes through
// repo.Repository.ResolveCommit, which refuses what could read as an
// option and refreshes a mirror that lacks it. Later commands get only the
// id. A plain ref name is answered from refCache while the files git
// would read for it are unchanged.
func (r *Repo) CommitID(ctx context.Context, rev string) (string, error) {
	if context.Cause(ctx) == nil && !r.objects.isClosed() {
		if oid, ok := r.refs.get(rev); ok {
			return oid, nil
		}
	}
	stamp, keep := r.refs.stamp(r.gitDir, rev) // before git answers: see refcache.go
	if stamp.blocked == nil && !keep {
		// "evil~1", "evil^{tree}": git reads evil's files all the same.
		if base := leadingRef(rev); base != "" {
			stamp.blocked = r.refs.blockingRef(r.gitDir, base)
		}
	}
	if stamp.blocked != nil {
		return "", stamp.blocked // git would wait on it until the deadline
	}
	obj, err := r.Info(ctx, rev+"^{commit}")
	if errors.Is(err, ErrMissing) {
		if link := r.refLeavingStore(rev); link != nil {
			return "", link // what git could not read, it took for nothing
		}
	}
	if err != nil {
		return "", err
	}
	if obj.Type != "commit" {
		return "", ErrMissing
	}
	if keep {
		r.refs.put(rev, obj.OID, stamp)
	}
	return obj.OID, nil
}

// refLeavingStore is the first loose file git reads for the ref rev names
// (following symrefs such as HEAD's) that is a symlink resolving outside
// the repository's store, or nil. The sandbox keeps git from reading it,
// and git then takes the ref for one that does not exist.
func (r *Repo) refLeavingStore(rev string) *gitdir.FileError {
	name := rev
	if base := leadingRef(rev); base != "" {
		name = base
	}
	st, err := r.run.Store()
	if err != nil {
		return nil
	}
	inStore := func(p string) bool {
		return slices.ContainsFunc(st.Dirs(), func(d string) bool { return gitdir.Within(d, p) })
	}
	for depth := 0; depth < maxSymrefDepth && PlainRefName(name); depth++ {
		next := ""
		for _, rule := range refRules {
			rel := strings.Replace(rule, "%s", name, 1)
			for _, dir := range []string{st.GitDir, st.CommonDir} {
				p := filepath.Join(dir, rel)
				fi, err := os.Lstat(p)
				switch {
				case err != nil:
				case fi.Mode()&fs.ModeSymlink != 0:
					if real, err := filepath.EvalSymlinks(p); err != nil || !inStore(real) {
						return &gitdir.FileError{Path: p, Name: rel, Kind: "a symlink"}
					}
				case fi.Mode().IsRegular() && next == "":
					if data, err := gitdir.ReadSmallFile(p); err == nil {
						if target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref:"); ok {
							next = strings.TrimSpace(target)
						}
					}
				}
			}
		}
		if next == "" {
			return nil
		}
		name = next
	}
	return nil
}

// leadingRef is the ref name a revision such as "main~2" or "v1^{tree}"
// starts with, "" when it starts with none or is one.
func leadingRef(rev string) string {
	if i := strings.IndexAny(rev, "~^:@{"); i > 0 {
		return rev[:i]
	}
	return ""
}

// HasRef reports whether the full ref name exists.
func (r *Repo) HasRef(ctx context.Context, ref string) bool {
	_, err := r.run.Output(ctx, gitexec.Command("show-ref", "--verify", "--quiet").Revs(ref))
	return err == nil
}

// HasRefUnder reports whether any ref starts with prefix (a constant such
// as "refs/pull/"): one ref is read, however many there are.
func (r *Repo) HasRefUnder(ctx context.Context, prefix gitexec.Arg) bool {
	out, err := r.run.Output(ctx, gitexec.Command("for-each-ref", "--count=1", "--format=%(refname)", prefix))
	return err == nil && len(bytes.TrimSpace(out)) > 0
}

// DefaultBranch is the branch HEAD points at ("" when HEAD is detached).
func (r *Repo) DefaultBranch(ctx context.Context) string {
	out, err := r.run.Output(ctx, gitexec.Command("symbolic-ref", "--quiet", "--short", "HEAD"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ConfigValue reads one key of the repository's config ("" when unset).
func (r *Repo) ConfigValue(ctx context.Context, key string) string {
	out, err := r.run.Output(ctx, gitexec.Command("config", "--get").Revs(key))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// LastCommit is the newest commit reachable from commit that changed path,
// with its committer and author dates (ISO 8601), as `git log -1 -- path`.
type LastCommit struct {
	OID, CommitterDate, AuthorDate string
}

// LastCommitFor runs `git log -1` for one path ("" for the whole tree).
func (r *Repo) LastCommitFor(ctx context.Context, commit, path string) (LastCommit, error) {
	c := gitexec.Command("log", "-1", "--no-show-signature", "--format=%H%x00%cI%x00%aI").Revs(commit).Paths()
	if path != "" {
		c.Paths(path)
	}
	out, err := r.run.Output(ctx, c)
	if err != nil {
		return LastCommit{}, err
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\x00")
	if len(f) != 3 {
		return LastCommit{}, errors.New("git log: unexpected output")
	}
	return LastCommit{OID: f[0], CommitterDate: f[1], AuthorDate: f[2]}, nil
}

// SubmoduleURL reads the URL of the submodule at path from .gitmodules at
// commit ("" when there is none). The blob's [include] sections are not
// followed: a committed file must not make git read one of the host's.
func (r *Repo) SubmoduleURL(ctx context.Context, commit, path string) string {
	out, err := r.run.Output(ctx, gitexec.Command("config", "--no-includes", "--null", "--list").FlagValue("--blob", commit+":.gitmodules"))
	if err != nil {
		return ""
	}
	vals := map[string]string{}
	for _, kv := range strings.Split(string(out), "\x00") {
		if k, v, ok := strings.Cut(kv, "\n"); ok {
			vals[k] = v
		}
	}
	for k, v := range vals {
		if name, ok := strings.CutSuffix(k, ".path"); ok && v == path && strings.HasPrefix(name, "submodule.") {
			return vals[name+".url"]
		}
	}
	return ""
}

// NotCommitError: a ref exists but what it points at peels to no commit.
type NotCommitError struct {
	Ref, Type string // Type is git's object type: tree, blob, tag
}

func (e *NotCommitError) Error() string {
	return e.Ref + " points at a " + e.Type + ", not a commit"
}

// RefCommit resolves the full ref name ref (such as refs/pull/4/head)
// exactly, to the commit it names, peeling tags. It never goes through
// git's revision rules, which take a name that is not a ref for
// refs/tags/<name> or refs/heads/<name>: every plain clone fetches a tag
// named "refs/pull/4/head" as refs/tags/refs/pull/4/head, and rev-parse
// gives it for refs/pull/4/head when that ref does not exist. ErrMissing
// when the ref does not exist; *NotCommitError when it exists but names no
// commit (a tree, a blob).
func (r *Repo) RefCommit(ctx context.Context, ref string) (string, error) {
	if !strings.HasPrefix(ref, "refs/") || !PlainRefName(ref) {
		return "", ErrMissing
	}
	if blocked := r.refs.blockingRef(r.gitDir, ref); blocked != nil {
		return "", blocked // git would wait on it until the deadline
	}
	// show-ref --verify reads that one ref (its loose file, else
	// packed-refs), as for-each-ref, which reads the whole directory, would
	// not: a FIFO beside it would hold git until the deadline.
	out, err := r.run.Output(ctx, gitexec.Command("show-ref", "--verify").Revs(ref))
	if notAnswer(err) {
		return "", err // git never said: a deadline, a refused slot
	}
	if oid, name, ok := strings.Cut(strings.TrimSpace(string(out)), " "); err == nil && ok && name == ref {
		obj, err := r.Info(ctx, oid+"^{commit}")
		if err == nil && obj.Type == "commit" {
			return obj.OID, nil
		}
		typ := "object it cannot read"
		if obj, err := r.Info(ctx, oid+"^{}"); err == nil {
			typ = obj.Type
		}
		return "", &NotCommitError{Ref: ref, Type: typ}
	}
	if link := r.refLeavingStore(ref); link != nil {
		return "", link // what git could not read, it took for nothing
	}
	return "", ErrMissing
}

// notAnswer: err is not git's answer (a failed exit: no such ref) but
// that git did not answer (the call's deadline, a slot refused), which
// must not pass for "the ref does not exist".
func notAnswer(err error) bool {
	var exit *gitexec.ExitError
	return err != nil && !errors.As(err, &exit)
}

// RefsNamed are the refs git's revision rules find for the plain ref name
// name, in the order git tries them (refs/tags/main before refs/heads/main):
// git takes the first and, when there are more, warns "refname 'main' is
// ambiguous". The name itself is a candidate only when it starts with
// "refs/" (HEAD and the other pseudo-refs are not listed).
func (r *Repo) RefsNamed(ctx context.Context, name string) ([]string, error) {
	if !PlainRefName(name) {
		return nil, nil
	}
	var cands []string
	for _, rule := range refRules {
		c := strings.Replace(rule, "%s", name, 1)
		if strings.HasPrefix(c, "refs/") && PlainRefName(c) && !slices.Contains(cands, c) {
			cands = append(cands, c)
		}
	}
	// Each is asked of show-ref --verify, which reads that ref alone
	// (for-each-ref reads whole directories: a FIFO in one holds git).
	var found []string
	for _, c := range cands {
		if blocked := r.refs.blockingRef(r.gitDir, c); blocked != nil {
			return nil, blocked
		}
		_, err := r.run.Output(ctx, gitexec.Command("show-ref", "--verify", "--quiet").Revs(c))
		if notAnswer(err) {
			return nil, err
		}
		if err == nil {
			found = append(found, c)
		}
	}
	return found, nil
}
