package git

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// gitCheckAttr is git's answer: `git check-attr --cached` over a temporary
// index holding commit's tree, so only the commit's .gitattributes count
// (no work tree, no info/attributes, no system or user file).
func gitCheckAttr(t *testing.T, dir, commit string, paths []string, names ...string) map[string][]Attr {
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
	got := map[string][]Attr{}
	for i := 0; i+2 < len(fields); i += 3 {
		got[fields[i]] = append(got[fields[i]], parseCheckAttr(fields[i+2]))
	}
	return got
}

func parseCheckAttr(info string) Attr {
	switch info {
	case "unspecified":
		return Attr{}
	case "set":
		return Attr{State: AttrSet}
	case "unset":
		return Attr{State: AttrUnset}
	}
	return Attr{State: AttrValue, Value: info}
}

// readStack reads the .gitattributes of every directory above path.
func readStack(t *testing.T, g *Repo, commit, path string) []*AttrFile {
	t.Helper()
	var stack []*AttrFile
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

// compareWithGit checks CheckAttr against git for every path and name.
func compareWithGit(t *testing.T, r *testrepo.Repo, commit string, paths []string, names ...string) {
	t.Helper()
	g := open(t, r)
	want := gitCheckAttr(t, r.Dir, commit, paths, names...)
	if len(want) != len(paths) {
		t.Fatalf("git answered for %d paths of %d", len(want), len(paths))
	}
	said := 0 // answers other than "unspecified": the comparison means something
	for _, p := range paths {
		for _, a := range want[p] {
			if a.State != AttrUnspecified {
				said++
			}
		}
	}
	t.Logf("git specified %d of %d answers", said, len(paths)*len(names))
	for _, p := range paths {
		got := CheckAttr(readStack(t, g, commit, p), p, names...)
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

func TestReadAttrFile(t *testing.T) {
	r := testrepo.New(t)
	r.Write(".gitattributes", "*.go linguist-generated\n")
	r.Write("big/.gitattributes", "*.go linguist-generated\n"+strings.Repeat("# padding\n", 2000))
	r.Symlink("../.gitattributes", "link/.gitattributes")
	r.Write("dir/.gitattributes/x", "*.go linguist-generated\n")
	r.Write("exec/.gitattributes", "*.go linguist-generated\n")
	if err := os.Chmod(filepath.Join(r.Dir, "exec", ".gitattributes"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Commit("files")
	addBlob(t, r, "100644", "new\nline/.gitattributes", "*.go linguist-generated\n")
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",sub/.gitattributes")
	r.Git("commit", "-q", "-m", "plumbing")
	commit := r.Head()
	g := open(t, r)
	ctx := context.Background()

	tests := []struct {
		dir     string
		read    bool   // a file comes back
		ignored string // the error says this, wrapping ErrAttrIgnored
	}{
		{dir: "", read: true},
		{dir: "exec", read: true},
		{dir: "new\nline", read: true},
		{dir: "nowhere"},
		{dir: "exec/.gitattributes"}, // below a file
		{dir: "sub"},                 // a submodule named .gitattributes: its commit is not here
		{dir: "big", ignored: `"big/.gitattributes" is 20024 bytes, over the 1000-byte limit`},
		{dir: "link", ignored: `"link/.gitattributes" is a symlink, not a file`},
		{dir: "dir", ignored: `"dir/.gitattributes" is a dir, not a file`},
	}
	for _, tt := range tests {
		f, err := g.ReadAttrFile(ctx, commit, tt.dir, 1000)
		switch {
		case tt.ignored != "":
			if !errors.Is(err, ErrAttrIgnored) || !strings.Contains(err.Error(), tt.ignored) || f != nil {
				t.Errorf("%q: got %v, %v; want an error saying %q", tt.dir, f, err, tt.ignored)
			}
		case err != nil || (f != nil) != tt.read:
			t.Errorf("%q: got %v, %v; want a file: %v", tt.dir, f, err, tt.read)
		case f != nil && (f.Dir != tt.dir || CheckAttr([]*AttrFile{f}, tt.dir+"/a.go", "linguist-generated")[0].State != AttrSet):
			t.Errorf("%q: read %+v", tt.dir, f)
		}
	}
	if f, err := g.ReadAttrFile(ctx, commit, "big", 1<<20); err != nil || f == nil {
		t.Errorf("big under a larger limit: %v, %v", f, err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.ReadAttrFile(cancelled, commit, "", 1000); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestParseAttrFileBOM(t *testing.T) {
	f := ParseAttrFile("", []byte("\xef\xbb\xbf*.go linguist-generated\r\n"))
	if got := CheckAttr([]*AttrFile{f}, "a.go", "linguist-generated")[0]; got.State != AttrSet {
		t.Errorf("after a byte order mark: %+v", got)
	}
}

func TestCheckAttrSkipsOtherDirectories(t *testing.T) {
	other := ParseAttrFile("other", []byte("* linguist-generated\n"))
	deeper := ParseAttrFile("a/b", []byte("* linguist-generated\n"))
	similar := ParseAttrFile("a", []byte("* linguist-vendored\n"))
	got := CheckAttr([]*AttrFile{other, similar, deeper}, "ab/x.go", "linguist-generated", "linguist-vendored")
	if got[0].State != AttrUnspecified || got[1].State != AttrUnspecified {
		t.Errorf("files of other directories counted: %+v", got)
	}
}

// The matcher takes no exponential turn on many stars.
func TestWildcardManyStars(t *testing.T) {
	unlimited := int64(math.MaxInt64)
	w := compileWildcard(strings.Repeat("*a", 200) + "b")
	if w.match(strings.Repeat("a", 4000), &unlimited) {
		t.Error("matched")
	}
	w = compileWildcard(strings.Repeat("**/", 100) + "x")
	if !w.match(strings.Repeat("d/", 1000)+"x", &unlimited) {
		t.Error("no match")
	}
}

// A hostile file (long patterns full of stars, tried on long paths) runs
// out the budget instead of the clock, and the answer says so.
func TestAttrMatcherBudget(t *testing.T) {
	line := strings.Repeat("*a", 1000) + " linguist-generated\n"
	f := ParseAttrFile("", []byte(strings.Repeat(line, 100)))
	long := strings.Repeat("a", 1000) + "b" // no match: every rule is tried to its end
	m := AttrMatcher{Budget: 10_000_000}
	start := time.Now()
	if attrs, ok := m.Check([]*AttrFile{f}, long, "linguist-generated"); ok || attrs != nil {
		t.Errorf("got %v, %v past the budget", attrs, ok)
	}
	if _, ok := m.Check([]*AttrFile{f}, "b", "linguist-generated"); ok {
		t.Error("answered after the budget ran out")
	}
	if d := time.Since(start); d > 10*time.Second { // about 20 ms; far more under -race
		t.Errorf("took %v", d)
	}
	m = AttrMatcher{Budget: 10_000_000}
	if attrs, ok := m.Check([]*AttrFile{f}, "a/b.go", "linguist-generated"); !ok || attrs[0].State != AttrUnspecified {
		t.Errorf("a short path: %v, %v", attrs, ok)
	}
	if m.Budget <= 0 || m.Budget == 10_000_000 {
		t.Errorf("budget left %d", m.Budget)
	}
}
