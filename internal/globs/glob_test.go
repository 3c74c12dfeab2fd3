package globs_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/globs"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Issue 14, item 7: globs as agents expect them, read as .gitignore reads
// them. git is the oracle: for every pattern, what git itself selects with
// the translated :(glob) pathspecs (git ls-files, and git grep through
// Repo.Grep at a commit and in the work tree) equals what Compile
// selects and what the pattern is documented to select.

// globPaths are the files of globRepo: names at several depths, a directory
// named like a file, names a glob could confuse.
var globPaths = []string{
	"a.c", "b.h", "Makefile", "README.md",
	"src/a.c", "src/b.go", "src/main.go", "src/Makefile",
	"src/util/u.c", "src/util/u_test.go", "src/util/deep/d.c", "src/util/deep/x.go",
	"Src/A.C",
	"xdiff/xutils.c", "xdiff/xdiff.h",
	"docs/guide.md", "docs/api/index.md", "a/docs/h.md", "notdocs/n.md",
	"foo.c/bar.h",
	"tests/test_x.py", "pkg/tests/test_y.py", "pkg/tests_old/z.py", "test/t.py",
	"[abc", "lit/a*b", "lit/axb", "lit/[x]",
	"naïve/é.txt", "sp ace/f.txt", ".hidden/x.c",
	"odd/new\nline.c",
	"d1/d2/d3/d4/d5/leaf.c",
	"punct/a!b", "punct/ab",
}

func globRepo(t *testing.T) (*testrepo.Repo, string) {
	t.Helper()
	r := testrepo.New(t)
	for _, p := range globPaths {
		r.Write(p, "x\n")
	}
	return r, r.Commit("glob fixture")
}

// globCases are the documented readings: pattern → the files it selects.
var globCases = []struct {
	pattern string
	want    []string
}{
	// No "/": a name at any depth; a directory of that name, everything under it.
	{"*.c", []string{"a.c", "src/a.c", "src/util/u.c", "src/util/deep/d.c", "xdiff/xutils.c", "foo.c/bar.h", ".hidden/x.c", "odd/new\nline.c", "d1/d2/d3/d4/d5/leaf.c"}},
	{"*.go", []string{"src/b.go", "src/main.go", "src/util/u_test.go", "src/util/deep/x.go"}},
	{"Makefile", []string{"Makefile", "src/Makefile"}},
	{"docs", []string{"docs/guide.md", "docs/api/index.md", "a/docs/h.md"}},
	{"d3", []string{"d1/d2/d3/d4/d5/leaf.c"}},
	{"test_*.py", []string{"tests/test_x.py", "pkg/tests/test_y.py"}},
	{"?.c", []string{"a.c", "src/a.c", "src/util/u.c", "src/util/deep/d.c", ".hidden/x.c"}},
	{"[ab].c", []string{"a.c", "src/a.c"}},
	{"[!a].c", []string{"src/util/u.c", "src/util/deep/d.c", ".hidden/x.c"}},
	{"[^a].c", []string{"src/util/u.c", "src/util/deep/d.c", ".hidden/x.c"}},
	{"*.C", []string{"Src/A.C"}},                                      // case matters
	{"a**b", []string{"lit/a*b", "lit/axb", "punct/a!b", "punct/ab"}}, // a run of "*" within a name is one "*"
	{"a\\*b", []string{"lit/a*b"}},                                    // a quoted "*" is itself
	{"\\[abc", []string{"[abc"}},                                      // a quoted "[" is itself
	{"[[]x]", []string{"lit/[x]"}},                                    // so is a "[" in a class
	{"a[[:punct:]]b", []string{"punct/a!b", "lit/a*b"}},
	{"*", globPaths},
	{"**", globPaths},
	// A "/" at the start or in the middle: anchored at the root.
	{"/*.c", []string{"a.c", "foo.c/bar.h"}},
	{"/Makefile", []string{"Makefile"}},
	{"src/*.c", []string{"src/a.c"}},
	{"src/*.go", []string{"src/b.go", "src/main.go"}},
	{"./src/*.go", []string{"src/b.go", "src/main.go"}},
	{"src//util/*.c", []string{"src/util/u.c"}},
	{"src/**/*.c", []string{"src/a.c", "src/util/u.c", "src/util/deep/d.c"}},
	{"**/*.go", []string{"src/b.go", "src/main.go", "src/util/u_test.go", "src/util/deep/x.go"}},
	{"**/tests/**", []string{"tests/test_x.py", "pkg/tests/test_y.py"}},
	{"d1/**/leaf.c", []string{"d1/d2/d3/d4/d5/leaf.c"}},
	{"src", []string{"src/a.c", "src/b.go", "src/main.go", "src/Makefile", "src/util/u.c", "src/util/u_test.go", "src/util/deep/d.c", "src/util/deep/x.go"}},
	{"src/util", []string{"src/util/u.c", "src/util/u_test.go", "src/util/deep/d.c", "src/util/deep/x.go"}},
	{"src/*", []string{"src/a.c", "src/b.go", "src/main.go", "src/Makefile", "src/util/u.c", "src/util/u_test.go", "src/util/deep/d.c", "src/util/deep/x.go"}},
	{"*/deep/*", []string{}}, // anchored: deep is not at depth 2
	{"*/*/deep/*", []string{"src/util/deep/d.c", "src/util/deep/x.go"}},
	{"sp ace/*", []string{"sp ace/f.txt"}},
	{"naïve/*.txt", []string{"naïve/é.txt"}},
	{"naïve/?.txt", []string{}}, // "?" is one byte: é is two
	{"naïve/??.txt", []string{"naïve/é.txt"}},
	{"/", globPaths},
	// A trailing "/": directories, everything under them.
	{"docs/", []string{"docs/guide.md", "docs/api/index.md", "a/docs/h.md"}},
	{"/docs/", []string{"docs/guide.md", "docs/api/index.md"}},
	{"src/util/", []string{"src/util/u.c", "src/util/u_test.go", "src/util/deep/d.c", "src/util/deep/x.go"}},
	{"*.c/", []string{"foo.c/bar.h"}},
	{"Makefile/", []string{}}, // a file is not a directory
	{"tests*/", []string{"tests/test_x.py", "pkg/tests/test_y.py", "pkg/tests_old/z.py"}},
	// Nothing.
	{"nothing*", []string{}},
	{"src/*.py", []string{}},
}

func TestTranslateGlob(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    []string
	}{
		{"*.c", []string{"**/*.c", "**/*.c/**"}},
		{"Makefile", []string{"**/Makefile", "**/Makefile/**"}},
		{"/Makefile", []string{"Makefile", "Makefile/**"}},
		{"src/*.c", []string{"src/*.c", "src/*.c/**"}},
		{"./src//*.c", []string{"src/*.c", "src/*.c/**"}},
		{"src/**/*.go", []string{"src/**/*.go", "src/**/*.go/**"}},
		{"**/x", []string{"**/x", "**/x/**"}},
		{"docs/", []string{"**/docs/**"}},
		{"/docs/", []string{"docs/**"}},
		{"src/util/", []string{"src/util/**"}},
		{"src/**", []string{"src/**"}},
		{"src/***/x", []string{"src/**/x", "src/**/x/**"}},
		{"src/**/**/x", []string{"src/**/x", "src/**/x/**"}},
		{"a**b", []string{"**/a*b", "**/a*b/**"}},
		{`a\**b`, []string{`**/a\**b`, `**/a\**b/**`}},
		{`a\\**b`, []string{`**/a\\*b`, `**/a\\*b/**`}},
		{"*", []string{"**/*", "**/*/**"}},
		{"**", []string{"**"}},
		{"**/", []string{"**"}},
		{"/", []string{"**"}},
		{"", []string{"**"}},
	} {
		if got := globs.Translate(c.pattern); !slices.Equal(got, c.want) {
			t.Errorf("globs.Translate(%q) = %q, want %q", c.pattern, got, c.want)
		}
	}
}

// gitSelects is what git ls-files lists for the pathspecs (each given the
// magic), sorted.
func gitSelects(t *testing.T, r *testrepo.Repo, magic string, bodies []string) []string {
	t.Helper()
	args := []string{"ls-files", "-z", "--"}
	for _, b := range bodies {
		args = append(args, magic+b)
	}
	out := strings.TrimSuffix(r.Git(args...), "\x00")
	if out == "" {
		return []string{}
	}
	got := strings.Split(out, "\x00")
	slices.Sort(got)
	return got
}

func matcherSelects(m *globs.Set, paths []string) []string {
	got := []string{}
	for _, p := range paths {
		if m.MatchString(p) {
			got = append(got, p)
		}
	}
	slices.Sort(got)
	return got
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestGlobsAgreeWithGit(t *testing.T) {
	r, commit := globRepo(t)
	g := openRepo(t, r)
	for _, c := range globCases {
		bodies := globs.Translate(c.pattern)
		want := sorted(c.want)
		byGit := gitSelects(t, r, ":(glob)", bodies)
		byMatcher := matcherSelects(globs.Compile(bodies, false), globPaths)
		if !slices.Equal(byGit, want) {
			t.Errorf("%q (pathspecs %q): git selects %q, documented %q", c.pattern, bodies, byGit, want)
		}
		if !slices.Equal(byMatcher, want) {
			t.Errorf("%q (pathspecs %q): Compile selects %q, documented %q", c.pattern, bodies, byMatcher, want)
		}
		if problem := globs.Problem(c.pattern); problem != "" {
			t.Errorf("%q: Problem says %s", c.pattern, problem)
		}
		// The search itself, at the commit and in the work tree.
		for _, rev := range []string{commit, ""} {
			got := []string{}
			_, err := g.Grep(context.Background(), git.GrepOptions{Pattern: "x", Rev: rev, Globs: []string{c.pattern}}, func(m git.GrepMatch) error {
				got = append(got, m.Path)
				return nil
			})
			if err != nil {
				t.Fatalf("%q at %q: %v", c.pattern, rev, err)
			}
			if slices.Sort(got); !slices.Equal(got, want) {
				t.Errorf("%q: git grep at %q searches %q, documented %q", c.pattern, rev, got, want)
			}
		}
	}
}

// Compile reads any :(glob) pathspec as git does, odd ones included:
// for each body, git ls-files with the same magic is the oracle.
func TestGlobMatcherIsGits(t *testing.T) {
	r, _ := globRepo(t)
	bodies := []string{
		"*.c", "**/*.c", "*/*.c", "src/*", "src/**", "src/a**", "a**", "**a", "src/**b.go", "**/", "*/",
		"[abc", "[", "\\", "a\\", "\\[abc", "[[:foo:]]*", "[[:upper:]]*", "*[[:punct:]]*", "*[[:space:]]*",
		"[]]*", "[!]]*", "[a-]*", "[-a]*", "[z-a]*", "[a-c].*", "[!a-c].*", "*[!.]", "x/[a/b]", "lit/a[*]b",
		"**\\/leaf.c", "d1/**\\/leaf.c", "d1/**/d5/leaf.c", "d1/**/**/leaf.c", "**/d2/**/leaf.c",
		"na?ve/*", "na??ve/*", "naïve/\\é.txt", "[[:alpha:]]/*", "[[:digit:]]*/**", "a*b", "lit/a*b", "*b",
		"src", "src/util", "src/main.go", "Src",
	}
	for _, b := range bodies {
		if got, want := matcherSelects(globs.Compile([]string{b}, false), globPaths), gitSelects(t, r, ":(glob)", []string{b}); !slices.Equal(got, want) {
			t.Errorf(":(glob)%s: Compile selects %q, git %q", b, got, want)
		}
	}
	// icase, as the policy's exclusions use it.
	for _, b := range []string{"*.c", "src/**", "SRC/**", "**/*.C", "[A-Z]*", "[a-z]*.c", "[a]*", "[[:upper:]]*", "[[:lower:]]*/*", "src/A.c", "\\A*"} {
		if got, want := matcherSelects(globs.Compile([]string{b}, true), globPaths), gitSelects(t, r, ":(glob,icase)", []string{b}); !slices.Equal(got, want) {
			t.Errorf(":(glob,icase)%s: Compile selects %q, git %q", b, got, want)
		}
	}
}

// An unclosed "[" would not be a class: git matches ":(glob)[abc" only as
// the literal name "[abc" (and what is under it). That is not what one who
// writes it means, so Problem says so and the server refuses it.
func TestGlobProblems(t *testing.T) {
	r, _ := globRepo(t)
	if got := gitSelects(t, r, ":(glob)", []string{"[abc"}); !slices.Equal(got, []string{"[abc"}) {
		t.Fatalf(`control: git selects %q for ":(glob)[abc", want only the file named "[abc"`, got)
	}
	if got := gitSelects(t, r, ":(glob)", []string{"*[abc"}); len(got) != 0 {
		t.Fatalf(`control: git selects %q for ":(glob)*[abc", want nothing`, got)
	}
	for _, c := range []struct{ glob, problem string }{
		{"[abc", `the "[" at byte 1 is not closed by a "]"`},
		{"src/*[", `the "[" at byte 6 is not closed by a "]"`},
		{"[]", `the "[" at byte 1 is not closed by a "]"`},
		{"[!]", `the "[" at byte 1 is not closed by a "]"`},
		{"[a\\]", `the "[" at byte 1 is not closed by a "]"`},
		{"[[:alpha:]", `the "[" at byte 1 is not closed by a "]"`},
		{"[[:foo:]]", `"[:foo:]" is not a character class git knows`},
		{"a\\", `it ends with a "\" that quotes nothing`},
		{"[]]", ""},
		{"[[]", ""},
		{"\\[abc", ""},
		{"[[:alpha:]]", ""},
		{"[[:alpha]]", ""}, // no ":]": "[", ":", "a", … are members, then "]" closes it
		{"src/**/*.go", ""},
	} {
		if got := globs.Problem(c.glob); got != c.problem {
			t.Errorf("globs.Problem(%q) = %q, want %q", c.glob, got, c.problem)
		}
	}
}

// openRepo is internal/git on a test repository, with its own Env.
func openRepo(t *testing.T, r *testrepo.Repo) *git.Repo {
	t.Helper()
	env, err := git.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	g := git.Open(env, r.Dir+"/.git", r.Dir)
	t.Cleanup(g.Close)
	return g
}
