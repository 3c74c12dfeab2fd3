package server

import (
	"context"

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
