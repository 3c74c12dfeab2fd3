// Package paging makes every reply fit the server's limit and says how to
// get the rest: what a partial reply is, for every tool.
//
// It owns the reply budget and its reserves (Budget, Wire), the call that
// continues a partial reply and the text's last lines (Call, LastLines),
// and cursors, signed and bound to their call (Cursor, Key). A handler
// gives it what to page (the selection, the room, how to render a piece)
// and gets back a part that says where it is and where the next starts,
// through one way in per kind of payload:
//
//   - a list: FitList, the longest prefix whose reply fits;
//   - lines of a blob: Lines, with the blobs' line counts kept;
//   - a text in parts: CutText and FitText;
//   - a diff: Diffs.ReadPart, cut from git (a diff restricted to the
//     part's files) or from the patch cache (what git printed past an
//     earlier part, and the part cut ahead of its call), fitted to its
//     reply by FitPart, with its notes (Part.Notes); ReadStreamPart for a
//     diff that can be read only once (a forge's).
//
// It never imports the server: docs/architecture.md draws where it sits.
package paging
