package server

import (
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// shownPatch is a part's patch as its text shows it: git's, or with
// lineNumbers each hunk line numbered (diff.NumberLines), and the note
// that says so and what the numbers cost, which goes first among the
// part's notes. A payload's bytes are git's unless the reply says so.
func shownPatch(lineNumbers bool, p *paging.Part) (patch, note string) {
	text := p.Page.Text
	if !lineNumbers {
		return string(text), ""
	}
	extra := diff.NumberedExtra(text)
	if extra == 0 {
		return string(text), ""
	}
	return string(diff.NumberLines(text)), fmt.Sprintf("[note: lineNumbers: each hunk line is git's sign, its old line number, a space, its new line number, a tab, then the rest of git's line; the numbers add %d bytes to this part's %d of patch]\n", extra, len(text))
}
