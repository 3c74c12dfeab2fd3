package paging

import (
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// renamePairs selects the changes get_diff's paths name, keeping a rename
// whole when paths name one side of it, and remembers those it paired.
type renamePairs struct {
	paths  []string
	paired []string // the first maxPaired
	count  int
}

const maxPaired = 50

func (rp *renamePairs) under(p string) bool {
	for _, q := range rp.paths {
		if p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// selects: c is on a path of paths, on either side (only, without
// noting the renames it pairs).
func (rp *renamePairs) selects(c git.Change) bool {
	return rp.under(c.Path) || rp.under(c.OldPath)
}

func (rp *renamePairs) only(c git.Change) bool {
	in, oldIn := rp.under(c.Path), rp.under(c.OldPath)
	if in != oldIn {
		if rp.count++; rp.count <= maxPaired {
			rp.paired = append(rp.paired, text.Name(c.OldPath)+" → "+text.Name(c.Path))
		}
	}
	return in || oldIn
}

// note says which renames paths named one side of.
func (rp *renamePairs) note() string {
	if len(rp.paired) == 0 {
		return ""
	}
	return fmt.Sprintf("[paths named one side of %s: both sides are shown, as one rename]\n", FileList(rp.paired, nil, rp.count, NoteListRoom, ""))
}

// PathsFilter is the selection a diff tool's paths make of the diff's
// file list, in each part: the changes at or under them, a rename whole
// when they name one side of it (renamePairs, which notes those: Filter.Note).
// nil for no paths. get_diff and get_pull_request_diff share it.
func PathsFilter(paths []string) *Filter {
	if len(paths) == 0 {
		return nil
	}
	pairs := &renamePairs{paths: paths}
	return &Filter{Key: "paths with the other side of renames", Keep: pairs.only, Again: pairs.selects, note: pairs.note}
}
