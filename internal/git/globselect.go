package git

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/globs"
)

// GlobsSelectFile reports whether patterns (globs as globs.Translate reads
// them) select at least one file a search at rev (a full commit id; "" for
// the work tree's tracked files) would read: submodules do not count, nor
// files exclude removes (:(exclude,glob,icase) bodies, as
// GrepOptions.Exclude). It lists the commit's tree (or the index) and stops
// at the first file selected; for a commit the answer is kept.
func (r *Repo) GlobsSelectFile(ctx context.Context, rev string, patterns, exclude []string) (bool, error) {
	include, drop := globs.Compile(globs.TranslateAll(patterns), false), globs.Compile(exclude, true)
	if include == nil {
		return true, nil
	}
	key := ""
	if rev != "" {
		key = "globs-select\x00" + rev + "\x00" + strings.Join(patterns, "\x00") + "\x00\x00" + strings.Join(exclude, "\x00")
		if v, ok := r.memo.get(key); ok {
			return v.(bool), nil
		}
	}
	c := gitexec.Command("ls-files", "-z", "--stage") // "MODE OID STAGE\tPATH": the index only
	if rev != "" {
		c = gitexec.Command("ls-tree", "-r", "-z", "--full-tree").Revs(rev) // "MODE TYPE OID\tPATH"
	}
	found := false
	err := r.run.Stream(ctx, c, func(stdout io.Reader) error {
		// Each record may be matched twice, over a long path.
		z := newNulRecords(ctx, bufio.NewReaderSize(stdout, 64<<10), grepPathMax+128, 64)
		for {
			rec, cut, err := z.next()
			if err == io.EOF {
				return nil
			}
			if err != nil && err != io.ErrUnexpectedEOF {
				return err
			}
			head, path, ok := strings.Cut(string(rec), "\t")
			if !ok {
				return fmt.Errorf("git %s: unexpected record %q", c.Sub(), rec)
			}
			if !cut && !strings.HasPrefix(head, "160000 ") && include.MatchString(path) && (drop == nil || !drop.MatchString(path)) {
				found = true
				return nil // enough: git is stopped
			}
			if err != nil {
				return nil // the last record, without its NUL
			}
		}
	})
	if err != nil {
		return false, err
	}
	if key != "" {
		r.memo.put(key, found, len(key))
	}
	return found, nil
}
