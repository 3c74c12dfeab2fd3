//go:build unix

package server

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Issue 14, item 7: search_code's pathGlobs read as .gitignore reads them
// (globs.Translate; that git agrees is held in internal/globs), what
// checkGlobs refuses, and what a reply without matches says about them.

func globSearchRepo(t *testing.T) (*testrepo.Repo, string) {
	r := testrepo.New(t)
	r.Write("top.c", "int needle;\n")
	r.Write("xdiff/xutils.c", "int needle;\n")
	r.Write("xdiff/deep/x.c", "int needle;\n")
	r.Write("src/a.c", "int needle;\n")
	r.Write("src/b.go", "package src // no match here\n")
	r.Write("docs/src/guide.md", "needle in the docs\n")
	r.Write("[abc", "a needle in a file named [abc\n")
	r.Write(".env", "NEEDLE=secret\n")
	return r, r.Commit("globs")
}

func TestSearchCodeGlobsAsAgentsExpect(t *testing.T) {
	r, commit := globSearchRepo(t)
	h := serve(t, r)
	for _, ref := range []string{"main", ""} {
		for _, c := range []struct {
			name  string
			globs []string
			want  string // path:line of every match
		}{
			{"a name at any depth", []string{"*.c"}, "src/a.c:1,top.c:1,xdiff/deep/x.c:1,xdiff/xutils.c:1"},
			{"a leading / anchors", []string{"/*.c"}, "top.c:1"},
			{"a / in the middle anchors", []string{"xdiff/*.c"}, "xdiff/xutils.c:1"},
			{"** crosses directories", []string{"xdiff/**/*.c"}, "xdiff/deep/x.c:1,xdiff/xutils.c:1"},
			{"a name selects a directory's files", []string{"src"}, "docs/src/guide.md:1,src/a.c:1"},
			{"a trailing / selects a directory", []string{"/src/"}, "src/a.c:1"},
			{"a quoted [ is itself", []string{`\[abc`}, "[abc:1"},
			{"the root selects everything", []string{"/"}, "[abc:1,docs/src/guide.md:1,src/a.c:1,top.c:1,xdiff/deep/x.c:1,xdiff/xutils.c:1"},
		} {
			t.Run(c.name+" at "+ref, func(t *testing.T) {
				var out searchCodeOut
				text := h.structured("search_code", searchArgs("needle", "ref", ref, "pathGlobs", c.globs), &out)
				if got := strings.Join(matchPaths(out), ","); got != c.want {
					t.Fatalf("matches %s, want %s", got, c.want)
				}
				if strings.Contains(text, "[pathGlobs") {
					t.Fatalf("a note with matches:\n%s", text)
				}
			})
		}
	}

	const hint = `: a pattern without "/" matches a name at any depth (*.go), one with "/" is anchored at the root (src/*.go, /Makefile), ** crosses directories (src/**/*_test.go), a trailing "/" selects a directory (docs/)]` + "\n"
	for _, c := range []struct {
		name string
		args map[string]any
		text string
	}{
		{"globs that select no file", searchArgs("needle", "ref", "main", "pathGlobs", []string{"*.py", "lib/"}),
			`search_code "needle" (literal, case-insensitive) in ` + commit + ": 0 matches\n" +
				"[pathGlobs matched no file at " + commit + hint},
		{"anchored, in the work tree", searchArgs("needle", "pathGlobs", []string{"/a.c"}),
			`search_code "needle" (literal, case-insensitive) in the work tree: 0 matches` + "\n" +
				"[pathGlobs matched no tracked file in the work tree" + hint},
		{"a hidden file does not count", searchArgs("needle", "ref", "main", "pathGlobs", []string{".env"}),
			`search_code "needle" (literal, case-insensitive) in ` + commit + ": 0 matches\n" +
				"[pathGlobs matched no file at " + commit + hint},
		{"files, but no line", searchArgs("needle", "ref", "main", "pathGlobs", []string{"*.go"}),
			`search_code "needle" (literal, case-insensitive) in ` + commit + ": 0 matches\n" +
				"[pathGlobs matched files at " + commit + ", but no line in them matches the query]\n"},
		{"files, but no line, in the work tree", searchArgs("haystack", "pathGlobs", []string{"src/"}),
			`search_code "haystack" (literal, case-insensitive) in the work tree: 0 matches` + "\n" +
				"[pathGlobs matched tracked files in the work tree, but no line in them matches the query]\n"},
		{"no globs, no note", searchArgs("haystack", "ref", "main"),
			`search_code "haystack" (literal, case-insensitive) in ` + commit + ": 0 matches\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out searchCodeOut
			if text := h.structured("search_code", c.args, &out); text != c.text {
				t.Fatalf("got\n%s\nwant\n%s", text, c.text)
			}
			if len(out.Matches) != 0 || out.Matches == nil {
				t.Fatalf("matches %+v", out.Matches)
			}
		})
	}
}

func TestSearchCodeGlobRefusals(t *testing.T) {
	r, _ := globSearchRepo(t)
	h := serve(t, r)
	before := r.Snapshot()
	for _, c := range []struct {
		name string
		glob string
		want string
	}{
		{"10,000 characters", strings.Repeat("a*", 5000),
			"INVALID_ARGUMENT: pathGlobs[0] is 10000 bytes long; the limit is 256"},
		{"unclosed [", "[abc",
			`INVALID_ARGUMENT: pathGlobs[0] "[abc" can match no file: the "[" at byte 1 is not closed by a "]"; to match a "[" itself, write "\["`},
		{"unclosed [ after a wildcard", "src/*[ab",
			`INVALID_ARGUMENT: pathGlobs[0] "src/*[ab" can match no file: the "[" at byte 6 is not closed by a "]"; to match a "[" itself, write "\["`},
		{"an unknown class", "[[:letter:]]*",
			`INVALID_ARGUMENT: pathGlobs[0] "[[:letter:]]*" can match no file: "[:letter:]" is not a character class git knows`},
		{"a trailing backslash", `src\`,
			`INVALID_ARGUMENT: pathGlobs[0] "src\\" can match no file: it ends with a "\" that quotes nothing`},
		{"empty", "",
			"INVALID_ARGUMENT: pathGlobs[0] is empty"},
		{"..", "../**",
			`PATH_DENIED: pathGlobs[0] "../**": contains a ".." segment; a glob matches paths inside the repository, relative to its root`},
		{"a .. further in", "**/../../*",
			`PATH_DENIED: pathGlobs[0] "**/../../*": contains a ".." segment; a glob matches paths inside the repository, relative to its root`},
		{"a control character", "src/\x01*",
			`INVALID_ARGUMENT: pathGlobs[0] "src/\x01*": contains a control character; a glob matches paths inside the repository, relative to its root`},
		{"too many * in a segment", "*a*b*c",
			`INVALID_ARGUMENT: pathGlobs[0] "*a*b*c" has 3 "*" in one path segment; the limit is 2, because git's glob matching slows down steeply with each: use fewer, e.g. "src/**/*_test.go"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := timedFails(t, h, "search_code", searchArgs("needle", "pathGlobs", []string{c.glob}), strings.SplitN(c.want, ":", 2)[0]); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	if after := r.Snapshot(); after != before {
		t.Fatal("the repository changed")
	}
}
