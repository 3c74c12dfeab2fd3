package repo

import (
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/globs"
)

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

// CheckGlobs refuses globs that cannot be what their writer means or whose
// matching could take git seconds per path: over maxGlobLen bytes, empty,
// with control characters or a ".." segment (CleanPath's checks; a
// leading "/" anchors a glob at the root, see globs.Translate), with what
// makes a glob match nothing (an unclosed "[", which git would take as a
// literal name; an unknown "[:class:]"; a trailing "\"), or with too many
// wildcards.
func CheckGlobs(patterns []string) error {
	for i, g := range patterns {
		if len(g) > maxGlobLen {
			return errcode.New(errcode.InvalidArgument, "pathGlobs[%d] is %d bytes long; the limit is %d", i, len(g), maxGlobLen)
		}
		if g == "" {
			return errcode.New(errcode.InvalidArgument, "pathGlobs[%d] is empty", i)
		}
		if strings.HasPrefix(g, "!") {
			// .gitignore reads a leading "!" as "not"; a selection of
			// files to search has nothing to negate, and taking it as a
			// name would match nothing.
			return errcode.New(errcode.InvalidArgument, "pathGlobs[%d] %q starts with \"!\", which in a .gitignore line negates the pattern; pathGlobs only selects files, so give the globs of the files to search instead (to match a name that starts with \"!\", write \"\\!\")", i, g)
		}
		if _, err := CleanPath(strings.Trim(g, "/")); err != nil {
			// Said of the glob as given, not of the path CleanPath saw.
			return errcode.New(errcode.Of(err), "pathGlobs[%d] %q: %s; a glob matches paths inside the repository, relative to its root", i, g, globWhy(err))
		}
		if problem := globs.Problem(g); problem != "" {
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

// CleanPaths cleans each path (or glob) of a list parameter like a path:
// relative, no "..", no control characters; none may be empty. The schema
// has already bounded the list's length.
func CleanPaths(param string, items []string) ([]string, error) {
	var out []string
	for _, p := range items {
		c, err := CleanPath(p)
		if err != nil {
			return nil, err
		}
		if c == "" {
			return nil, errcode.New(errcode.InvalidArgument, "%s holds an empty path", param)
		}
		out = append(out, c)
	}
	return out, nil
}

// globWhy is what CleanPath found wrong, without the path it quoted.
func globWhy(err error) string {
	msg := errcode.Message(err)
	if _, rest, ok := strings.Cut(msg, "\" "); ok && strings.HasPrefix(msg, string(errcode.Of(err))+": path \"") {
		return rest
	}
	return strings.TrimPrefix(msg, string(errcode.Of(err))+": ")
}
