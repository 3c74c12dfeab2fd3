package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// lsTree is git's view of a tree: `git ls-tree -z TREEISH`.
func lsTree(t *testing.T, r *testrepo.Repo, treeish string) []Entry {
	t.Helper()
	var entries []Entry
	for _, rec := range strings.Split(strings.TrimSuffix(r.Git("ls-tree", "-z", treeish), "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, name, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		mode, err := strconv.ParseUint(f[0], 8, 32)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, Entry{Name: name, Mode: uint32(mode), OID: f[2]})
	}
	return entries
}

// lsPath is git's entry for one path of a commit.
func lsPath(t *testing.T, r *testrepo.Repo, commit, path string) Entry {
	t.Helper()
	out := strings.TrimSuffix(r.Git("ls-tree", "-z", "--full-tree", commit, "--", path), "\x00")
	meta, name, ok := strings.Cut(out, "\t")
	if !ok || name != path {
		t.Fatalf("git ls-tree %s -- %q = %q", commit, path, out)
	}
	f := strings.Fields(meta)
	mode, _ := strconv.ParseUint(f[0], 8, 32)
	return Entry{Name: path[strings.LastIndexByte(path, '/')+1:], Mode: uint32(mode), OID: f[2]}
}

// addBlob stages content at path with git plumbing only (so the path may
// hold anything git allows), and returns the blob id.
func addBlob(t *testing.T, r *testrepo.Repo, mode, path, content string) string {
	t.Helper()
	oid := strings.TrimSpace(r.Git("hash-object", "-w", writeTemp(t, content)))
	r.Git("update-index", "--add", "--cacheinfo", mode+","+oid+","+path)
	return oid
}

func TestLookupAndReadTree(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	r.Write("dir/b.txt", "b\n")
	r.Write("dir/deeper/c.txt", "c\n")
	r.Write("with space.txt", "space\n")
	r.Write("ünïcødé/ファイル.txt", "unicode\n")
	r.Write("run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(r.Dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Symlink("a.txt", "link")
	r.Symlink("dir", "dirlink")
	first := r.Commit("files")
	addBlob(t, r, "100644", "dir/a\nb", "newline\n")
	addBlob(t, r, "100644", "dir/tab\there", "tab\n")
	addBlob(t, r, "100644", "nl\ndir/inner.txt", "inner\n")
	addBlob(t, r, "100644", "dir/..foo", "dots\n")
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+first+",sub")
	r.Git("commit", "-q", "-m", "plumbing")
	commit := r.Head()
	g := open(t, r)
	ctx := context.Background()

	// ReadTree of every tree equals git ls-tree.
	for _, treeish := range []string{commit + "^{tree}", commit + ":dir", commit + ":dir/deeper", commit + ":ünïcødé"} {
		oid := strings.TrimSpace(r.Git("rev-parse", treeish))
		got, err := g.ReadTree(ctx, oid)
		if err != nil {
			t.Fatalf("ReadTree(%s): %v", treeish, err)
		}
		if want := lsTree(t, r, oid); !slices.Equal(got, want) {
			t.Errorf("ReadTree(%s) =\n%+v\nwant\n%+v", treeish, got, want)
		}
	}
	if _, err := g.ReadTree(ctx, lsPath(t, r, commit, "a.txt").OID); err == nil {
		t.Error("ReadTree of a blob succeeded")
	}

	kinds := map[string]string{
		"a.txt": KindFile, "run.sh": KindFile, "with space.txt": KindFile, "ünïcødé/ファイル.txt": KindFile,
		"dir": KindDir, "dir/deeper": KindDir, "dir/deeper/c.txt": KindFile, "nl\ndir": KindDir,
		"link": KindSymlink, "dirlink": KindSymlink, "sub": KindSubmodule,
		"dir/a\nb": KindFile, "dir/tab\there": KindFile, "nl\ndir/inner.txt": KindFile, "dir/..foo": KindFile,
	}
	for path, kind := range kinds {
		got, err := g.Lookup(ctx, commit, path)
		if err != nil {
			t.Errorf("Lookup(%q): %v", path, err)
			continue
		}
		if want := lsPath(t, r, commit, path); got != want || got.Kind() != kind {
			t.Errorf("Lookup(%q) = %+v (%s), want %+v (%s)", path, got, got.Kind(), want, kind)
		}
	}
	if e, _ := g.Lookup(ctx, commit, "run.sh"); e.Mode != 0o100755 {
		t.Errorf("run.sh mode %o", e.Mode)
	}
	if e, _ := g.Lookup(ctx, commit, "link"); readBlob(t, g, e.OID) != "a.txt" {
		t.Error("symlink blob is not its target")
	}
	root, err := g.Lookup(ctx, commit, "")
	if want := strings.TrimSpace(r.Git("rev-parse", commit+"^{tree}")); err != nil || root.OID != want || root.Kind() != KindDir {
		t.Errorf("Lookup(root) = %+v, %v", root, err)
	}

	for _, path := range []string{
		"nope", "dir/nope", "nope/x", "a.txt/x", "dir/b.txt/x", "link/x", "dirlink/b.txt", "sub/x",
		"dir/a", "dir/a\nc", "nl\ndir/nope", "nl\nnope/x", "a.txt/x\ny", "dir/deeper/c.txt/\n",
	} {
		if e, err := g.Lookup(ctx, commit, path); !errors.Is(err, ErrMissing) {
			t.Errorf("Lookup(%q) = %+v, %v; want ErrMissing", path, e, err)
		}
	}
	if _, err := g.Lookup(ctx, strings.Repeat("0", 40), "a.txt"); !errors.Is(err, ErrMissing) {
		t.Errorf("Lookup in a missing commit = %v", err)
	}
}

func TestSHA256(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	cmd := exec.Command("git", "init", "-q", "--object-format=sha256", "-b", "main", dir)
	cmd.Env = testrepo.Env(t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("git cannot make a SHA-256 repository: %v %s", err, out)
	}
	r := testrepo.Init(t, dir) // re-initialises: the object format stays
	if got := strings.TrimSpace(r.Git("rev-parse", "--show-object-format")); got != "sha256" {
		t.Fatalf("object format %s", got)
	}
	r.Write("a.txt", "a\n")
	r.Write("dir/b.txt", "b\n")
	r.Symlink("a.txt", "link")
	commit := r.Commit("sha256")
	if len(commit) != 64 {
		t.Fatalf("commit id %s", commit)
	}
	g := open(t, r)
	ctx := context.Background()
	if got, err := g.CommitID(ctx, "main"); err != nil || got != commit {
		t.Fatalf("CommitID = %s, %v", got, err)
	}
	tree := strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}"))
	entries, err := g.ReadTree(ctx, tree)
	if err != nil {
		t.Fatal(err)
	}
	if want := lsTree(t, r, tree); !slices.Equal(entries, want) {
		t.Fatalf("ReadTree = %+v, want %+v", entries, want)
	}
	for _, path := range []string{"a.txt", "dir", "dir/b.txt", "link"} {
		if got, err := g.Lookup(ctx, commit, path); err != nil || got != lsPath(t, r, commit, path) {
			t.Errorf("Lookup(%q) = %+v, %v", path, got, err)
		}
	}
	if got := readBlob(t, g, commit+":dir/b.txt"); got != "b\n" {
		t.Errorf("ReadObject = %q", got)
	}
	if last, err := g.LastCommitFor(ctx, commit, "a.txt"); err != nil || last.OID != commit {
		t.Errorf("LastCommitFor = %+v, %v", last, err)
	}
}

func TestParseTree(t *testing.T) {
	oid := func(b byte) string { return strings.Repeat(string(rune(b)), 20) }
	good := "100644 a\x00" + oid(1) + "40000 d\x00" + oid(2) + "120000 l i n k\x00" + oid(3)
	entries, err := parseTree([]byte(good), 20)
	if err != nil || len(entries) != 3 || entries[1] != (Entry{"d", 0o40000, "0202020202020202020202020202020202020202"}) || entries[2].Name != "l i n k" {
		t.Fatalf("parseTree = %+v, %v", entries, err)
	}
	if entries, err := parseTree(nil, 20); err != nil || len(entries) != 0 {
		t.Fatalf("empty tree = %+v, %v", entries, err)
	}
	for _, bad := range []string{
		"100644 a\x00" + oid(1)[:19], // short id
		"100644a\x00" + oid(1),       // no space before the NUL
		"10x644 a\x00" + oid(1),      // not octal
		"100644 a" + oid(1),          // no NUL
		"a\x00b " + oid(1),           // NUL before the space
	} {
		if _, err := parseTree([]byte(bad), 20); err == nil {
			t.Errorf("parseTree(%q) succeeded", bad)
		}
	}
}
