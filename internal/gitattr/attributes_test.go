package gitattr_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitattr"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// gitCheckAttr is git's answer: `git check-attr --cached` over a temporary
// index holding commit's tree, so only the commit's .gitattributes count
// (no work tree, no info/attributes, no system or user file).
func gitCheckAttr(t *testing.T, dir, commit string, paths []string, names ...string) map[string][]gitattr.Attr {
	t.Helper()
	home := t.TempDir()
	env := append(testrepo.Env(home), "GIT_ATTR_NOSYSTEM=1", "GIT_INDEX_FILE="+filepath.Join(home, "index"))
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	run("", "read-tree", commit)
	out := run(strings.Join(paths, "\x00")+"\x00", append([]string{"check-attr", "--cached", "-z", "--stdin"}, names...)...)
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	got := map[string][]gitattr.Attr{}
	for i := 0; i+2 < len(fields); i += 3 {
		got[fields[i]] = append(got[fields[i]], parseCheckAttr(fields[i+2]))
	}
	return got
}

func parseCheckAttr(info string) gitattr.Attr {
	switch info {
	case "unspecified":
		return gitattr.Attr{}
	case "set":
		return gitattr.Attr{State: gitattr.Set}
	case "unset":
		return gitattr.Attr{State: gitattr.Unset}
	}
	return gitattr.Attr{State: gitattr.Value, Value: info}
}

// readStack reads the .gitattributes of every directory above path.
func readStack(t *testing.T, g *git.Repo, commit, path string) []*gitattr.File {
	t.Helper()
	var stack []*gitattr.File
	dirs := []string{""}
	for i := range len(path) {
		if path[i] == '/' {
			dirs = append(dirs, path[:i])
		}
	}
	for _, d := range dirs {
		f, err := g.ReadAttrFile(context.Background(), commit, d, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if f != nil {
			stack = append(stack, f)
		}
	}
	return stack
}

// compareWithGit checks gitattr.Check against git for every path and name.
func compareWithGit(t *testing.T, r *testrepo.Repo, commit string, paths []string, names ...string) {
	t.Helper()
	g := openRepo(t, r)
	want := gitCheckAttr(t, r.Dir, commit, paths, names...)
	if len(want) != len(paths) {
		t.Fatalf("git answered for %d paths of %d", len(want), len(paths))
	}
	said := 0 // answers other than "unspecified": the comparison means something
	for _, p := range paths {
		for _, a := range want[p] {
			if a.State != gitattr.Unspecified {
				said++
			}
		}
	}
	t.Logf("git specified %d of %d answers", said, len(paths)*len(names))
	for _, p := range paths {
		got := gitattr.Check(readStack(t, g, commit, p), p, names...)
		for i, n := range names {
			if got[i] != want[p][i] {
				t.Errorf("%q %s: got %+v, git says %+v", p, n, got[i], want[p][i])
			}
		}
	}
}

// wildPatterns are patterns for the rules of gitignore-style matching and
// for wildmatch's corners; each gets an attribute of its own.
var wildPatterns = []string{
	"*.go", "*.pb.go", "go.sum", "/a.txt", "a.txt", "b/*.txt", "b/**", "**/c", "**/c/**",
	"b/**/x.go", "**/*.go", "*/x.go", "[ab].txt", "[!a]*.txt", "[^x]*", "?.txt", "??.go",
	"c/", "d*s/*", `"sp ace.txt"`, `"q\"uote.txt"`, `"oct\141l.txt"`, `"bad\qescape"`,
	`\!bang.txt`, "*.[gt]x*", "[[:alpha:]].go", "[[:digit:]]*", "[[:space:]]*", "[[:punct:]]*",
	"[[:upper:]]*", "[[:xdigit:]][[:lower:]]", "[[:cntrl:]]*", "[[:blank:]]*", "[[:graph:]]x", "[[:print:]]x", "[[:alnum:]]*", "[[:bogus:]]*", "[[:alpha:]", "[a-c]*.go", "[a-]*.go",
	"[]a]*", "[!]a]*", `[\]]*`, `[a\-z]*`, "[z-a]*", "[--0]*", "a[", `a\`, "foo**/bar",
	"foo/**bar", "**bar", "a/**/b/**/c", "**/", "**", "*", "b/c/**", "x/**/", `\*.txt`, `a\*.txt`,
	"a?c/d", "***/x.go", "b/***/x.go", `b\/x.go`, `**\/x.go`, `"**/q.go"`, "[[:alpha:]-z]*",
	"[a-[:digit:]]*", "[[:]]*", "[[:a]*", "[[::]]*", "*/", "/", "//x.go", "b//x.go", "[/]x.go",
	"b[/]x.go", "b?x.go", "b*x.go", "**/b/**/x.go", "*.TXT", "new*line.go", `"new\nline.go"`,
	"/**/x.go", "b/**/", "**/**/x.go", "a/**b/c", "a**/b", "[[:alpha:]]**/x.go",
}

var wildPaths = []string{
	"a.txt", "b.txt", "x.go", "y.pb.go", "go.sum", "sub/go.sum", "b/a.txt", "b/c/a.txt", "b/x.go",
	"b/c/x.go", "b/c/d/x.go", "c", "c/x", "b/c", "b/c/e/f", "sp ace.txt", `q"uote.txt`, "octal.txt",
	"!bang.txt", `"bad\qescape"`, "a.gx", "z.tz", "1.go", "A.go", "7abc", "foo/bar", "foobar",
	"foox/y/bar", "foo/xbar", "foo/x/bar", "xbar", "bar", "a/b/c", "a/x/b/y/c", "a/b/y/c", "*.txt",
	"a*.txt", "ab.txt", "abc/d", "a/c/d", "]x", "-x", `\x`, "docs/a", "dos/b", "a[", `a\`, "x/y/z/x.go",
	"ab.go", "c.go", "zz", "}x", "~x", "[x", "README", ".hidden", "new\nline.go", "b/q.go", "q.go",
	"x/q.go", "A.TXT", "bxx.go", "a/xb/c", "ax/b", "a/b", "0f", "fa", "Fa", "\tx", " x", "é.go",
	"a/x/y/b/z/c", "b/c/d/e/x.go", "x/x.go", "a.txt/x", "b/b/x.go",
	"\vx", "\fx", "\rx", "\nx", "\x7fx", "\x1fx", "\x80x", "~", "@x", "`x", "{x", "_x",
}

func TestAttrPatternsMatchGit(t *testing.T) {
	r := testrepo.New(t)
	// The same patterns at the root and in a subdirectory, whose paths
	// they are matched relative to; each line sets an attribute of its own.
	var root, sub strings.Builder
	var names []string
	for i, p := range wildPatterns {
		fmt.Fprintf(&root, "%s r%d\n", p, i)
		fmt.Fprintf(&sub, "%s s%d\n", p, i)
		names = append(names, fmt.Sprintf("r%d", i), fmt.Sprintf("s%d", i))
	}
	r.Write(".gitattributes", root.String())
	r.Write("b/.gitattributes", sub.String())
	commit := r.Commit("attributes")
	paths := append([]string{}, wildPaths...)
	for _, p := range wildPaths {
		paths = append(paths, "b/"+p)
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	compareWithGit(t, r, commit, paths, names...)
}

func TestAttrLinesMatchGit(t *testing.T) {
	r := testrepo.New(t)
	long := "x27 linguist-generated " + strings.Repeat("x", 2048)
	r.Write(".gitattributes", strings.Join([]string{
		"x1 linguist-generated",
		"x2 -linguist-generated",
		"x3 !linguist-generated",
		"x4 linguist-generated=true",
		"x5 linguist-generated=false",
		"x6 linguist-generated=",
		"x7 linguist-generated=a=b",
		"x8 =bad linguist-generated", // an invalid name drops the line
		"x9 linguist-generated -linguist-generated",
		"x10 -linguist-generated=true",
		"   x11   linguist-generated  ",
		"x12\tlinguist-generated\r",
		"#x13 linguist-generated",
		"x14 linguist-generated --bad",
		`"x15" linguist-generated`,
		`"x 16"linguist-generated`,
		"[attr]m1 linguist-generated linguist-vendored",
		"[attr]m2 m1 -linguist-generated",
		"x17 m1",
		"x18 m2",
		"x19 m1 -m1",
		"x20 -m1 m1",
		"x21 linguist-generated",
		"x21 -linguist-generated",
		"x22 m1",
		"x22 -m1",
		"!x23 linguist-generated",
		`\!x23 linguist-generated`,
		"[attr]m3 linguist-vendored",
		"[attr]m3 -linguist-vendored", // the later definition wins
		"x24 m3",
		"[attr]loop1 loop2 linguist-generated",
		"[attr]loop2 loop1",
		"x25 loop2",
		"x26 linguist-vendored",
		"x26 !linguist-vendored",
		long,
		"x28 linguist-generated " + strings.Repeat("y", 2000),
		"[attr] linguist-generated",
		"[attr]",
		"x29",
		"x30 linguist-generated\x00x31 linguist-generated",
		"x31 linguist-generated", // after the NUL: git reads no further
		"",
	}, "\n"))
	r.Write("b/.gitattributes", strings.Join([]string{
		"[attr]m4 linguist-generated", // not allowed outside the root
		"x1 m4",
		"x2 m1",
		"x3 -m1",
		"/x4 linguist-vendored",
		"c/x5 linguist-vendored",
		"x6 linguist-generated=true",
		"",
	}, "\n"))
	commit := r.Commit("attributes")
	var paths []string
	for i := 1; i <= 31; i++ {
		paths = append(paths, fmt.Sprintf("x%d", i), fmt.Sprintf("b/x%d", i), fmt.Sprintf("b/c/x%d", i))
	}
	paths = append(paths, "x 16", "!x23", "a", "t", "r", "[attr]", "m1", "b/m4")
	compareWithGit(t, r, commit, paths, "linguist-generated", "linguist-vendored", "m1", "m4", "loop1", "loop2", "bad")
}

func TestParseAttrFileBOM(t *testing.T) {
	f := gitattr.Parse("", []byte("\xef\xbb\xbf*.go linguist-generated\r\n"))
	if got := gitattr.Check([]*gitattr.File{f}, "a.go", "linguist-generated")[0]; got.State != gitattr.Set {
		t.Errorf("after a byte order mark: %+v", got)
	}
}

func TestCheckAttrSkipsOtherDirectories(t *testing.T) {
	other := gitattr.Parse("other", []byte("* linguist-generated\n"))
	deeper := gitattr.Parse("a/b", []byte("* linguist-generated\n"))
	similar := gitattr.Parse("a", []byte("* linguist-vendored\n"))
	got := gitattr.Check([]*gitattr.File{other, similar, deeper}, "ab/x.go", "linguist-generated", "linguist-vendored")
	if got[0].State != gitattr.Unspecified || got[1].State != gitattr.Unspecified {
		t.Errorf("files of other directories counted: %+v", got)
	}
}

// A hostile file (long patterns full of stars, tried on long paths) runs
// out the budget instead of the clock, and the answer says so.
func TestAttrMatcherBudget(t *testing.T) {
	line := strings.Repeat("*a", 1000) + " linguist-generated\n"
	f := gitattr.Parse("", []byte(strings.Repeat(line, 100)))
	long := strings.Repeat("a", 1000) + "b" // no match: every rule is tried to its end
	m := gitattr.Matcher{Budget: 10_000_000}
	start := time.Now()
	if attrs, ok := m.Check([]*gitattr.File{f}, long, "linguist-generated"); ok || attrs != nil {
		t.Errorf("got %v, %v past the budget", attrs, ok)
	}
	if _, ok := m.Check([]*gitattr.File{f}, "b", "linguist-generated"); ok {
		t.Error("answered after the budget ran out")
	}
	if d := time.Since(start); d > 10*time.Second { // about 20 ms; far more under -race
		t.Errorf("took %v", d)
	}
	m = gitattr.Matcher{Budget: 10_000_000}
	if attrs, ok := m.Check([]*gitattr.File{f}, "a/b.go", "linguist-generated"); !ok || attrs[0].State != gitattr.Unspecified {
		t.Errorf("a short path: %v, %v", attrs, ok)
	}
	if m.Budget <= 0 || m.Budget == 10_000_000 {
		t.Errorf("budget left %d", m.Budget)
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
