package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// checkRegex refuses a search regex that git's regex engine could not run
// cheaply: the one guard for every regex git compiles (repo.CheckRegex;
// revisions' commit-message searches go through it in repo.CheckRev).
func checkRegex(q string) error { return repo.CheckRegex(q) }

// Limits on a pathGlobs entry. git's wildmatch backtracks: each "*" more in
// a glob multiplies its work on a long path by the length of a path
// segment, and "**" by the depth. Over one crafted path of 60 directories,
// **/*a*a*b takes 0.5 s and *a*a*a*a*a*a*a*b more than 10 s; the globs
// these limits allow take at most a few tens of ms there.
const (
	maxGlobLen         = 256
	maxGlobWildcards   = 3 // "**" (a whole segment) counts once, as does each other "*"
	maxGlobSegmentStar = 2 // "*" within one path segment
)

// checkGlobs refuses globs that cannot be what their writer means or whose
// matching could take git seconds per path: over maxGlobLen bytes, empty,
// with control characters or a ".." segment (repo.CleanPath's checks; a
// leading "/" anchors a glob at the root, see git.TranslateGlob), with what
// makes a glob match nothing (an unclosed "[", which git would take as a
// literal name; an unknown "[:class:]"; a trailing "\"), or with too many
// wildcards.
func checkGlobs(globs []string) error {
	for i, g := range globs {
		if len(g) > maxGlobLen {
			return errcode.New(errcode.InvalidArgument, "pathGlobs[%d] is %d bytes long; the limit is %d", i, len(g), maxGlobLen)
		}
		if g == "" {
			return errcode.New(errcode.InvalidArgument, "pathGlobs[%d] is empty", i)
		}
		if _, err := repo.CleanPath(strings.Trim(g, "/")); err != nil {
			return err
		}
		if problem := git.GlobProblem(g); problem != "" {
			msg := fmt.Sprintf("pathGlobs[%d] %q can match no file: %s", i, g, problem)
			if strings.Contains(problem, "not closed") {
				msg += `; to match a "[" itself, write "\["`
			}
			return errcode.New(errcode.InvalidArgument, "%s", msg)
		}
		wild := 0
		for _, seg := range strings.Split(g, "/") {
			if seg == "**" {
				wild++
				continue
			}
			n := strings.Count(seg, "*")
			if n > maxGlobSegmentStar {
				return errcode.New(errcode.InvalidArgument, "pathGlobs[%d] %q has %d \"*\" in one path segment; the limit is %d, because git's glob matching slows down steeply with each: use fewer, e.g. \"src/**/*_test.go\"", i, g, n, maxGlobSegmentStar)
			}
			wild += n
		}
		if wild > maxGlobWildcards {
			return errcode.New(errcode.InvalidArgument, "pathGlobs[%d] %q has %d wildcards; the limit is %d per glob (\"**\" counts as one), because git's glob matching slows down steeply with each: use fewer, e.g. \"src/**/*.go\", or several simpler globs", i, g, wild, maxGlobWildcards)
		}
	}
	return nil
}

// globsNote is the line a search_code reply without matches adds when
// pathGlobs were given: whether they selected no file at all (where
// searched at, for a commit) or files without a matching line. Hidden
// files (exclude) and submodules do not count.
func globsNote(ctx context.Context, g *git.Repo, rev string, globs, exclude []string) (string, error) {
	some, err := g.GlobsSelectFile(ctx, rev, globs, exclude)
	if err != nil {
		return "", err
	}
	files, where := "files", "at "+rev
	if rev == "" {
		files, where = "tracked files", "in the work tree"
	}
	if some {
		return "[pathGlobs matched " + files + " " + where + ", but no line in them matches the query]\n", nil
	}
	return "[pathGlobs matched no " + strings.TrimSuffix(files, "s") + " " + where + `: a pattern without "/" matches a name at any depth (*.go), one with "/" is anchored at the root (src/*.go, /Makefile), ** crosses directories (src/**/*_test.go), a trailing "/" selects a directory (docs/)]` + "\n", nil
}
