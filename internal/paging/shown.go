package paging

import "github.com/mcp-repo-tools/mcp-repo-tools/internal/text"

// Shown is what a page's header says of the items it holds, from offset
// from of a list of total (text.ShownRange); of an offset past the end,
// the true total and the call that reads the list from its first item:
// "offset 50 is past the last of 6 matches; call search_code with
// {"query":"x"} for the first" (docs/security.md, review 4, finding 19).
// in is the call's input, as given to tool; the call for the first is it
// without the arguments that say where a page starts (positionArgs).
func Shown(from, n, total int, thing, tool string, in any) string {
	if n > 0 || from < total {
		return text.ShownRange(from, n, total, thing)
	}
	s := text.PastEnd(from, total, thing)
	if total == 0 {
		return s
	}
	first := Continue(tool, in)
	for _, k := range positionArgs {
		delete(first.Arguments, k)
	}
	return s + "; call " + tool + " with " + PlainJSON(first.Arguments) + " for the first"
}

// positionArgs are the arguments that say where a page starts: an offset,
// a forge's 1-based page (list_pull_request_files), a cursor.
var positionArgs = []string{"offset", "page", "cursor"}
