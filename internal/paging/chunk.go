package paging

// The git diff a part is read from: a chunk of the selection's changes,
// from the part's first on, bounded in count and path bytes, without the
// files too large to diff.

import (
	"context"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// MaxDiffBlob is the largest file a part's git diff is given: git holds
// both sides of a file in memory, several times its size, and a git
// process runs under a memory cap (--max-git-memory); a 216 MB file made
// the whole range unreadable. A larger file is named, not diffed, and
// read_file reads it. A variable for the tests.
var MaxDiffBlob int64 = 64 << 20

// tooLargeToDiff finds the changes whose new (for a deletion, old) blob is
// larger than MaxDiffBlob, asking the object reader for sizes only.
func tooLargeToDiff(ctx context.Context, r *repo.Repository, o git.DiffOptions, kept []git.Change) map[string]int64 {
	var names, paths []string
	for _, c := range kept {
		commit, path := o.To, c.Path
		if c.Status == 'D' {
			commit, path = o.From, c.OldPath
		}
		if strings.Contains(path, "\n") {
			continue // cat-file names cannot hold a newline; let git decide
		}
		names, paths = append(names, commit+":"+path), append(paths, c.Path)
	}
	objs, err := r.Git.Infos(ctx, names)
	if err != nil {
		// One name the batch could not take (git died on it): ask for
		// each alone, so that the others are still known.
		objs = make([]git.Object, len(names))
		for i, name := range names {
			objs[i], _ = r.Git.Info(ctx, name)
		}
	}
	var out map[string]int64
	for i, obj := range objs {
		if obj.Size > MaxDiffBlob {
			if out == nil {
				out = map[string]int64{}
			}
			out[paths[i]] = obj.Size
		}
	}
	return out
}

// chunkFull: a chunk of kept changes, the changes one git diff is
// restricted to, has no room for c.
func chunkFull(kept []git.Change, keptBytes int, c git.Change) bool {
	return len(kept) == maxPartChanges || (len(kept) > 0 && keptBytes+PathBytes(c) > maxPartPathBytes)
}

func PathBytes(c git.Change) int { return len(c.Path) + len(c.OldPath) }

// chunkOptions is the git diff a chunk of kept changes, from change first
// of total, is read from. The whole selection, from its start, needs no
// restriction (restricted false): git prints exactly it. Otherwise the
// diff names the chunk's changes, both sides of renames, but those too
// large to diff; ok is false when that leaves none.
func (q Request) chunkOptions(first int, kept []git.Change, total int, skipped map[string]int64) (opts git.DiffOptions, ok, restricted bool) {
	if first == 0 && q.Only == nil && len(kept) == total && len(skipped) == 0 {
		return q.Opts, true, false
	}
	opts = q.Opts
	opts.Paths = nil
	for _, c := range kept {
		if _, skip := skipped[c.Path]; !skip {
			opts.Paths = append(opts.Paths, c.Paths()...)
		}
	}
	return opts, len(opts.Paths) > 0, true
}
