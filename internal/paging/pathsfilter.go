package paging

import (
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// renamePairs selects the changes get_diff's paths name, keeping a rename
// whole when paths name one side of it, and remembers those it paired and
// which paths matched a change.
type renamePairs struct {
	paths  []string
	paired []string // the first maxPaired
	count  int
	hit    []bool // hit[i]: a change is at or under paths[i]
}

const maxPaired = 50

// under: p is at or under one of paths. With mark, every path it is
// under is marked hit, so that a path that selects nothing can be named (a
// typo would otherwise go unseen beside the paths that matched).
func (rp *renamePairs) under(p string, mark bool) bool {
	in := false
	for i, q := range rp.paths {
		if p == q || strings.HasPrefix(p, q+"/") {
			if in = true; !mark {
				return true
			}
			rp.hit[i] = true
		}
	}
	return in
}

// selects: c is on a path of paths, on either side (only, without
// noting the renames it pairs or the paths it matched: a count runs it
// beside the part's own reading, in a goroutine of its own).
func (rp *renamePairs) selects(c git.Change) bool {
	return rp.under(c.Path, false) || rp.under(c.OldPath, false)
}

func (rp *renamePairs) only(c git.Change) bool {
	in, oldIn := rp.under(c.Path, true), rp.under(c.OldPath, true)
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

// missedNote names the paths that matched no change, when some did: when
// none did, the reply says so in place of the diff (noPathMatchedText).
func (rp *renamePairs) missedNote() string {
	var missed []string
	for i, q := range rp.paths {
		if !rp.hit[i] {
			missed = append(missed, text.Name(q))
		}
	}
	if len(missed) == 0 || len(missed) == len(rp.paths) {
		return ""
	}
	return fmt.Sprintf("[paths that match no changed file: %s; paths are literal files or directories, not globs]\n", FileList(missed, nil, len(missed), NoteListRoom, ""))
}

// PathsFilter is the selection a diff tool's paths make of the diff's
// file list, in each part: the changes at or under them, a rename whole
// when they name one side of it (renamePairs, which notes those: Filter.Note).
// nil for no paths. get_diff and get_pull_request_diff share it.
func PathsFilter(paths []string) *Filter {
	if len(paths) == 0 {
		return nil
	}
	pairs := &renamePairs{paths: paths, hit: make([]bool, len(paths))}
	return &Filter{Key: "paths with the other side of renames", Keep: pairs.only, Again: pairs.selects, note: pairs.note, missed: pairs.missedNote}
}
