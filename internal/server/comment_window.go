package server

import (
	"context"
	"fmt"
	"slices"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
)

// commentWindow is what list_pull_request_comments keeps of a
// conversation the forge sends whole (docs/security.md, review 3, item 7):
// however large it is, a part needs only the comments from where it starts
// that can fit a reply. The rest is counted as it streams by, not kept.
type commentWindow struct {
	total int                  // the comments (since since)
	found bool                 // the comment from names was seen (or from is 0)
	start int                  // comments before the part's first, in the order shown
	kept  []forge.IssueComment // from the part's first on, in the order shown
	after int64                // the comment after kept, in the order shown; 0: none
}

// commentWindow reads the conversation once, keeping about two replies'
// worth of bodies from in.From (oldest first), or up to and including it
// (newest first: the latest ones, in a window that drops the oldest).
func (s *Server) commentWindow(ctx context.Context, in listPullRequestCommentsIn) (commentWindow, error) {
	keep := 2 * s.cfg.MaxBytes
	w := commentWindow{found: in.From == 0}
	bytes, before := 0, 0
	newest := in.Order == histNewest
	complete, err := s.cfg.Forge.IssueComments(ctx, in.Owner, in.Repo, in.Index, in.Since, func(c forge.IssueComment) {
		w.total++
		switch {
		case newest && w.found && in.From != 0:
			return // newer than from: counted, before it in the order shown
		case newest:
			w.kept = append(w.kept, c)
			bytes += len(c.Body)
			for bytes > keep && len(w.kept) > 1 {
				bytes -= len(w.kept[0].Body)
				w.after, w.kept = w.kept[0].ID, w.kept[1:]
			}
			w.found = w.found || c.ID == in.From
			before++
		case !w.found:
			if c.ID != in.From {
				before++
				return
			}
			w.found = true
			fallthrough
		default:
			if w.after != 0 {
				return
			}
			if bytes > keep && len(w.kept) > 0 {
				w.after = c.ID
				return
			}
			w.kept = append(w.kept, c)
			bytes += len(c.Body)
		}
	})
	if err != nil {
		return w, err
	}
	w.kept = slices.Clip(w.kept)
	if newest {
		slices.Reverse(w.kept)
		before = w.total - before // the newer ones, shown before the part
	}
	w.start = before
	if !complete {
		notes.Add(ctx, fmt.Sprintf("the forge's answer is larger than the server reads (%d MiB): the comments past it were not read; since narrows the list", forge.MaxDiscussionBytes>>20))
	}
	return w, nil
}
