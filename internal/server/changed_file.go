package server

import (
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// changedFile is one file of a diff, as every tool that lists one says it
// (list_changed_files, list_pull_request_files, get_diff): one type, so a
// field has one name and one meaning everywhere. oldPath is the name
// docs/contracts.md fixes for get_diff and list_changed_files.
type changedFile struct {
	Path      string  `json:"path"`
	OldPath   *string `json:"oldPath" jsonschema:"the previous path of a renamed or copied file, else null"`
	Status    string  `json:"status" jsonschema:"added, modified, deleted, renamed, copied or type_changed (a forge may use its own words)"`
	Additions *int    `json:"additions" jsonschema:"lines added (0 for a binary file); null when not known: the file is hidden by the secrets policy, or its patch was not read"`
	Deletions *int    `json:"deletions" jsonschema:"lines deleted; null when additions is"`
	IsBinary  *bool   `json:"isBinary" jsonschema:"null when not known (as additions, or a forge that does not say)"`
	IsTest    bool    `json:"isTest" jsonschema:"the path follows a common test convention"`
}

// changedFile lists a change; a hidden one shows its names and status only:
// no counts, and not whether it is binary.
func (s *Server) changedFile(c git.Change) changedFile {
	f := changedFile{Path: c.Path, Status: statusName(c), IsTest: isTestPath(c.Path)}
	if c.OldPath != c.Path {
		f.OldPath = ptr(c.OldPath)
	}
	if !s.deniedChange(c) {
		f.Additions, f.Deletions, f.IsBinary = ptr(c.Added), ptr(c.Deleted), ptr(c.Binary)
	}
	return f
}

// line is the file's line in a text listing:
// "modified     +12 -3         path (from old) [test]".
func (f changedFile) line() string {
	counts := "hidden"
	switch {
	case f.IsBinary != nil && *f.IsBinary:
		counts = "binary"
	case f.Additions != nil:
		counts = fmt.Sprintf("+%d -%d", *f.Additions, *f.Deletions)
	}
	s := fmt.Sprintf("%-12s %-14s %s", f.Status, counts, f.Path)
	if f.OldPath != nil {
		s += " (from " + *f.OldPath + ")"
	}
	if f.IsTest {
		s += " [test]"
	}
	return s + "\n"
}
