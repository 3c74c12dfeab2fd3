package git

// Questions about the history of a range of commit ids: how many commits
// Log would list, where a branch came into another, where a path's history
// stops at a rename. Commit ids never change, so every answer is kept.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

// CountLog is the number of commits Log lists for o, without paging.
func (r *Repo) CountLog(ctx context.Context, o LogOptions) (int, error) {
	if o.Follow {
		if len(o.Paths) != 1 {
			return 0, fmt.Errorf("git log --follow: %d paths: it follows exactly one", len(o.Paths))
		}
		if err := checkRange(o.From, o.To, o.Paths); err != nil {
			return 0, err
		}
		return r.countFollowed(ctx, o.From, o.To, o.Paths[0])
	}
	return r.CountCommits(ctx, o.From, o.To, o.Paths)
}

// countFollowed counts the commits of git log --follow for path: git
// rev-list has no --follow, so git log lists their ids (41 bytes each,
// counted, not kept). Kept, like CountCommits' counts.
func (r *Repo) countFollowed(ctx context.Context, from, to, path string) (int, error) {
	key := "count follow\x00" + from + "\x00" + to + "\x00" + path
	if n, ok := r.memo.get(key); ok {
		return n.(int), nil
	}
	n := 0
	c := gitexec.Command("log", "--no-color", "--no-decorate", "--no-show-signature", "--no-mailmap", "--follow", "--format=%H").
		FullyBuffered().Revs(rangeRevs(from, to)...).Paths(path)
	err := r.run.Stream(ctx, c, func(stdout io.Reader) error {
		buf := make([]byte, 64<<10)
		for {
			k, err := stdout.Read(buf)
			n += bytes.Count(buf[:k], []byte{'\n'})
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return readError(ctx, err)
			}
		}
	})
	if err != nil {
		return 0, missingRevision(err)
	}
	r.memo.put(key, n, len(key)+16)
	return n, nil
}

// CountCommits is the number of commits Log would list for the range and
// paths, without paging (git rev-list --count, which walks the same
// history). Counts between commit ids never change: they are kept.
func (r *Repo) CountCommits(ctx context.Context, from, to string, paths []string) (int, error) {
	if err := checkRange(from, to, paths); err != nil {
		return 0, err
	}
	key := "count\x00" + from + "\x00" + to + "\x00" + strings.Join(paths, "\x00")
	if n, ok := r.memo.get(key); ok {
		return n.(int), nil
	}
	out, err := r.run.Output(ctx, gitexec.Command("rev-list", "--count").Revs(rangeRevs(from, to)...).Paths(paths...))
	if err != nil {
		return 0, missingRevision(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count: unexpected output %q", out)
	}
	r.memo.put(key, n, len(key)+16)
	return n, nil
}

// FirstParentDescendant is the oldest commit of base's first-parent line
// that has head as an ancestor: where head came into base (a merge, or
// head's own child when head is on that line), found by git rev-list
// --first-parent --ancestry-path base ^head, streamed with only its last
// line kept. It is "" when head is base itself (or no such commit is on
// the line). Kept per commit ids, which never change.
func (r *Repo) FirstParentDescendant(ctx context.Context, base, head string) (string, error) {
	if err := checkRange(head, base, nil); err != nil {
		return "", err
	}
	key := "fpdesc\x00" + base + "\x00" + head
	if id, ok := r.memo.get(key); ok {
		return id.(string), nil
	}
	var last string
	err := r.run.Stream(ctx, gitexec.Command("rev-list", "--first-parent", "--ancestry-path").Revs(base, "^"+head).Paths(), func(stdout io.Reader) error {
		sc := bufio.NewScanner(stdout)
		for n := 0; sc.Scan(); n++ {
			if n%checkEvery == 0 {
				if err := context.Cause(ctx); err != nil {
					return err
				}
			}
			if id := sc.Text(); IsObjectID(id) {
				last = id
			}
		}
		return readError(ctx, sc.Err())
	})
	if err != nil {
		return "", missingRevision(err)
	}
	r.memo.put(key, last, len(key)+len(last)+16)
	return last, nil
}

// RenameStop tells where the history of path (the commits reachable from
// to and not from from that touch it) stops at a rename: the oldest of
// those commits, when against its first parent it renamed oldPath to
// path, with rename detection over the whole commit as every diff here
// does; "" when the history does not stop at a rename. Log with Follow
// goes on through it. Commits never change, so answers are kept.
func (r *Repo) RenameStop(ctx context.Context, from, to, path string) (commit, oldPath string, err error) {
	key := "rename stop\x00" + from + "\x00" + to + "\x00" + path
	if v, ok := r.memo.get(key); ok {
		stop := v.([2]string)
		return stop[0], stop[1], nil
	}
	total, err := r.CountCommits(ctx, from, to, []string{path})
	if err != nil || total == 0 {
		return "", "", err
	}
	oldest, err := r.Log(ctx, LogOptions{From: from, To: to, Paths: []string{path}, Skip: total - 1, Limit: 1})
	if err != nil || len(oldest) == 0 {
		return "", "", err
	}
	if c := oldest[0]; len(c.Parents) > 0 {
		_, err = r.EachChange(ctx, DiffOptions{From: c.Parents[0], To: c.SHA}, func(_ int, ch Change) error {
			if ch.Status == 'R' && ch.Path == path {
				commit, oldPath = c.SHA, ch.OldPath
				return ErrStop
			}
			return nil
		})
		if err != nil {
			return "", "", err
		}
	}
	r.memo.put(key, [2]string{commit, oldPath}, len(key)+len(commit)+len(oldPath)+32)
	return commit, oldPath, nil
}
