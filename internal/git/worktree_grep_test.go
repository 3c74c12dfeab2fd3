package git

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A work-tree search finds what git grep on the work tree finds, in git's
// order, for every kind of index entry an honest work tree has: clean,
// modified, racily clean, assume-unchanged (its blob, as git), intent-to-add,
// unmerged, deleted, a path with a newline; and the context reader hands
// back the content that was searched. git grep on the real work tree is the
// oracle.
func TestWorkTreeGrepIsGits(t *testing.T) {
	r := testrepo.New(t)
	r.Write("clean.txt", "needle clean\n")
	r.Write("modified.txt", "needle old\n")
	r.Write("assumed.txt", "needle in the index\n")
	r.Write("deleted.txt", "needle deleted\n")
	r.Write("dir/new\nline.txt", "needle newline\n")
	r.Write("conflict.txt", "base\n")
	r.Commit("one")
	r.Git("checkout", "-q", "-b", "side")
	r.Write("conflict.txt", "needle side\n")
	r.Commit("side")
	r.Git("checkout", "-q", "main")
	r.Write("conflict.txt", "needle main\n")
	r.Commit("main")
	if _, err := r.TryGit("merge", "-q", "side"); err == nil {
		t.Fatal("the merge did not conflict")
	}
	time.Sleep(10 * time.Millisecond) // the index older than what follows: not racily clean
	r.Write("modified.txt", "needle new\n")
	r.Git("update-index", "--assume-unchanged", "assumed.txt")
	r.Write("assumed.txt", "needle in the work tree\n")
	os.Remove(filepath.Join(r.Dir, "deleted.txt"))
	r.Write("ita.txt", "needle intent\n")
	r.Git("add", "-N", "ita.txt")
	want := r.Git("grep", "-z", "-n", "--column", "-e", "needle")

	g := open(t, r)
	var got strings.Builder
	res, err := g.Grep(context.Background(), GrepOptions{Pattern: "needle", MaxFileBytes: 1 << 20}, func(m GrepMatch) error {
		got.WriteString(m.Path + "\x00" + strconv.Itoa(m.Line) + "\x00" + string(m.Text) + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Searched.Close()
	if got.String() != records(t, want) {
		t.Fatalf("work-tree search:\n%q\ngit grep:\n%q", got.String(), records(t, want))
	}
	for path, content := range map[string]string{"modified.txt": "needle new\n", "clean.txt": "needle clean\n", "assumed.txt": "needle in the index\n"} {
		var read string
		err := res.Searched.Read(context.Background(), path, func(rd io.Reader) error {
			b, err := io.ReadAll(rd)
			read = string(b)
			return err
		})
		if err != nil || read != content {
			t.Errorf("Searched.Read(%q) = %q, %v; want %q", path, read, err, content)
		}
	}
}

// records reads git grep -z -n --column output (parseGrep, whose own test
// is TestParseGrep) as "PATH\0LINE\0TEXT\n" records.
func records(t *testing.T, out string) string {
	t.Helper()
	var b strings.Builder
	err := parseGrep(strings.NewReader(out), "", func(m GrepMatch) error {
		b.WriteString(m.Path + "\x00" + strconv.Itoa(m.Line) + "\x00" + string(m.Text) + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Files written within the same clock tick as the index are racily clean:
// their stat cannot tell, so the search reads them itself, and one whose
// content is its blob is searched as the blob, without a private index.
func TestWorkTreeGrepRacilyClean(t *testing.T) {
	r := testrepo.New(t)
	for i := range 20 {
		r.Write(fmt.Sprintf("f%02d.txt", i), fmt.Sprintf("needle %d\n", i))
	}
	r.Commit("one")
	// Make every file racy: its mtime no older than the index's.
	past := time.Now().Add(-time.Hour)
	index := filepath.Join(r.Dir, ".git", "index")
	if err := os.Chtimes(index, past, past); err != nil {
		t.Fatal(err)
	}
	g := open(t, r)
	n := 0
	res, err := g.Grep(context.Background(), GrepOptions{Pattern: "needle"}, func(GrepMatch) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer res.Searched.Close()
	if n != 20 {
		t.Fatalf("%d matches, want 20", n)
	}
	if len(res.Searched.copied) != 0 || len(res.Searched.blobs) != 20 {
		t.Errorf("%d files searched as copies, %d as blobs; want 0 and 20", len(res.Searched.copied), len(res.Searched.blobs))
	}
}

// The index's listing is kept while the index file stays the same, and
// read again once git writes a new one.
func TestWorkTreeGrepIndexListingKept(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "needle one\n")
	r.Commit("one")
	g := open(t, r)
	search := func() string {
		t.Helper()
		var got []string
		res, err := g.Grep(context.Background(), GrepOptions{Pattern: "needle"}, func(m GrepMatch) error {
			got = append(got, m.Path+": "+string(m.Text))
			return nil
		})
		res.Searched.Close()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, "\n")
	}
	if got := search(); got != "a.txt: needle one" {
		t.Fatalf("first search: %q", got)
	}
	if g.index.entries == nil {
		t.Fatal("the index's listing was not kept")
	}
	r.Write("b.txt", "needle two\n")
	r.Git("add", "b.txt")
	if got := search(); got != "a.txt: needle one\nb.txt: needle two" {
		t.Fatalf("after git add: %q", got)
	}
}
