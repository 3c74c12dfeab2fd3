package git

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// BenchmarkCommitID resolves a branch from the ref cache; a branch missing
// from it each time (stamp, round trip, kept); a branch whose files are
// never old enough to keep (a round trip, as before the cache); HEAD, a
// symref to the branch, from the cache; and a commit id (from memo).
func BenchmarkCommitID(b *testing.B) {
	r := testrepo.New(b)
	sha := commitFile(r, "a.txt", "a\n", "one")
	for _, bc := range []struct {
		name, rev    string
		young, clear bool
	}{
		{name: "branch", rev: "main"},
		{name: "branch-miss", rev: "main", clear: true},
		{name: "branch-young", rev: "main", young: true},
		{name: "HEAD", rev: "HEAD"},
		{name: "sha", rev: sha},
	} {
		b.Run(bc.name, func(b *testing.B) {
			g := open(b, r)
			// The repository was just made: seen from an hour on, its files
			// are old enough to be kept; seen from 1970, never.
			g.refs.now = func() time.Time { return time.Now().Add(time.Hour) }
			if bc.young {
				g.refs.now = func() time.Time { return time.Unix(0, 0) }
			}
			ctx := context.Background()
			for b.Loop() {
				if bc.clear {
					g.refs.mu.Lock()
					g.refs.entries = nil
					g.refs.mu.Unlock()
				}
				if oid, err := g.CommitID(ctx, bc.rev); err != nil || oid != sha {
					b.Fatalf("CommitID(%s) = %s, %v", bc.rev, oid, err)
				}
			}
		})
	}
}
