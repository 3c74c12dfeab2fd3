package git

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ObjectsStamp marks, without running git, the state of the object
// directories that would hold the commits ids: the repository's and its
// alternates', their pack directories and the loose-object directories of
// ids. Pruning a commit changes it (gc rewrites packs, prune deletes loose
// objects), so a caller that keeps what git printed about commits can tell
// with a few stats that it must ask git again; a fetch or a repack changes
// it too. The layout is the one found once (gitexec.Repo.Store); the files that
// make it (commondir, each alternates file) are stamped, so a change to
// them changes the stamp. ok is false when the store cannot be read.
func (r *Repo) ObjectsStamp(ids ...string) (stamp string, ok bool) {
	st, err := r.run.Store()
	if err != nil {
		return "", false
	}
	var b strings.Builder
	stat := func(p string) {
		fmt.Fprintf(&b, "%s:", p)
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%d,%d", fi.ModTime().UnixNano(), fi.Size())
			if sys, ok := statOf(fi); ok {
				fmt.Fprintf(&b, ",%d", sys.ino)
			}
		}
		b.WriteByte('\n')
	}
	stat(filepath.Join(st.GitDir, "commondir"))
	for _, d := range append([]string{st.Objects}, st.Alternates...) {
		stat(d)
		stat(filepath.Join(d, "pack"))
		stat(filepath.Join(d, "info", "alternates"))
		for _, id := range ids {
			stat(filepath.Join(d, id[:min(2, len(id))]))
		}
	}
	return b.String(), true
}
