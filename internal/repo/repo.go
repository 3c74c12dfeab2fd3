// Package repo knows which repositories are served, resolves owner/repo names
// and revisions to them, and applies the path policy.
package repo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Repository is one served repository.
type Repository struct {
	Owner, Name string
	Git         *git.Repo
	// refresh updates a mirrored repository (nil for a local one); a
	// revision that is missing is looked up again after it.
	refresh func(context.Context) error
	// storeInTree lists the directories of the repository's own data (git
	// directory, objects, ...) that lie inside its work tree, relative to
	// it: work-tree reads never show them, whatever their names.
	storeInTree []string
}

// FullName is "owner/name".
func (r *Repository) FullName() string { return r.Owner + "/" + r.Name }

// Bare reports whether the repository has no work tree.
func (r *Repository) Bare() bool { return r.Git.WorkTree() == "" }

// maxRevLen bounds a revision argument.
const maxRevLen = 1024

// ResolveCommit resolves a caller's revision ("" means HEAD) to a full commit
// id, once; everything after uses the id. A revision that could be read as an
// option, or that holds control characters, is refused before git sees it.
func (r *Repository) ResolveCommit(ctx context.Context, rev string) (string, error) {
	if rev == "" {
		rev = "HEAD"
	}
	if err := CheckRev(rev); err != nil {
		return "", err
	}
	oid, err := r.resolve(ctx, rev)
	var file *gitdir.FileError
	if errors.As(err, &file) && file.Kind == "a symlink" {
		return "", errcode.New(errcode.InvalidRef, "%q cannot be read in %s: its ref file %s is a symlink leading out of the repository's store, which the sandbox refused git (the server reads no ref through a link)", rev, r.FullName(), file.Name)
	}
	if errors.As(err, &file) {
		return "", errcode.New(errcode.InvalidRef, "%q cannot be read in %s: its ref file %s is %s, not a regular file, and git would wait on it until the call's deadline", rev, r.FullName(), file.Name, file.Kind)
	}
	if errors.Is(err, git.ErrMissing) {
		return "", errcode.New(errcode.InvalidRef, "%q does not name a commit in %s", rev, r.FullName())
	}
	if err != nil {
		return "", err
	}
	if err := r.checkRefName(ctx, rev); err != nil {
		return "", err
	}
	return oid, nil
}

// checkRefName looks at the ref name a resolved revision starts with
// ("main" of "main~2") as git's revision rules found it. A full name
// ("refs/pull/4/head") must be that ref: git takes a missing one for
// refs/tags/<name> or refs/heads/<name>, and every plain clone fetches an
// upstream's tag named "refs/pull/4/head" (a pull request's refs are never
// a tag, whatever its name). A short name that several refs answer to
// (a tag and a branch both named main) is resolved as git resolves it, the
// first by its rules (the tag), with git's warning left as a note for the
// reply, naming both refs and how to pick one.
func (r *Repository) checkRefName(ctx context.Context, rev string) error {
	name := rev
	if i := strings.IndexAny(rev, "~^:@{"); i >= 0 {
		name = rev[:i]
	}
	if !git.PlainRefName(name) || isObjectID(name) {
		return nil
	}
	found, err := r.Git.RefsNamed(ctx, name)
	if err != nil || len(found) == 0 {
		return err // HEAD, a pseudo-ref, or a short object id
	}
	if strings.HasPrefix(name, "refs/") && found[0] != name {
		return errcode.New(errcode.InvalidRef, "%q does not name a commit in %s: there is no ref %s, and git would read %s, a ref of another name, in its place; ask for %s by that full name if it is the one meant", rev, r.FullName(), text.Name(name), text.Name(found[0]), text.Name(found[0]))
	}
	if len(found) > 1 {
		names := make([]string, len(found))
		for i, f := range found {
			names[i] = text.Name(f)
		}
		notes.Add(ctx, fmt.Sprintf("warning: refname %s is ambiguous (git's warning): it names %s; as git does, %s was read; ask for one by its full name (%s) to choose", text.Name(name), strings.Join(names, " and "), names[0], strings.Join(names, " or ")))
	}
	return nil
}

// isObjectID: a full object id (SHA-1 or SHA-256), which git reads as one
// before any ref.
func isObjectID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdefABCDEF") == ""
}

// resolve resolves a checked revision; a mirror missing it is refreshed
// once and asked again.
func (r *Repository) resolve(ctx context.Context, rev string) (string, error) {
	oid, err := r.Git.CommitID(ctx, rev)
	if errors.Is(err, git.ErrMissing) && r.refresh != nil {
		if rerr := r.refresh(ctx); rerr != nil {
			return "", rerr
		}
		oid, err = r.Git.CommitID(ctx, rev)
	}
	return oid, err
}

// CheckRev refuses a revision that could be read as an option, holds
// control characters, or searches commit messages with a regex git could
// not run cheaply (see checkRevRegexes), before it goes anywhere.
func CheckRev(rev string) error {
	switch {
	case len(rev) > maxRevLen:
		return errcode.New(errcode.InvalidRef, "revision is %d bytes long; the limit is %d", len(rev), maxRevLen)
	case strings.HasPrefix(rev, "-"):
		return errcode.New(errcode.InvalidRef, "revision %q starts with \"-\"", rev)
	case strings.ContainsFunc(rev, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return errcode.New(errcode.InvalidRef, "revision %q contains a control character", rev)
	}
	return checkRevRegexes(rev)
}

// nameFromRemote turns an origin URL into "owner/repo":
// git@host:acme/widgets.git, https://host/acme/widgets, ssh://host:22/acme/widgets.git.
func nameFromRemote(url string) (owner, name string, ok bool) {
	url = strings.TrimSuffix(strings.TrimRight(url, "/"), ".git")
	if i := strings.Index(url, "://"); i >= 0 {
		url = url[i+3:]
		if j := strings.IndexByte(url, '/'); j >= 0 {
			url = url[j+1:]
		} else {
			return "", "", false
		}
	} else if i := strings.IndexByte(url, ':'); i >= 0 && !strings.Contains(url[:i], "/") {
		url = url[i+1:] // scp-like git@host:path
	}
	parts := strings.Split(strings.Trim(url, "/"), "/")
	if len(parts) < 2 {
		return "", "", false
	}
	owner, name = parts[len(parts)-2], parts[len(parts)-1]
	if ValidName(owner) && ValidName(name) {
		return owner, name, true
	}
	return "", "", false
}

// ValidName: the characters Gitea allows in owner and repository names.
func ValidName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if !nameRune(r) {
			return false
		}
	}
	return true
}

func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
}

// sanitizeName makes a directory name usable as a repository name: every
// character Gitea would not allow becomes '-'.
func sanitizeName(s string) string {
	out := []rune(s)
	for i, r := range out {
		if !nameRune(r) {
			out[i] = '-'
		}
	}
	if n := string(out); ValidName(n) {
		return n
	}
	return "repo"
}
