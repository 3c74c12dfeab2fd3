package paging

import (
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// Shown is what a page's header says of the items it holds, from offset
// from of a list of total (text.ShownRange); of an offset past the end,
// the true total and how to read the list from its first item: "offset
// 50 is past the last of 6 matches; call search_code again without offset
// for the first" (docs/security.md, review 4, finding 19). in is the
// call's input, as given to tool: the call for the first is the same call
// without the arguments that say where a page starts (positionArgs). They
// are named, not the call written out: its input holds the defaults the
// caller left out, which a call the server writes does not carry.
func Shown(from, n, total int, thing, tool string, in any) string {
	if n > 0 || from < total {
		return text.ShownRange(from, n, total, thing)
	}
	s := text.PastEnd(from, total, thing)
	if total == 0 {
		return s
	}
	given := Continue(tool, in).Arguments
	var drop []string
	for _, k := range positionArgs {
		if _, ok := given[k]; ok {
			drop = append(drop, k)
		}
	}
	return s + "; call " + tool + " again without " + strings.Join(drop, " and ") + " for the first"
}

// positionArgs are the arguments that say where a page starts: an offset,
// a forge's 1-based page (list_pull_request_files), a cursor.
var positionArgs = []string{"offset", "page", "cursor"}
