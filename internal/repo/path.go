package repo

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// maxPathLen bounds a path argument (git's own limit on most systems is 4096).
const maxPathLen = 4096

// CleanPath turns a caller's repository path into git's form: relative,
// slash-separated, no "." or empty segments, no trailing slash. "" (or "/",
// ".") names the root. Absolute paths, ".." segments, NUL and other control
// characters are refused. A name such as "..foo" is legal.
func CleanPath(p string) (string, error) {
	if len(p) > maxPathLen {
		return "", errcode.New(errcode.InvalidArgument, "path is %d bytes long; the limit is %d", len(p), maxPathLen)
	}
	if !utf8.ValidString(p) {
		return "", errcode.New(errcode.InvalidArgument, "path %q is not valid UTF-8", p)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return "", errcode.New(errcode.InvalidArgument, "path %q contains a control character", p)
		}
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return "", errcode.New(errcode.PathDenied, "path %q contains a \"..\" segment", p)
		}
		segs = append(segs, s)
	}
	if strings.HasPrefix(p, "/") && len(segs) > 0 {
		return "", errcode.New(errcode.PathDenied, "path %q is absolute; paths are relative to the repository root", p)
	}
	return path.Join(segs...), nil
}
