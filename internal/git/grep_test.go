package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/globs"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// parseGrep reads git grep -z records exactly: a path holding newlines ends
// at its NUL, a text holding NULs at its newline.
func TestParseGrep(t *testing.T) {
	long := strings.Repeat("x", 3*grepTextMax)
	in := "REV:new\nline.txt\x001\x003\x00a needle\n" +
		"REV:data.txt\x00803\x001\x007\x00FAKE\x00needle\n" +
		"REV:long.txt\x002\x001\x00" + long + "\n" +
		"REV:" + strings.Repeat("p", grepPathMax+1) + "\x001\x001\x00dropped: its path is too long\n" +
		"REV:last.txt\x009\x002\x00no newline at the end"
	var got []string
	err := parseGrep(strings.NewReader(in), "REV:", func(m GrepMatch) error {
		got = append(got, fmt.Sprintf("%q %d %q %v", m.Path, m.Line, m.Text, m.Cut))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`"new\nline.txt" 1 "a needle" false`,
		`"data.txt" 803 "7\x00FAKE\x00needle" false`,
		fmt.Sprintf(`"long.txt" 2 %q true`, long[:grepTextMax]),
		`"last.txt" 9 "no newline at the end" false`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []string{"REV:a\x00x\x001\x00t\n", "REV:a\x001\x00", "other:a\x001\x001\x00t\n"} {
		if err := parseGrep(strings.NewReader(bad), "REV:", func(GrepMatch) error { return nil }); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	stop := parseGrep(strings.NewReader(in), "REV:", func(GrepMatch) error { return ErrStopGrep })
	if !errors.Is(stop, ErrStopGrep) {
		t.Errorf("stop: %v", stop)
	}
}

func TestGlobMatcher(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		want       bool
	}{
		{"*.txt", "a.txt", true},
		{"*.txt", "d/a.txt", false},
		{"**/*.txt", "d/e/a.txt", true},
		{"**/*.txt", "a.txt", true},
		{"big/**", "big/x/y", true},
		{"big", "big/x", true},
		{"src/**/*.go", "src/a.go", true},
		{"src/**/*.go", "src/a/b/c.go", true},
		{"src/**/*.go", "lib/a.go", false},
		{"[ab].txt", "b.txt", true},
		{"[!ab].txt", "b.txt", false},
		{"?.txt", "new\nline.txt", false},
		{"**", "new\nline.txt", true},
	} {
		if got := globs.Compile([]string{c.glob}, false).MatchString(c.path); got != c.want {
			t.Errorf("%q ~ %q = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
}

// Files over MaxFileBytes are skipped at a revision and in the work tree,
// and counted when the search would have read them.
func TestGrepSkipsLargeFiles(t *testing.T) {
	r := testrepo.New(t)
	r.Write("big.txt", strings.Repeat("needle\n", 300))
	r.Write("dir/new\nline big.txt", strings.Repeat("needle\n", 300))
	r.Write("small.txt", "needle\n")
	r.Symlink("big.txt", "link.txt")
	commit := r.Commit("files")
	g := open(t, r)
	search := func(o GrepOptions) ([]string, int) {
		t.Helper()
		var paths []string
		res, err := g.Grep(context.Background(), o, func(m GrepMatch) error {
			if len(paths) == 0 || paths[len(paths)-1] != m.Path {
				paths = append(paths, m.Path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return paths, res.Skipped
	}
	for _, rev := range []string{commit, ""} {
		o := GrepOptions{Pattern: "needle", Rev: rev, MaxFileBytes: 1000}
		if paths, skipped := search(o); strings.Join(paths, ",") != "small.txt" || skipped != 2 {
			t.Errorf("rev %q: %q, skipped %d", rev, paths, skipped)
		}
		o.Globs = []string{"dir/**"}
		if paths, skipped := search(o); len(paths) != 0 || skipped != 1 {
			t.Errorf("rev %q, dir/**: %q, skipped %d", rev, paths, skipped)
		}
		o.Globs, o.Exclude = nil, []string{"BIG.txt"}
		if paths, skipped := search(o); strings.Join(paths, ",") != "small.txt" || skipped != 1 {
			t.Errorf("rev %q, excluding big.txt: %q, skipped %d", rev, paths, skipped)
		}
		o.Exclude, o.MaxFileBytes = nil, 0
		if paths, skipped := search(o); len(paths) != 3 || skipped != 0 {
			t.Errorf("rev %q, no limit: %q, skipped %d", rev, paths, skipped)
		}
	}
	// The list for a commit is kept: the same search does not list again.
	if _, ok := g.memo.get("large-blobs\x00" + commit + "\x001000"); !ok {
		t.Error("the large-file list of a commit is not kept")
	}
	// More large files than a command line can name: refused, unless the
	// globs narrow them down.
	many := testrepo.New(t)
	for i := range maxSkipped + 1 {
		p := filepath.Join(many.Dir, "d", fmt.Sprintf("%05d.txt", i))
		if i == 0 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, []byte("0123456789\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	many.Write("small/a.txt", "x\n")
	c := many.Commit("many")
	gm := open(t, many)
	var tooMany *TooManyLargeFilesError
	_, err := gm.Grep(context.Background(), GrepOptions{Pattern: "x", Rev: c, MaxFileBytes: 5}, func(GrepMatch) error { return nil })
	if !errors.As(err, &tooMany) || tooMany.Files != maxSkipped+1 {
		t.Errorf("too many large files: %v", err)
	}
	res, err := gm.Grep(context.Background(), GrepOptions{Pattern: "x", Rev: c, MaxFileBytes: 5, Globs: []string{"small/**"}}, func(GrepMatch) error { return nil })
	if err != nil || res.Skipped != 0 {
		t.Errorf("narrowed by globs: %+v, %v", res, err)
	}
}

// grepSkips, which matches each large file's path against every glob, stops
// when the call's deadline passes (docs/security.md, finding 11).
func TestGrepSkipsStopsAtDeadline(t *testing.T) {
	large := make([]string, 1000)
	for i := range large {
		large[i] = fmt.Sprintf("%s/f%05d", strings.Repeat("x", 800), i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &Repo{}
	_, _, err := r.grepSkips(ctx, GrepOptions{MaxFileBytes: 1, Exclude: []string{"**/.env*", "**/*.pem"}}, large)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("grepSkips after the deadline: %v", err)
	}
}

// BenchmarkExcludeLongPath matches an 800-byte path against exclusions
// shaped like the secrets policy's (each name pattern at any depth and as
// a directory): what grepSkips and GlobsSelectFile pay per path.
func BenchmarkExcludeLongPath(b *testing.B) {
	var exclude []string
	for _, name := range []string{".env*", "*.pem", "*.key", "*.p12*", "*.pfx*", "*.jks*", "*.keystore*", "secring.*",
		"*private*.asc", ".netrc", ".git-credentials", ".npmrc", "credentials.json", "secrets.yml", "service-account*.json",
		"*.tfstate", "*.tfstate.*", "id_[dr]sa", "id_[dr]sa*[^b]", "id_ecdsa*[^b]", "id_ed25519*[^b]", ".ssh", ".aws"} {
		exclude = append(exclude, "**/"+name, "**/"+name+"/**")
	}
	m := globs.Compile(exclude, true)
	path := strings.Repeat(strings.Repeat("x", 199)+"/", 4) + "f00001"
	for b.Loop() {
		m.MatchString(path)
	}
}
