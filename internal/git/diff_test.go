package git

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// diffRange is a repository whose range base..head has every kind of change.
func diffRange(t *testing.T) (r *testrepo.Repo, base, head string) {
	r = testrepo.New(t)
	r.Write("keep.txt", "same\n")
	r.Write("mod.txt", "one\n")
	r.Write("old name.txt", "a file that will be renamed\nwith enough lines\nto be similar\n")
	r.Write("gone.txt", "bye\n")
	r.Write("mode.sh", "#!/bin/sh\n")
	r.Write("bin.dat", "\x00\x01")
	r.Write("tab\tname.txt", "tab\n")
	base = r.Commit("base")
	r.Write("mod.txt", "one\ntwo\nthree\n")
	r.Git("mv", "old name.txt", "new name.txt")
	r.Git("rm", "-q", "gone.txt")
	r.Write("added/naïve.txt", "new\n")
	r.Git("update-index", "--chmod=+x", "mode.sh")
	r.Write("bin.dat", "\x00\x02")
	r.Write("tab\tname.txt", "tab\ntab\n")
	head = r.Commit("head")
	return r, base, head
}

func TestChangedFilesMatchesGit(t *testing.T) {
	r, base, head := diffRange(t)
	g := open(t, r)
	changes, total, err := g.ChangedFilesPage(context.Background(), DiffOptions{From: base, To: head}, 0, 1000)
	if err != nil || total != len(changes) {
		t.Fatalf("%d changes of %d: %v", len(changes), total, err)
	}
	var got []string
	for _, c := range changes {
		counts := "-\t-"
		if !c.Binary {
			counts = strconv.Itoa(c.Added) + "\t" + strconv.Itoa(c.Deleted)
		}
		got = append(got, string(c.Status)+" "+c.OldPath+" -> "+c.Path+" "+counts)
	}
	// The oracle: git's own name-status and numstat, NUL-separated.
	ns := strings.Split(strings.TrimSuffix(r.Git("diff", "-M", "-z", "--name-status", base, head), "\x00"), "\x00")
	num := strings.Split(strings.TrimSuffix(r.Git("diff", "-M", "-z", "--numstat", base, head), "\x00"), "\x00")
	var want []string
	for i, j := 0, 0; i < len(ns); {
		status, p1 := ns[i], ns[i+1]
		p2 := p1
		i += 2
		if status[0] == 'R' || status[0] == 'C' {
			p2 = ns[i]
			i++
		}
		counts := strings.Join(strings.SplitN(num[j], "\t", 3)[:2], "\t")
		j++
		if strings.HasSuffix(num[j-1], "\t") { // a rename: two names follow
			j += 2
		}
		want = append(want, status[:1]+" "+p1+" -> "+p2+" "+counts)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Every page is the same slice of git's list, counts included.
	for from := 0; from <= len(changes); from++ {
		for n := 0; n <= 3; n++ {
			page, total, err := g.ChangedFilesPage(context.Background(), DiffOptions{From: base, To: head}, from, n)
			if err != nil || total != len(changes) || !slices.Equal(page, changes[from:min(from+n, len(changes))]) {
				t.Fatalf("page %d+%d = %v of %d (%v), want %v", from, n, page, total, err, changes[from:min(from+n, len(changes))])
			}
			// A page that fit cuts after k changes is the first k of it
			// (one at least); fit is asked of every change it takes.
			for k := 0; k <= 3; k++ {
				asked := 0
				fit := func(Change) bool { asked++; return asked <= k }
				cut, total, err := g.ChangedFilesPageFit(context.Background(), DiffOptions{From: base, To: head}, from, n, fit)
				want := changes[from:min(from+n, len(changes), from+max(k, 1))]
				if err != nil || total != len(changes) || !slices.Equal(cut, want) {
					t.Fatalf("page %d+%d cut after %d = %v of %d (%v), want %v", from, n, k, cut, total, err, want)
				}
			}
		}
	}
}

// EachChange lists what git lists, stops when asked, and answers the same
// from memory the second time.
func TestEachChange(t *testing.T) {
	r, base, head := diffRange(t)
	g := open(t, r)
	opts := DiffOptions{From: base, To: head}
	all, total, err := g.ChangedFilesPage(context.Background(), opts, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		var seen []string
		n, err := g.EachChange(context.Background(), opts, func(i int, c Change) error {
			seen = append(seen, c.Path)
			return nil
		})
		if err != nil || n != total || len(seen) != len(all) || seen[len(seen)-1] != all[len(all)-1].Path {
			t.Fatalf("round %d: %d of %d: %v (%v)", round, n, total, seen, err)
		}
		n, err = g.EachChange(context.Background(), opts, func(i int, c Change) error {
			if i == 1 {
				return ErrStop
			}
			return nil
		})
		if err != nil || n != 2 {
			t.Fatalf("round %d: stopped at %d, %v", round, n, err)
		}
	}
}

func TestPatchIsGitsPatch(t *testing.T) {
	r, base, head := diffRange(t)
	g := open(t, r)
	for _, opts := range []DiffOptions{
		{From: base, To: head, Context: 3},
		{From: base, To: head, Context: 0},
		{From: base, To: head, Context: 3, Paths: []string{"mod.txt", "added"}},
	} {
		var patch string
		err := g.Patch(context.Background(), opts, func(p io.Reader) error {
			data, err := io.ReadAll(p)
			patch = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"diff", "-M", "-U" + strconv.Itoa(opts.Context), base, head, "--"}, opts.Paths...)
		if want := r.Git(args...); patch != want {
			t.Errorf("%+v: patch differs from git's\ngot\n%s\nwant\n%s", opts, patch, want)
		}
		n, err := g.EachChange(context.Background(), opts, func(int, Change) error { return nil })
		if err != nil || n != strings.Count(patch, "\ndiff --git ")+1 {
			t.Errorf("%+v: %d changes for the patch's sections (%v)", opts, n, err)
		}
	}
}

// IgnoreWhitespace is git's -w everywhere: the patch is `git diff -w`, and
// the line counts are `git diff -w --numstat`'s, a change in whitespace
// only counted as no line (git gives it no numstat record and no section,
// but it stays in the file list, as --raw lists it).
func TestIgnoreWhitespaceIsGitsDashW(t *testing.T) {
	r := testrepo.New(t)
	r.Write("spaces.txt", "a b\nc\n")
	r.Write("mixed.txt", "one\ntwo\n")
	r.Write("moved.txt", numbered(30))
	base := r.Commit("base")
	r.Write("spaces.txt", "a  b \n\tc\n")      // whitespace only
	r.Write("mixed.txt", "one \ntwo\nthree\n") // a space and a line
	r.Git("mv", "moved.txt", "renamed.txt")
	r.Write("renamed.txt", strings.Replace(numbered(30), "line 7\n", "line  7\n", 1))
	head := r.Commit("head")
	g := open(t, r)
	opts := DiffOptions{From: base, To: head, Context: 3, IgnoreWhitespace: true}
	var patch string
	if err := g.Patch(context.Background(), opts, func(p io.Reader) error {
		data, err := io.ReadAll(p)
		patch = string(data)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if want := r.Git("diff", "-M", "-w", base, head); patch != want || patch == r.Git("diff", "-M", base, head) {
		t.Fatalf("patch differs from git diff -w (or is the plain diff)\ngot\n%s\nwant\n%s", patch, want)
	}
	changes, total, err := g.ChangedFilesPage(context.Background(), opts, 0, 10)
	if err != nil || total != 3 || len(changes) != 3 {
		t.Fatalf("%d of %d changes (%v), want the 3 of --raw", len(changes), total, err)
	}
	want := map[string]string{}
	for _, rec := range strings.Split(strings.TrimSpace(r.Git("diff", "-M", "-w", "--numstat", base, head)), "\n") {
		f := strings.SplitN(rec, "\t", 3)
		want[f[2]] = f[0] + " " + f[1]
	}
	for _, c := range changes {
		name := c.Path
		if c.OldPath != c.Path {
			name = c.OldPath + " => " + c.Path
		}
		w, ok := want[name]
		if !ok {
			w = "0 0" // no record: whitespace only
		}
		if got := strconv.Itoa(c.Added) + " " + strconv.Itoa(c.Deleted); got != w {
			t.Errorf("%s: %s lines, git diff -w --numstat says %s", name, got, w)
		}
	}
	if _, ok := want["spaces.txt"]; ok {
		t.Fatal("fixture: git -w counts spaces.txt")
	}
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

func TestPatchStopsGit(t *testing.T) {
	r, base, head := diffRange(t)
	g := open(t, r)
	stop := errors.New("enough")
	if err := g.Patch(context.Background(), DiffOptions{From: base, To: head, Context: 3}, func(io.Reader) error { return stop }); err != stop {
		t.Fatalf("err = %v", err)
	}
	// Returning nil before reading the patch is not an error either.
	if err := g.Patch(context.Background(), DiffOptions{From: base, To: head}, func(io.Reader) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// A diff started before its reader is ready gives the patch Patch gives;
// abandoned, or its context ended before it is read, its git ends and
// holds no process slot.
func TestStartPatch(t *testing.T) {
	r, base, head := diffRange(t)
	g := open(t, r)
	opts := DiffOptions{From: base, To: head, Context: 3}
	var patch string
	err := g.StartPatch(context.Background(), opts).Read(func(p io.Reader) error {
		data, err := io.ReadAll(p)
		patch = string(data)
		return err
	})
	if want := r.Git("diff", "-M", base, head); err != nil || patch != want {
		t.Fatalf("patch differs from git's (%v)\ngot\n%s\nwant\n%s", err, patch, want)
	}
	g.StartPatch(context.Background(), opts).Abandon()
	ctx, cancel := context.WithCancel(context.Background())
	late := g.StartPatch(ctx, opts)
	cancel()
	if err := late.Read(func(io.Reader) error { return nil }); err == nil {
		t.Error("a diff whose context ended was read")
	}
	ended := func() bool {
		return len(procsWith(t, "--git-dir="+r.GitDir()+" ", " diff ")) == 0 && g.env.SlotsInUse() == 0
	}
	if !eventually(5*time.Second, ended) {
		t.Errorf("git diff still running (%v), or %d process slots still taken", procsWith(t, "--git-dir="+r.GitDir()+" ", " diff "), g.env.SlotsInUse())
	}
}

func TestMergeBase(t *testing.T) {
	r := testrepo.New(t)
	root := r.Commit("root")
	r.Git("checkout", "-q", "-b", "side")
	side := r.Commit("side")
	r.Git("checkout", "-q", "main")
	main := r.Commit("main")
	g := open(t, r)
	if mb, err := g.MergeBase(context.Background(), main, side); err != nil || mb != root {
		t.Fatalf("MergeBase = %s, %v; want %s", mb, err, root)
	}
	r.Git("checkout", "-q", "--orphan", "lonely")
	lonely := r.Commit("lonely")
	if _, err := g.MergeBase(context.Background(), main, lonely); !errors.Is(err, ErrNoMergeBase) {
		t.Fatalf("unrelated: %v", err)
	}
}
