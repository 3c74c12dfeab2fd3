package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// gitLsTree is plain git's listing of dir: `git ls-tree -l -z [-r]
// --full-tree COMMIT -- dir/` (everything under dir, full paths), read
// independently of ListTree's parser.
func gitLsTree(t testing.TB, r *testrepo.Repo, commit, dir string, recursive bool) []TreeEntry {
	t.Helper()
	args := []string{"ls-tree", "-l", "-z", "--full-tree"}
	if recursive {
		args = append(args, "-r")
	}
	args = append(args, commit)
	if dir != "" {
		args = append(args, "--", dir+"/")
	}
	var entries []TreeEntry
	for _, rec := range strings.Split(r.Git(args...), "\x00") {
		if rec == "" {
			continue
		}
		meta, path, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		mode, err := strconv.ParseUint(f[0], 8, 32)
		if err != nil {
			t.Fatal(err)
		}
		size := int64(-1)
		if f[3] != "-" {
			size, _ = strconv.ParseInt(f[3], 10, 64)
		}
		entries = append(entries, TreeEntry{Path: path, Mode: uint32(mode), Type: f[1], OID: f[2], Size: size})
	}
	return entries
}

// listTreeAll collects a whole ListTree.
func listTreeAll(g *Repo, commit, dir string, recursive bool) ([]TreeEntry, error) {
	var entries []TreeEntry
	err := g.ListTree(context.Background(), commit, dir, recursive, func(e TreeEntry) error {
		entries = append(entries, e)
		return nil
	})
	return entries, err
}

// treeHistory is a commit whose tree has every kind of entry and odd names
// (spaces, newlines, tabs, quotes, unicode, a colon, a leading dash), a
// symlink, an executable, a submodule whose commit is in the repository
// (as a gitlink never is for real), an empty file and a large one.
func treeHistory(t *testing.T) (r *testrepo.Repo, commit string) {
	t.Helper()
	r = testrepo.New(t)
	r.Write("a.txt", "a\n")
	r.Write("dir/b.txt", "bee\n")
	r.Write("dir/deeper/c.txt", strings.Repeat("c", 100000))
	r.Write("dir/empty.txt", "")
	r.Write("with space/x y.txt", "space\n")
	r.Write("ünïcødé/ファイル.txt", "unicode\n")
	r.Write("colon:dir/-dash.txt", "colon\n")
	r.Write(`quote"and\back/f`, "q\n")
	r.Write("run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(r.Dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Symlink("dir", "dirlink")
	r.Symlink("a.txt", "dir/link")
	first := r.Commit("files")
	addBlob(t, r, "100644", "nl\ndir/inner\nfile.txt", "newline\n")
	addBlob(t, r, "100644", "dir/tab\there", "tab\n")
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+first+",dir/sub")
	r.Git("commit", "-q", "-m", "plumbing")
	return r, r.Head()
}

func TestListTreeMatchesGit(t *testing.T) {
	r, commit := treeHistory(t)
	g := open(t, r)
	for _, dir := range []string{"", "dir", "dir/deeper", "with space", "ünïcødé", "nl\ndir", "colon:dir", `quote"and\back`} {
		for _, recursive := range []bool{false, true} {
			got, err := listTreeAll(g, commit, dir, recursive)
			want := gitLsTree(t, r, commit, dir, recursive)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("ListTree(%q, recursive %v) = %v\n%+v\nwant\n%+v", dir, recursive, err, got, want)
			}
		}
	}
	// Every kind, from the modes.
	entries, _ := listTreeAll(g, commit, "dir", false)
	kinds := map[string]string{}
	for _, e := range entries {
		kinds[e.Path] = e.Kind() + " " + e.Type + " " + strconv.FormatInt(e.Size, 10)
	}
	for path, want := range map[string]string{
		"dir/b.txt": "file blob 4", "dir/empty.txt": "file blob 0", "dir/deeper": "dir tree -1",
		"dir/link": "symlink blob 5", "dir/sub": "submodule commit -1", "dir/tab\there": "file blob 4",
	} {
		if kinds[path] != want {
			t.Errorf("%q: %q, want %q", path, kinds[path], want)
		}
	}
	all, _ := listTreeAll(g, commit, "", true)
	if i := slices.IndexFunc(all, func(e TreeEntry) bool { return e.Path == "run.sh" }); i < 0 || all[i].Mode != 0o100755 {
		t.Errorf("run.sh: %+v", all)
	}
	if slices.ContainsFunc(all, func(e TreeEntry) bool { return e.Type == "tree" }) {
		t.Error("a recursive listing lists directories")
	}
}

// The caller stops git after a page; errors other than ErrStop come back.
func TestListTreeStops(t *testing.T) {
	r := testrepo.New(t)
	head := r.CommitWide(commitFile(r, "a.txt", "a\n", "one"), 20000, 2, "wide")
	g := open(t, r)
	n := 0
	start := time.Now()
	err := g.ListTree(context.Background(), head, "", true, func(e TreeEntry) error {
		if n++; n == 10 {
			return ErrStop
		}
		return nil
	})
	if err != nil || n != 10 {
		t.Fatalf("ListTree stopped = %v after %d entries", err, n)
	}
	t.Logf("10 of 20000 entries in %v", time.Since(start))
	boom := errors.New("boom")
	if err := g.ListTree(context.Background(), head, "", true, func(TreeEntry) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("ListTree = %v, want the callback's error", err)
	}
	all, err := listTreeAll(g, head, "", true)
	if err != nil || len(all) != 20000 || !strings.HasSuffix(all[19999].Path, "/f0019999") {
		t.Fatalf("ListTree = %d entries, %v", len(all), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	if err := g.ListTree(ctx, head, "", true, func(TreeEntry) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ListTree past its deadline = %v", err)
	}
}

func TestListTreeErrors(t *testing.T) {
	r, commit := treeHistory(t)
	g := openSettingsOnly(t, r)
	ctx := context.Background()
	none := func(TreeEntry) error { return nil }

	// An empty result: the empty tree.
	empty := strings.TrimSpace(r.Git("commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "-m", "empty"))
	if got, err := listTreeAll(g, empty, "", true); err != nil || len(got) != 0 {
		t.Errorf("ListTree of the empty tree = %+v, %v", got, err)
	}
	for _, dir := range []string{"a.txt", "dir/b.txt", "dirlink", "dir/link", "dir/sub", "run.sh"} {
		if err := g.ListTree(ctx, commit, dir, false, none); !errors.Is(err, ErrNotDir) {
			t.Errorf("ListTree(%q) = %v, want ErrNotDir", dir, err)
		}
	}
	for _, dir := range []string{"nope", "dir/nope", "a.txt/x", "dirlink/b.txt", "dir/sub/x", "nl", "nl\ndir/nope", "-r", "--full-name"} {
		if err := g.ListTree(ctx, commit, dir, true, none); !errors.Is(err, ErrMissing) {
			t.Errorf("ListTree(%q) = %v, want ErrMissing", dir, err)
		}
	}
	if err := g.ListTree(ctx, strings.Repeat("ab", 20), "", false, none); !errors.Is(err, ErrMissing) {
		t.Errorf("ListTree in a missing commit = %v", err)
	}
	// Refused before git runs.
	for _, tc := range [][2]string{
		{"--output=x", ""}, {"-" + commit[1:], ""}, {"HEAD", ""}, {commit[:12], ""}, {commit + ":dir", ""},
		{commit, ".."}, {commit, "../x"}, {commit, "dir/.."}, {commit, "/"}, {commit, "/etc"}, {commit, "dir/"}, {commit, "."}, {commit, "./dir"},
	} {
		if err := g.ListTree(ctx, tc[0], tc[1], false, none); err == nil || errors.Is(err, ErrMissing) || errors.Is(err, ErrNotDir) {
			t.Errorf("ListTree(%q, %q) = %v, want a refusal", tc[0], tc[1], err)
		}
	}
}

// A repository's config neither runs a program through ListTree nor
// changes what it lists.
func TestListTreeHostileConfig(t *testing.T) {
	r, commit := treeHistory(t)
	want, err := listTreeAll(open(t, r), commit, "", true)
	if err != nil {
		t.Fatal(err)
	}
	m := newMarker(t, "evil", "exit 0")
	hostileReadConfig(t, r, m)
	for _, g := range []*Repo{open(t, r), openSettingsOnly(t, r)} {
		for _, dir := range []string{"", "dir"} {
			got, err := listTreeAll(g, commit, dir, dir == "")
			if err != nil || (dir == "" && !slices.Equal(got, want)) || len(got) == 0 {
				t.Errorf("ListTree(%q) in the hostile repository = %d entries, %v", dir, len(got), err)
			}
		}
		m.MustNotRun("ListTree")
	}
}

// BenchmarkListTree: a recursive listing with sizes through ListTree, and
// plain git ls-tree printing the same.
func BenchmarkListTree(b *testing.B) {
	r := historyRepo(b, 2, 20000)
	head := r.Head()
	g := open(b, r)
	b.Run("recursive", func(b *testing.B) {
		benchVersus(b, func(b *testing.B) {
			n := 0
			if err := g.ListTree(context.Background(), head, "", true, func(TreeEntry) error { n++; return nil }); err != nil || n != 20000 {
				b.Fatal(n, err)
			}
		}, func(b *testing.B) { plainGitBench(b, r, "ls-tree", "-r", "-l", "-z", head) })
	})
	b.Run("first-100", func(b *testing.B) {
		benchVersus(b, func(b *testing.B) {
			n := 0
			err := g.ListTree(context.Background(), head, "", true, func(TreeEntry) error {
				if n++; n == 100 {
					return ErrStop
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}, func(b *testing.B) { plainGitBench(b, r, "ls-tree", "-r", "-l", "-z", head) })
	})
	b.Run("one-level", func(b *testing.B) {
		dir := fmt.Sprintf("dir%02d", 7)
		benchVersus(b, func(b *testing.B) {
			if err := g.ListTree(context.Background(), head, dir, false, func(TreeEntry) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}, func(b *testing.B) { plainGitBench(b, r, "ls-tree", "-l", "-z", head+":"+dir) })
	})
}
