package server

// Phrases the tool descriptions share, so that a rule reads the same in
// every text it applies to (TestRegistryDescriptionsShareTheRules).
//
// What an omitted ref means differs by tool (HEAD, the work tree, the
// default branch), so each tool says it once, in its ref's (or head's)
// own description, and no description repeats it.
const (
	// partialNext is how a partial reply goes on.
	partialNext = " A partial reply ends with the next call."
	// inPieces is what a tool of lines says of a line longer than a reply
	// (docs/contracts.md, "Joining rule").
	inPieces = "A line longer than a reply comes in pieces after [line …] markers; startByte goes on in it."
	// partEnds is what a part of a diff ends with, in every diff tool.
	partEnds = " Parts end with notes on skipped files and the next call."
	// wholeDiff is the one rule for reading a diff whole or file by file,
	// in the instructions, the review prompts and the descriptions of the
	// tools that lead to a diff. Every part but the last is full, and file
	// by file costs at least a call a file, so the whole diff in parts
	// never costs more calls for the same bytes.
	wholeDiff = "Read a whole diff in parts via each next call (never more calls than file by file); pick files only to read a few."
)
