package server

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/notes"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// commentWindow is what list_pull_request_comments keeps of a
// conversation the forge sends whole (docs/security.md, review 3, item 7):
// however large it is, a part needs only the comments from where it starts
// that can fit a reply. The rest is counted as it streams by, not kept.
//
// The listing is in order of comment id, and ids are what a next call
// goes on from, so they must strictly advance (review 4, finding 14): a
// comment whose id is not positive, or is one an earlier comment has, is
// skipped with a note. A forge's own ids are unique and grow with time, so
// for an honest forge this is the order it gives, oldest first.
type commentWindow struct {
	total int                  // the comments (since since)
	found bool                 // the comment from names was seen (or from is 0)
	start int                  // comments before the part's first, in the order shown
	kept  []forge.IssueComment // from the part's first on, in the order shown
	after int64                // the comment after kept, in the order shown; 0: none
}

// maxConversationComments bounds the comments of one conversation read:
// their ids are kept (8 bytes each) to count them and find the next.
const maxConversationComments = 1 << 18

// windowCost is what a comment kept in the window counts for: its strings
// and a share for the entry itself, so that a window of empty bodies is
// bounded too.
func windowCost(c forge.IssueComment) int {
	return len(c.Body) + len(c.User) + len(c.URL) + len(c.Created) + len(c.Updated) + 128
}

// commentWindow reads the conversation once, keeping about two replies'
// worth of comments from in.From on in the order shown (ids ascending,
// or descending with order newest).
func (s *Server) commentWindow(ctx context.Context, in listPullRequestCommentsIn) (commentWindow, error) {
	keep := 2 * s.cfg.MaxBytes
	newest := in.Order == histNewest
	key := func(id int64) int64 { // the order shown
		if newest {
			return -id
		}
		return id
	}
	var (
		ids          []int64              // every comment's id, as read
		cands        []forge.IssueComment // comments at or after from
		bytes, added int                  // cands' cost, and what was added since the last prune
		notPositive  int
		cut          bool // past maxConversationComments
		w            = commentWindow{found: in.From == 0}
		prune        func()
		fromKey      = key(in.From)
		byKey        = func(a, b forge.IssueComment) int { return cmp.Compare(key(a.ID), key(b.ID)) }
		sameID       = func(a, b forge.IssueComment) bool { return a.ID == b.ID }
	)
	// prune orders the candidates, drops a repeated id's later comments,
	// and keeps the first ones while they fit (at least one).
	prune = func() {
		slices.SortStableFunc(cands, byKey)
		cands = slices.CompactFunc(cands, sameID)
		bytes, added = 0, 0
		for i, c := range cands {
			if bytes > keep {
				clear(cands[i:]) // let the bodies go
				cands = cands[:i]
				break
			}
			bytes += windowCost(c)
		}
	}
	complete, err := s.cfg.Forge.IssueComments(ctx, in.Owner, in.Repo, in.Index, in.Since, func(c forge.IssueComment) {
		switch {
		case cut:
			return
		case c.ID <= 0:
			notPositive++
			return
		case len(ids) == maxConversationComments:
			cut = true
			return
		}
		ids = append(ids, c.ID)
		if in.From != 0 && key(c.ID) < fromKey {
			return
		}
		cands = append(cands, c)
		cost := windowCost(c)
		bytes += cost
		if added += cost; added > keep && bytes > 2*keep {
			prune()
		}
	})
	if err != nil {
		return w, err
	}
	prune()
	w.kept = slices.Clip(cands)
	slices.SortFunc(ids, func(a, b int64) int { return cmp.Compare(key(a), key(b)) })
	read := len(ids)
	ids = slices.Compact(ids)
	repeated := read - len(ids)
	w.total = len(ids)
	at := func(id int64) (int, bool) {
		return slices.BinarySearchFunc(ids, key(id), func(x, k int64) int { return cmp.Compare(key(x), k) })
	}
	if in.From != 0 {
		w.start, w.found = at(in.From)
	}
	if len(w.kept) > 0 {
		if i, ok := at(w.kept[len(w.kept)-1].ID); ok && i+1 < len(ids) {
			w.after = ids[i+1]
		}
	}
	if notPositive > 0 || repeated > 0 {
		var what []string
		if notPositive > 0 {
			what = append(what, text.Count(notPositive, "comment")+" whose id is not positive")
		}
		if repeated > 0 {
			what = append(what, text.Count(repeated, "comment")+" whose id an earlier one has")
		}
		notes.Add(ctx, fmt.Sprintf("the forge gave %s: skipped (a listing goes on from a comment's id, so ids must be unique); the comments are in order of id", strings.Join(what, " and ")))
	}
	if cut {
		notes.Add(ctx, fmt.Sprintf("the conversation has more than %d comments, the most the server reads: the comments past them were not read; since narrows the list", maxConversationComments))
	}
	if !complete {
		notes.Add(ctx, fmt.Sprintf("the forge's answer is larger than the server reads (%d MiB): the comments past it were not read; since narrows the list", forge.MaxDiscussionBytes>>20))
	}
	return w, nil
}
