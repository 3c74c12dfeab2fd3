package git

// What the readers of commits and trees (log, blame, ls-tree) accept as a
// commit id and a path, and how they report what stopped git.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

// readError is err, or the call's deadline if that is what cut git short.
func readError(ctx context.Context, err error) error {
	if err != nil {
		if ctxErr := context.Cause(ctx); ctxErr != nil {
			return ctxErr
		}
	}
	return err
}

// checkRange refuses what is not a range of commit ids and repository
// paths: no revision syntax, nothing git could read as an option, no path
// that is not clean and relative.
func checkRange(from, to string, paths []string) error {
	if !IsObjectID(to) {
		return fmt.Errorf("git log: %q is not a full commit id", to)
	}
	if from != "" && !IsObjectID(from) {
		return fmt.Errorf("git log: %q is not a full commit id", from)
	}
	for _, p := range paths {
		if !isCleanPath(p) {
			return fmt.Errorf("git log: path %q is not a clean relative path", p)
		}
	}
	return nil
}

// Short is an object id cut to the 12 characters replies show of it.
func Short(id string) string { return id[:min(12, len(id))] }

// IsObjectID reports whether s is a full object id (SHA-1 or SHA-256), in
// lower-case hex: never an option, a ref or revision syntax.
func IsObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// isCleanPath reports whether p is a repository path as git stores it:
// relative, no empty, "." or ".." segment, no trailing slash, no NUL.
func isCleanPath(p string) bool {
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// missingRevision turns git's "bad object" (a commit id the repository
// does not have) into ErrMissing.
func missingRevision(err error) error {
	var exit *gitexec.ExitError
	if errors.As(err, &exit) && strings.HasPrefix(exit.Stderr, "fatal: bad object ") {
		return fmt.Errorf("%w: %s", ErrMissing, strings.TrimSpace(strings.TrimPrefix(exit.Stderr, "fatal: ")))
	}
	return err
}
