// Package fold shows a patch's repeated edits once: a reviewer reads the
// pattern, its count and where it occurs, and git's diff of everything else
// in full. Pure: it reads the bytes of "git diff -M" and runs nothing.
//
// # Patterns
//
// In a hunk, a run is removed lines followed by added lines. The first
// lines of its two sides pair one to one; the lines left over on the longer
// side are singles. A pair's edit is what is left of the two lines once the
// tokens they share at the start and at the end are stripped: a token is a
// run of letters, digits, '_' and non-ASCII bytes, or a run of blanks, or
// any other byte alone. A single's key is its line without its indent. A
// pattern is an edit, or a removed or an added single, that MinCount sites
// or more share: unless Options say, 3, or 2 when its removed and added
// texts hold LongEdit (8) bytes or more.
//
// What folds is chosen whole: a pair, when its run removes as many lines as
// it adds; else the whole run. With Options.WholeHunks, the whole hunk. A
// unit folds when all its keys are patterns, counting only the units that
// fold. A hunk all of whose changes fold leaves the rest; a hunk that mixes
// folded and other changes is cut: the rest shows each stretch of it between
// folded lines that holds a change, with up to three lines of git's context
// on each side, under an "@@" line of its own (without git's function name).
// So a hunk's pattern lines are listed as sites only when they fold; with
// WholeHunks a mixed hunk is in the rest as git wrote it and none of its
// lines are sites. Only files with git's plain header ("diff --git",
// "index", "---", "+++": a file changed in place, its "diff --git" line
// unique in the patch) fold, and only hunks as git writes them: in order,
// apart, numbered as the changes before them say, with context between two
// runs and no "\ No newline at end of file" on a changed line; any other
// hunk stays as git wrote it. A file without hunks (rename, mode change,
// binary) always stays.
//
// # The folded text
//
// Each line the server writes starts with a digit, '#', '=' or ':', which
// no line of a patch does, and the patch starts after a fixed line
// (Separator) and ends before another (SitesSeparator). The patterns come
// first, each once; then git's diff of everything else, the changes that
// break the patterns among them, so that a reader meets them before the
// list of sites; then the sites, grouped by file:
//
//	1240 of 1340 changed lines follow 20 patterns; 100 are shown in full as git's diff below
//	#1 137 lines edited: "" → `, struct repository *repo`
//	#2 127 lines added: `const char **argv,`
//	#3 127 lines added: `struct repository *repo UNUSED)`
//	#4 119 lines added: `const char *prefix,`
//	#5 116 lines edited: ` const char **argv, const char *prefix)` → ""
//	#6 91 lines added: `#define USE_THE_REPOSITORY_VARIABLE`
//	#7 46 lines removed: `#include "repository.h"`
//	...
//	## the rest: git's own diff, byte for byte
//	diff --git a/builtin.h b/builtin.h
//	...
//	## the sites of the patterns, by file
//	=builtin.h
//	:118#1 int cmd_add(int argc, const char **argv, const char *prefix, struct repository *repo);
//	=builtin/am.c
//	:7#6
//	:41#7
//	:2301#5 int cmd_am(int argc,
//	:2302-2304#2,4,3 "\t   "
//	...
//
// The first line counts changed lines ('-' and '+'; an edited pair is two).
// A pattern line is "#N COUNT lines edited: REMOVED → ADDED", or "lines
// removed: TEXT", or "lines added: TEXT", most sites first; the texts are
// Go string literals, in backquotes when that shows them as they are.
//
// The sites follow the rest, under one "=PATH" line per file (the path quoted as git
// quotes it), the files in git's order and each file's sites in the order
// of its lines in git's diff; "#N" names a site's pattern. An edited site is
// ":LINE#N NEW": the new line's number and the new line itself (no space
// when it is empty); the old line is NEW with ADDED replaced by REMOVED. Where ADDED stands in NEW goes
// without saying when ADDED occurs in NEW once, or when ADDED is empty and
// REMOVED was at the end of the line; otherwise the site says it, as the
// 1-based byte column after the line number: ":LINE:COL#N NEW". A single's
// site is ":LINE#N", its number on its side (old for a removed line, new for
// an added one), then its indent as a Go literal if it has one. Singles of
// one side under one indent on lines one after the other share a site line,
// ":FIRST-LAST#N,N,..." with one pattern number for each line in turn: above,
// lines 2302, 2303 and 2304 of builtin/am.c are patterns #2, #4 and #3, each
// indented by a tab and three spaces. Line numbers are absolute, as git's
// "@@" lines give them, so they can be cited as they stand.
//
// The rest, between the two separators, is a git patch: git's files and
// hunks, byte for byte, less the folded ones, and the pieces of cut hunks.
// No site line holds a newline, so the last SitesSeparator line of the
// text is the one that ends the rest.
//
// # Normalize and Rebuild
//
// Rebuild reads the folded text alone and returns Normalize of the patch
// it came from; Fold checks that before it returns. Normalize keeps, for
// each file in byte order of its "diff --git" line, its header lines but
// "index", then every removed line as "-OLD " and the line, then every added
// line as "+NEW " and the line, each with its own newline or "\ No newline"
// line. Context lines, "@@" lines and "index" lines are not changes and are
// dropped; nothing else is. Rebuild takes the files of the rest as they are,
// and adds to each path's lines (or to a plain header it writes from the
// path, for a file the rest no longer holds) its sites: a single is its
// indent and its pattern's text; an edited site gives the new line, and the
// old line is the new one with the edit undone at the column, given or
// implied by the rule above. The old line's number is not written: Rebuild
// counts it from the changes before it, which is why a hunk folds only where
// git's line numbers agree with those changes.
package fold
