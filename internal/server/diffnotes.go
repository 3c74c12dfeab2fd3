package server

import (
	"context"
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// flagGenerated decides which of the part's files are generated or
// vendored, by the rules of commit (by name alone when r is nil).
func (s *Server) flagGenerated(ctx context.Context, r *repo.Repository, commit string, p *paging.Part) {
	var paths []string
	for _, f := range p.Page.Files {
		if !f.Hidden {
			paths = append(paths, paging.SectionName(f.Header))
		}
	}
	p.Generated = s.generated(ctx, r, commit, paths)
}

// noteRules are this server's rules for the notes of a diff part read at
// commit readAt (paging.Part.Notes): which files are tests, which the
// secrets policy hides.
func (s *Server) noteRules(readAt string) paging.NoteRules {
	return paging.NoteRules{ReadAt: readAt, IsTest: isTestPath, Denied: s.cfg.Policy.Denied}
}

// patchBytesAsked notes a maxBytes (the patch bytes of a part) under the
// least a part is given: it is raised, and a line longer than it comes
// whole all the same (paging.FitPart).
func patchBytesAsked(ctx context.Context, maxBytes int) {
	if maxBytes > 0 && maxBytes < paging.MinPartRoom {
		notes.Add(ctx, fmt.Sprintf("maxBytes %d is less than a part needs: raised to %d bytes of patch", maxBytes, paging.MinPartRoom))
	}
}
