// Package globs reads globs as agents write them: the patterns a caller
// gives (search_code's pathGlobs, list_files') read as lines of a
// .gitignore, turned into the :(glob) pathspecs git matches and matched as
// git matches those. It is ours, not git's; git's own wildmatch, as
// .gitattributes read it, is package gitattr.
package globs

import "strings"

// Globs as agents expect them: the patterns a caller gives (search_code's
// pathGlobs, list_files') are read as lines of a .gitignore are read, and
// Translate turns each into the :(glob) pathspecs git matches:
//
//	pattern       selects                                  pathspecs (after :(glob))
//	*.c           a.c, xdiff/xutils.c (a name, any depth)  **/*.c, **/*.c/**
//	Makefile      Makefile, sub/Makefile, Makefile/x       **/Makefile, **/Makefile/**
//	src/*.c       src/a.c, not src/sub/b.c (anchored)      src/*.c, src/*.c/**
//	/Makefile     Makefile only (a leading / anchors)      Makefile, Makefile/**
//	src/**/*.go   src/a.go, src/x/y/b.go                   src/**/*.go, src/**/*.go/**
//	docs/         everything under any directory docs      **/docs/**
//	src/util/     everything under src/util                src/util/**
//
// As in .gitignore, a pattern that matches a directory selects everything
// under it; "**" as a whole path segment crosses directories and any other
// run of "*" is one "*"; "?" is one byte but "/"; "[...]" a class ("[!...]"
// or "[^...]" negated); "\" quotes the next character.

// Translate turns one pattern into the bodies of the :(glob) pathspecs
// (to be given to git after ":(glob)") that together select what the
// pattern selects, read as a .gitignore line: without "/" but a trailing
// one it matches a name at any depth; with a "/" at the start or in the
// middle it is anchored at the root (a leading "/" is dropped); a trailing
// "/" selects the directories it matches, that is everything under them;
// otherwise each body X comes with X/**, for a directory X matches. Empty
// and "." segments are dropped; "" and "/" select every file ("**").
//
// The pattern is not checked otherwise: callers refuse ".." segments and
// what cannot match (an unclosed "[", a trailing "\") before, as
// server.checkGlobs does.
func Translate(pattern string) []string {
	dirOnly := strings.HasSuffix(pattern, "/")
	trimmed := strings.TrimRight(pattern, "/")
	anchored := strings.Contains(trimmed, "/")
	var segs []string
	for _, seg := range strings.Split(trimmed, "/") {
		switch {
		case seg == "" || seg == ".":
			continue
		case strings.Trim(seg, "*") == "" && len(seg) >= 2:
			seg = "**"
			if len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue // "**/**" is "**"
			}
		default:
			seg = oneStar(seg)
		}
		segs = append(segs, seg)
	}
	body := strings.Join(segs, "/")
	switch {
	case body == "" || body == "**":
		return []string{"**"}
	case !anchored && !strings.HasPrefix(body, "**/"):
		body = "**/" + body
	}
	switch {
	case strings.HasSuffix(body, "/**"):
		return []string{body}
	case dirOnly:
		return []string{body + "/**"}
	}
	return []string{body, body + "/**"}
}

// TranslateAll is Translate of every pattern, in order.
func TranslateAll(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		out = append(out, Translate(p)...)
	}
	return out
}

// oneStar makes every run of unquoted "*" in a segment one "*", as
// .gitignore reads "a**b" (git's pathspecs call such runs invalid).
func oneStar(seg string) string {
	if !strings.Contains(seg, "**") {
		return seg
	}
	var b strings.Builder
	star := false // the byte written last is an unquoted "*"
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case c == '\\' && i+1 < len(seg):
			b.WriteByte(c)
			i++
			b.WriteByte(seg[i])
			star = false
		case c == '*' && star:
		default:
			b.WriteByte(c)
			star = c == '*'
		}
	}
	return b.String()
}

// Problem says why a glob could never select a file the way it is
// written, or "": an unclosed "[" (git would match it only as a literal
// name), an unknown "[:class:]", a trailing "\".
func Problem(glob string) string {
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '\\':
			if i+1 == len(glob) {
				return `it ends with a "\" that quotes nothing`
			}
			i++
		case '[':
			end, _, problem := parseClass(glob, i, false)
			if problem != "" {
				return problem
			}
			i = end
		}
	}
	return ""
}
