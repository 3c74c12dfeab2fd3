package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
)

// renameLineNew is the new path of s when s is a rename as the file lists
// write it, "new (from old)" (changedFile.lineWith: either name quoted as
// text.Name quotes it, " [test]" and " [generated]" after it); ok is false
// for anything else. Models copy the whole of it into a path.
func renameLineNew(s string) (newPath string, ok bool) {
	s = strings.TrimSuffix(s, " [generated]")
	s = strings.TrimSuffix(s, " [test]")
	if !strings.HasSuffix(s, ")") {
		return "", false
	}
	newPart, old, found := strings.Cut(s, " (from ")
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", false
		}
		newPart, old, found = q, strings.TrimPrefix(s[len(q):], " (from "), strings.HasPrefix(s[len(q):], " (from ")
	}
	old = strings.TrimSuffix(old, ")")
	if !found || newPart == "" || old == "" {
		return "", false
	}
	if strings.HasPrefix(newPart, `"`) {
		u, err := strconv.Unquote(newPart)
		if err != nil {
			return "", false
		}
		newPart = u
	}
	return newPart, true
}

// orRenameLine calls read with path and, when path names no file but is a
// rename as the file lists write it ("new (from old)"), again with its
// new path, noting that it was read so: a path copied whole from
// list_pull_request_files or list_changed_files is understood, and one
// that exists as written is never taken for anything else. param names
// the argument in the note.
func orRenameLine[R any](ctx context.Context, param, path string, read func(path string) (R, error)) (R, error) {
	r, err := read(path)
	if errcode.Of(err) != errcode.NotFound {
		return r, err
	}
	newPath, ok := renameLineNew(path)
	if !ok {
		return r, err
	}
	r2, err2 := read(newPath)
	if err2 != nil {
		return r, err // the error of the path as given
	}
	notes.Add(ctx, fmt.Sprintf("%s %q is a file list's rename line: read as its new path %q", param, path, newPath))
	return r2, nil
}
