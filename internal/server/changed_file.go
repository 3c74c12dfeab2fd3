package server

import (
	"context"
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
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
	Generated bool    `json:"generated" jsonschema:"generated or vendored, as GitHub Linguist tells by path (lock files, vendor/, node_modules/, minified files, protoc's output, .idea/, …) or marked linguist-generated or linguist-vendored in the commit's .gitattributes; flagged, never hidden"`
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
func (f changedFile) line() string { return f.lineWith("") }

// lineWith is line with more beside the line counts (a patch's size):
// "modified +12 -3 340 bytes path". Columns are not padded: the padding
// was a fifth of a long list's text.
func (f changedFile) lineWith(more string) string {
	counts := "hidden"
	switch {
	case f.IsBinary != nil && *f.IsBinary:
		counts = "binary"
	case f.Additions != nil:
		counts = fmt.Sprintf("+%d -%d", *f.Additions, *f.Deletions)
	}
	s := fmt.Sprintf("%s %s %s", f.Status, counts, text.Name(f.Path))
	if more != "" {
		s = fmt.Sprintf("%s %s %s %s", f.Status, counts, more, text.Name(f.Path))
	}
	if f.OldPath != nil {
		s += " (from " + text.Name(*f.OldPath) + ")"
	}
	if f.IsTest {
		s += " [test]"
	}
	if f.Generated {
		s += " [generated]"
	}
	return s + "\n"
}

// markGenerated flags the generated and vendored files of a list, by the
// rules of the commit read (its .gitattributes) when there is one, else by
// their names. A failure to read the attributes falls back to names too:
// the flag is a hint, not worth failing a listing for.
func (s *Server) markGenerated(ctx context.Context, r *repo.Repository, commit string, files []changedFile) {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	is := s.generated(ctx, r, commit, paths)
	for i := range files {
		files[i].Generated = is(files[i].Path)
	}
}

// generated is the generated-or-vendored test for paths of commit (by name
// alone when r is nil or the attributes cannot be read).
func (s *Server) generated(ctx context.Context, r *repo.Repository, commit string, paths []string) func(string) bool {
	if r != nil && commit != "" {
		if g, err := r.GeneratedRules(ctx, commit, paths, s.cfg.Policy.Denied); err == nil {
			return g.Is
		}
	}
	return repo.IsGeneratedName
}
