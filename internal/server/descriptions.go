package server

// Phrases the tool descriptions share, so that a rule reads the same in
// every tool it applies to (TestRegistryDescriptionsShareTheRules).
const (
	// omittedRef is the one rule for a ref (or a head) left out, in every
	// tool that takes one: HEAD, as git means it. get_file_content's
	// default branch (Gitea's, seed 001) is HEAD's branch locally and the
	// forge's default branch in forge mode; in a bare repository, and in
	// a forge's mirror, HEAD is the default branch.
	omittedRef = " An omitted ref or head means HEAD, the checked-out commit (a bare repository's or a forge's default branch); read_file and search_code also see uncommitted work-tree changes."
	// partEnds is what a part of a diff ends with.
	partEnds = " A part ends with notes on its test, generated and policy-hidden files, hidden characters (bidi, zero-width), non-UTF-8 bytes and what is too large to show (with the read_file call for it), then the next call (see cursor)."
	// seeCursor is how a paged listing says where its continuation is
	// described: in the cursor parameter.
	seeCursor = " Paged with offset and limit: a partial reply ends with the call for the next page (see cursor)."
)
