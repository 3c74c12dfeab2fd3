// Package diff splits unified diffs (as printed by git and by Gitea/Forgejo)
// into per-file sections and parses their "diff --git" headers.
//
// The package does no I/O besides reading the io.Reader it is given, and the
// Splitter holds at most one section in memory, so it can be fed the output
// of "git diff" or a server's /pulls/N.diff as a stream.
package diff
