package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// logHistory is a repository whose history holds what a log meets: a root
// commit, a rename (with changes), a merge and its side branch, an empty
// commit, a subject over two lines and a body, names outside ASCII, and
// dates in several zones. ids names its commits.
func logHistory(t testing.TB) (r *testrepo.Repo, ids map[string]string) {
	t.Helper()
	r = testrepo.New(t)
	ids = map[string]string{}
	commit := func(name, date string, msg ...string) {
		r.Git("add", "-A")
		args := []string{"commit", "-q", "--allow-empty", "--date=" + date}
		for _, m := range msg {
			args = append(args, "-m", m)
		}
		r.Git(args...)
		ids[name] = r.Head()
	}
	r.Write("a.txt", "one\n")
	r.Write("dir/b.txt", strings.Repeat("a line of b that is long enough to be similar\n", 8))
	r.Write("ünï/ファイル.txt", "unicode\n")
	commit("root", "2020-01-01T00:00:00+05:30", "root commit")
	r.Write("a.txt", "one\ntwo\n")
	commit("two", "2020-01-02T00:00:00-08:00", "second\nline of the subject", "A body.\n\nWith two paragraphs.")
	r.Git("mv", "dir/b.txt", "dir/renamed b.txt")
	r.Write("dir/renamed b.txt", strings.Repeat("a line of b that is long enough to be similar\n", 8)+"and one more\n")
	commit("rename", "2020-01-03T00:00:00Z", "rename b")
	r.Git("branch", "side", ids["root"])
	r.Git("switch", "-q", "side")
	r.Write("side.txt", "side\n")
	r.Write("a.txt", "one\n") // the same as at root: the merge keeps main's
	commit("side", "2020-01-04T00:00:00+01:00", "side work")
	r.Git("switch", "-q", "main")
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	ids["merge"] = r.Head()
	commit("empty", "2020-01-05T00:00:00+00:00", "an empty commit")
	r.Write("a.txt", "one\ntwo\nthree\n")
	r.Write("ünï/ファイル.txt", "unicode again\n")
	commit("last", "2020-01-06T00:00:00+09:00", "Ünïcødé sübject ✓")
	return r, ids
}

// gitLogFormat is the oracle's format: every field, body last.
const gitLogFormat = "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%s%x00%b"

// gitLog is plain git's log: `git log -z` with gitLogFormat and args, and
// each commit's file count from `git diff --name-only -M` against its first
// parent (the empty tree for a root commit), counted once per commit in
// files.
func gitLog(t testing.TB, r *testrepo.Repo, files map[string]int, args ...string) []Commit {
	t.Helper()
	out := r.Git(append([]string{"log", "-z", gitLogFormat}, args...)...)
	tok := strings.Split(out, "\x00")
	if len(tok)%10 != 1 {
		t.Fatalf("git log: %d tokens", len(tok))
	}
	var commits []Commit
	for i := 0; i+10 < len(tok); i += 10 {
		f := tok[i : i+10]
		c := Commit{
			SHA: f[0], Parents: strings.Fields(f[1]), ParentCount: len(strings.Fields(f[1])),
			Author:    Person{f[2], f[3], parseISODate(f[4])},
			Committer: Person{f[5], f[6], parseISODate(f[7])},
			Subject:   f[8], Body: f[9],
		}
		n, ok := files[c.SHA]
		if !ok {
			base := "4b825dc642cb6eb9a060e54bf8d69288fbee4904" // the empty tree
			if len(c.Parents) > 0 {
				base = c.Parents[0]
			}
			n = strings.Count(r.Git("diff", "--name-only", "-z", "-M", "-l5000", base, c.SHA), "\x00")
			files[c.SHA] = n
		}
		c.FilesChanged = n
		commits = append(commits, c)
	}
	return commits
}

// logPage is the part of all that Log's options ask for.
func logPage(all []Commit, o LogOptions) []Commit {
	var want []Commit
	for i := o.Skip; i < len(all) && i < o.Skip+o.Limit; i++ {
		c := all[i]
		if !o.WithBody {
			c.Body = ""
		}
		if !o.WithFileCount {
			c.FilesChanged = 0
		}
		want = append(want, c)
	}
	return want
}

// sameCommits compares commits field by field, dates as instants in the
// same zone offset.
func sameCommits(t testing.TB, what string, got, want []Commit) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d commits, want %d:\n got %s\nwant %s", what, len(got), len(want), shortIDs(got), shortIDs(want))
		return
	}
	for i := range got {
		g, w := got[i], want[i]
		if !samePerson(g.Author, w.Author) || !samePerson(g.Committer, w.Committer) {
			t.Errorf("%s: commit %d: people %+v %+v, want %+v %+v", what, i, g.Author, g.Committer, w.Author, w.Committer)
		}
		g.Author, g.Committer, w.Author, w.Committer = Person{}, Person{}, Person{}, Person{}
		if !slices.Equal(g.Parents, w.Parents) {
			t.Errorf("%s: commit %d: parents %q, want %q", what, i, g.Parents, w.Parents)
		}
		g.Parents, w.Parents = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: commit %d:\n got %+v\nwant %+v", what, i, g, w)
		}
	}
}

func samePerson(a, b Person) bool {
	_, za := a.Date.Zone()
	_, zb := b.Date.Zone()
	return a.Name == b.Name && a.Email == b.Email && a.Date.Equal(b.Date) && za == zb
}

func shortIDs(cs []Commit) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.SHA[:7])
	}
	return strings.Join(s, " ")
}

func TestLogMatchesGit(t *testing.T) {
	r, ids := logHistory(t)
	g := open(t, r)
	ctx := context.Background()
	files := map[string]int{}
	type rng struct {
		from, to string
		paths    []string
	}
	for _, rg := range []rng{
		{"", ids["last"], nil},
		{ids["root"], ids["last"], nil},
		{ids["side"], ids["last"], nil},
		{ids["two"], ids["merge"], nil},
		{"", ids["last"], []string{"a.txt"}},
		{"", ids["last"], []string{"dir"}},
		{"", ids["last"], []string{"dir/renamed b.txt", "side.txt"}},
		{"", ids["last"], []string{"ünï/ファイル.txt"}},
		{"", ids["last"], []string{"nothing/here"}},
		{ids["last"], ids["last"], nil},
		{"", ids["root"], nil},
	} {
		args := []string{rg.to}
		if rg.from != "" {
			args = append(args, "^"+rg.from)
		}
		args = append(append(args, "--"), rg.paths...)
		newest := gitLog(t, r, files, args...)
		oldest := gitLog(t, r, files, append([]string{"--reverse"}, args...)...)
		n, err := g.CountCommits(ctx, rg.from, rg.to, rg.paths)
		if want := strings.TrimSpace(r.Git(append([]string{"rev-list", "--count"}, args...)...)); err != nil || fmt.Sprint(n) != want || n != len(newest) {
			t.Errorf("CountCommits(%v) = %d, %v; git rev-list --count says %s, git log lists %d", args, n, err, want, len(newest))
		}
		for _, reverse := range []bool{false, true} {
			all := newest
			if reverse {
				all = oldest
			}
			for _, skip := range []int{0, 1, len(all) - 1, len(all), len(all) + 1} {
				for _, limit := range []int{1, 2, len(all) + 1} {
					if skip < 0 {
						continue
					}
					o := LogOptions{From: rg.from, To: rg.to, Paths: rg.paths, Reverse: reverse, Skip: skip, Limit: limit,
						WithBody: skip%2 == 0, WithFileCount: limit%2 == 1}
					got, err := g.Log(ctx, o)
					if err != nil {
						t.Fatalf("Log(%+v): %v", o, err)
					}
					sameCommits(t, fmt.Sprintf("Log(%v reverse=%v skip=%d limit=%d)", args, reverse, skip, limit), got, logPage(all, o))
				}
			}
		}
	}

	// What the history is made of shows through.
	all, err := g.Log(ctx, LogOptions{To: ids["last"], Limit: 100, WithBody: true, WithFileCount: true})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Commit{}
	for name, id := range ids {
		for _, c := range all {
			if c.SHA == id {
				byName[name] = c
			}
		}
	}
	for name, want := range map[string]int{"root": 3, "two": 1, "rename": 1, "side": 1, "merge": 1, "empty": 0, "last": 2} {
		if got := byName[name].FilesChanged; got != want {
			t.Errorf("%s: FilesChanged %d, want %d", name, got, want)
		}
	}
	if c := byName["two"]; c.Subject != "second line of the subject" || c.Body != "A body.\n\nWith two paragraphs.\n" {
		t.Errorf("two: subject %q, body %q", c.Subject, c.Body)
	}
	if c := byName["merge"]; len(c.Parents) != 2 || c.Parents[0] != ids["rename"] || c.Parents[1] != ids["side"] {
		t.Errorf("merge: parents %q", c.Parents)
	}
	// MaxParents keeps the first parents and counts them all.
	if few, err := g.Log(ctx, LogOptions{To: ids["merge"], Limit: 1, MaxParents: 1}); err != nil || len(few) != 1 ||
		!slices.Equal(few[0].Parents, []string{ids["rename"]}) || few[0].ParentCount != 2 {
		t.Errorf("merge with MaxParents 1: %+v, %v", few, err)
	}
	if c := byName["root"]; len(c.Parents) != 0 || c.Author.Date.Format(time.RFC3339) != "2020-01-01T00:00:00+05:30" {
		t.Errorf("root: parents %q, author date %v", c.Parents, c.Author.Date)
	}
	if c := byName["last"]; c.Author.Name != "Test Author" || c.Committer.Email != "committer@example.com" || c.Subject != "Ünïcødé sübject ✓" {
		t.Errorf("last: %+v", c)
	}
}

// Without paths, a Log counts its merges' files in its own git log
// (--diff-merges=first-parent): one git process, not two (issue 14). With
// paths, which a diff of merges would change the walk of, merges are
// counted by a second process. TestLogMatchesGit holds both to git.
func TestLogRunsOneBufferedProcess(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		flag  string
		apart bool
	}{
		{nil, "--diff-merges=first-parent", false},
		{[]string{"a.txt"}, "--diff-merges=off", true},
	} {
		o := LogOptions{To: strings.Repeat("a", 40), Paths: tc.paths, Limit: 10, WithFileCount: true}
		c := logCommand(o, 0, o.Limit)
		if !slices.Contains(c.Args(), tc.flag) || mergesApart(o) != tc.apart {
			t.Errorf("paths %q: args %q, merges apart %v; want %s, apart %v", tc.paths, c.Args(), mergesApart(o), tc.flag, tc.apart)
		}
	}
	// Both of Log's commands are read whole: git need not flush each
	// commit (GIT_FLUSH=0), which costs a write and a wake-up per commit.
	for _, c := range []*gitexec.Cmd{logCommand(LogOptions{To: strings.Repeat("a", 40), Limit: 10}, 0, 10), mergesCommand([]string{strings.Repeat("a", 40)})} {
		if !slices.Contains(c.Env(), "GIT_FLUSH=0") {
			t.Errorf("%q: environment %q, want GIT_FLUSH=0", c.Args(), c.Env())
		}
	}
	r, ids := logHistory(t)
	got, err := open(t, r).Log(context.Background(), LogOptions{To: ids["last"], Limit: 10, WithFileCount: true})
	if err != nil {
		t.Fatal(err)
	}
	want := logPage(gitLog(t, r, map[string]int{}, ids["last"]), LogOptions{Limit: 10, WithFileCount: true})
	sameCommits(t, "Log without paths", got, want)
}

// The oldest-first window is computed from the count: pages of every size
// cover the range exactly once, in order, whatever the page size.
func TestLogReversePages(t *testing.T) {
	r := testrepo.New(t)
	for i := range 11 {
		commitFile(r, "f.txt", fmt.Sprintf("%d\n", i), fmt.Sprintf("c%02d", i))
	}
	g := open(t, r)
	head := r.Head()
	want := gitLog(t, r, map[string]int{}, "--reverse", head)
	for _, size := range []int{1, 3, 10, 11, 12} {
		var got []Commit
		for skip := 0; ; skip += size {
			p, err := g.Log(context.Background(), LogOptions{To: head, Reverse: true, Skip: skip, Limit: size, WithBody: true, WithFileCount: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(p) == 0 {
				break
			}
			got = append(got, p...)
		}
		sameCommits(t, fmt.Sprintf("pages of %d", size), got, want)
	}
}

// Commits git itself finds odd: a NUL in the message (git stops there), a
// date git cannot read, fields longer than Log keeps, a message in
// another encoding (git re-encodes it to UTF-8).
func TestLogOddCommits(t *testing.T) {
	r, ids := logHistory(t)
	tree := strings.TrimSpace(r.Git("rev-parse", ids["last"]+"^{tree}"))
	raw := func(body string) string {
		return strings.TrimSpace(r.GitInput("tree "+tree+"\nparent "+ids["last"]+"\n"+body, "hash-object", "-t", "commit", "-w", "--literally", "--stdin"))
	}
	long := strings.Repeat("x", maxLogField+10)
	odd := map[string]string{
		"nul":      raw("author Evil\tName <e@x> 1700000000 +0530\ncommitter C <c@x> notadate\n\nsub\x00hidden\n\nbody\x00more\n"),
		"long":     raw("author " + long + " <e@x> 1700000000 +0000\ncommitter C <c@x> 1700000000 +0000\n\n" + long + "\n\n" + strings.Repeat("y", maxLogBody+10) + "\n"),
		"latin1":   raw("author J\xf6rg <j@x> 1700000000 +0100\ncommitter C <c@x> 1700000000 +0000\nencoding ISO-8859-1\n\nCaf\xe9\n\nna\xefve\n"),
		"badzone":  raw("author A <a@x> 1700000000 +9999\ncommitter C <c@x> 99999999999999999999 +0000\n\nzones\n"),
		"noauthor": raw("committer C <c@x> 1700000000 +0000\n\nno author\n"),
	}
	g := open(t, r)
	for name, id := range odd {
		got, err := g.Log(context.Background(), LogOptions{To: id, Limit: 2, WithBody: true, WithFileCount: true})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := gitLog(t, r, map[string]int{}, "-2", id)
		if name == "long" {
			if !got[0].Truncated || len(got[0].Subject) != maxLogField || len(got[0].Author.Name) != maxLogField || len(got[0].Body) != maxLogBody || got[1].Truncated {
				t.Errorf("long: truncated %v, subject %d, name %d, body %d bytes", got[0].Truncated, len(got[0].Subject), len(got[0].Author.Name), len(got[0].Body))
			}
			c := &want[0]
			c.Subject, c.Author.Name, c.Body, c.Truncated = c.Subject[:maxLogField], c.Author.Name[:maxLogField], c.Body[:maxLogBody], true
		}
		sameCommits(t, name, got, want)
	}
	got, _ := g.Log(context.Background(), LogOptions{To: odd["nul"], Limit: 1, WithBody: true})
	if len(got) != 1 || got[0].Subject != "sub" || got[0].Author.Name != "Evil\tName" || !got[0].Committer.Date.IsZero() {
		t.Errorf("nul: %+v", got)
	}
	got, _ = g.Log(context.Background(), LogOptions{To: odd["latin1"], Limit: 1, WithBody: true})
	if len(got) != 1 || got[0].Subject != "Café" || got[0].Body != "naïve\n" || got[0].Author.Name != "Jörg" {
		t.Errorf("latin1: %+v", got)
	}
}

// Hostile input is refused before git runs: revisions that are not commit
// ids (options among them), and paths that are not clean and relative.
func TestLogRefusals(t *testing.T) {
	r, ids := logHistory(t)
	g := openSettingsOnly(t, r)
	ctx := context.Background()
	written := filepath.Join(t.TempDir(), "written")
	last := ids["last"]
	for _, o := range []LogOptions{
		{To: "--output=" + written, Limit: 1},
		{To: last, From: "--output=" + written, Limit: 1},
		{To: "-" + last[1:], Limit: 1},
		{To: "HEAD", Limit: 1},
		{To: last[:12], Limit: 1},
		{To: "^" + last[1:], Limit: 1},
		{To: last + "..", Limit: 1},
		{To: strings.ToUpper(last), Limit: 1},
		{To: "", Limit: 1},
		{To: last, Limit: 0},
		{To: last, Limit: 1, Skip: -1},
		{To: last, Limit: 1, Paths: []string{"../outside"}},
		{To: last, Limit: 1, Paths: []string{"dir/../a.txt"}},
		{To: last, Limit: 1, Paths: []string{"/etc/passwd"}},
		{To: last, Limit: 1, Paths: []string{""}},
		{To: last, Limit: 1, Paths: []string{"."}},
		{To: last, Limit: 1, Paths: []string{"dir/"}},
		{To: last, Limit: 1, Paths: []string{"a\x00b"}},
	} {
		if got, err := g.Log(ctx, o); err == nil {
			t.Errorf("Log(%+v) = %d commits", o, len(got))
		}
		if n, err := g.CountCommits(ctx, o.From, o.To, o.Paths); err == nil && o.Limit == 1 && o.Skip == 0 {
			t.Errorf("CountCommits(%+v) = %d", o, n)
		}
	}
	if _, err := os.Stat(written); err == nil {
		t.Fatal("a revision was read as an option")
	}
	// A path that looks like an option is a path.
	if got, err := g.Log(ctx, LogOptions{To: last, Limit: 5, Paths: []string{"--output=" + written}}); err != nil || len(got) != 0 {
		t.Errorf("Log(paths: --output=...) = %d commits, %v", len(got), err)
	}
	dashed := commitFile(r, "--output=x.txt", "x\n", "a path like an option")
	if got, err := g.Log(ctx, LogOptions{To: dashed, Limit: 5, Paths: []string{"--output=x.txt"}}); err != nil || len(got) != 1 || got[0].SHA != dashed {
		t.Errorf("Log(paths: --output=x.txt) = %+v, %v", got, err)
	}
	missing := strings.Repeat("ab", 20)
	if _, err := g.Log(ctx, LogOptions{To: missing, Limit: 1}); !errors.Is(err, ErrMissing) {
		t.Errorf("Log(missing) = %v, want ErrMissing", err)
	}
	if _, err := g.Log(ctx, LogOptions{To: last, From: missing, Limit: 1, Reverse: true}); !errors.Is(err, ErrMissing) {
		t.Errorf("Log(from missing, reverse) = %v, want ErrMissing", err)
	}
	if _, err := g.CountCommits(ctx, "", missing, nil); !errors.Is(err, ErrMissing) {
		t.Errorf("CountCommits(missing) = %v, want ErrMissing", err)
	}
}

// The call's deadline ends git, or keeps it from starting.
func TestLogDeadline(t *testing.T) {
	r, _, head := twoCommits(t)
	g := open(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	if _, err := g.Log(ctx, LogOptions{To: head, Limit: 10, WithFileCount: true}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Log past its deadline = %v", err)
	}
	if _, err := g.CountCommits(ctx, "", head, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CountCommits past its deadline = %v", err)
	}
}

// withoutArgs is c with arguments taken out: flags as written, or -c settings
// by key. It shows that an argument, and nothing else, stops what a
// hostile repository configures.
func withoutArgs(c *gitexec.Cmd, drop ...string) *gitexec.Cmd {
	args := c.Args()
	d := gitexec.Command(gitexec.Arg(args[0]))
	for _, a := range args[1:] {
		if !slices.Contains(drop, a) {
			d.Flags(gitexec.Arg(a)) // the line as it was: Flags takes any argument a test gives
		}
	}
	for _, kv := range c.Settings() {
		if key, _, _ := strings.Cut(kv, "="); !slices.Contains(drop, key) {
			d.Config(gitexec.Arg(kv))
		}
	}
	if slices.Contains(c.Env(), "GIT_FLUSH=0") {
		d.FullyBuffered()
	}
	return d
}

// hostileReadConfig sets what a repository can configure to run programs or
// change what log, blame and ls-tree print, each a setting this package's
// commands must not follow; m is the program the settings name.
func hostileReadConfig(t *testing.T, r *testrepo.Repo, m *testrepo.Marker) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.GitDir(), "info", "attributes"), []byte("* diff=evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mailmap := filepath.Join(t.TempDir(), "mailmap")
	if err := os.WriteFile(mailmap, []byte("Mapped <mapped@example.com> <author@example.com>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"core.pager", m.Script}, {"pager.log", m.Script}, {"pager.blame", m.Script}, {"pager.ls-tree", m.Script},
		{"diff.external", m.Script}, {"diff.evil.command", m.Script}, {"diff.evil.textconv", m.Script},
		{"gpg.program", m.Script}, {"log.showSignature", "true"}, {"log.decorate", "full"},
		{"log.follow", "true"}, {"log.showRoot", "false"}, {"log.mailmap", "true"}, {"mailmap.file", mailmap},
		{"log.diffMerges", "combined"}, {"diff.renames", "false"}, {"diff.relative", "true"}, {"diff.noprefix", "true"},
		{"i18n.logOutputEncoding", "UTF-16"}, {"color.ui", "always"}, {"color.diff", "always"}, {"color.blame.highlightRecent", "red,1 month ago,green"},
		{"format.pretty", "oneline"}, {"core.abbrev", "7"}, {"log.abbrevCommit", "true"}, {"core.quotePath", "false"},
		{"blame.showRoot", "true"}, {"blame.blankBoundary", "true"}, {"blame.showEmail", "true"}, {"blame.date", "relative"},
		{"blame.coloring", "highlightRecent"}, {"blame.markIgnoredLines", "true"}, {"blame.markUnblamableLines", "true"},
		{"diff.indentHeuristic", "false"}, {"core.fsmonitor", m.Script}, {"alias.log", "!" + m.Script},
	} {
		r.Git("config", kv[0], kv[1])
	}
}

// A repository's config neither runs a program through Log nor changes
// what it says; each flag that holds a setting off is shown to be the one
// that does.
func TestLogHostileConfig(t *testing.T) {
	r, ids := logHistory(t)
	last := ids["last"]
	// A signed commit on top: log.showSignature would run gpg.program.
	tree := strings.TrimSpace(r.Git("rev-parse", last+"^{tree}"))
	signed := strings.TrimSpace(r.GitInput("tree "+tree+"\nparent "+last+"\n"+
		"author A <author@example.com> 1700000000 +0000\ncommitter C <c@example.com> 1700000100 +0000\n"+
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEexample\n -----END PGP SIGNATURE-----\n\nsigned\n",
		"hash-object", "-t", "commit", "-w", "--stdin"))
	r.Git("update-ref", "refs/heads/main", signed)
	ctx := context.Background()
	options := []LogOptions{
		{To: signed, Limit: 100, WithBody: true, WithFileCount: true},
		{To: signed, Limit: 100, Paths: []string{"dir/renamed b.txt"}},
		{To: signed, From: ids["root"], Limit: 3, Reverse: true, WithFileCount: true},
	}
	var want [][]Commit
	for _, o := range options {
		got, err := open(t, r).Log(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, got)
	}
	m := newMarker(t, "evil", `cat "$1" 2>/dev/null; exit 0`)
	hostileReadConfig(t, r, m)

	mustPlainGit(t, r.Dir, plainEnv(t), "log", "-p", "-3")
	m.MustRun("plain git log -p")
	for _, g := range []*Repo{open(t, r), openSettingsOnly(t, r)} {
		for i, o := range options {
			got, err := g.Log(ctx, o)
			if err != nil {
				t.Fatalf("Log(%+v): %v", o, err)
			}
			sameCommits(t, fmt.Sprintf("Log(%+v) in the hostile repository", o), got, want[i])
			m.MustNotRun("Log")
		}
		if n, err := g.CountCommits(ctx, "", signed, []string{"dir/renamed b.txt"}); err != nil || n != len(want[1]) {
			t.Errorf("CountCommits = %d, %v; want %d", n, err, len(want[1]))
		}
	}

	// Each flag, taken away, lets its setting through.
	g := openSettingsOnly(t, r)
	for _, tc := range []struct {
		flag   string
		o      int      // which of options
		except []string // settings of hostileReadConfig that would hide this one's effect
	}{
		{"--encoding=UTF-8", 0, nil}, // i18n.logOutputEncoding=UTF-16 re-encodes the records
		// log.follow: the file's commits before its rename, found as a
		// rename, back to the root commit, whose files only show with it.
		{"--no-follow", 1, []string{"diff.renames", "log.showRoot"}},
		{"--root", 0, nil}, // log.showRoot=false: no files for the root commit
		{"-M", 0, nil},     // diff.renames=false: a rename is two files
	} {
		o := options[tc.o]
		run := func(c *gitexec.Cmd) ([]Commit, error) {
			out, err := g.run.Output(ctx, c)
			if err != nil {
				return nil, err
			}
			return parseLog(ctx, out, o)
		}
		with, err := run(logCommand(o, 0, o.Limit))
		if err != nil {
			t.Fatal(err)
		}
		saved := map[string]string{}
		for _, key := range tc.except {
			saved[key] = strings.TrimSpace(r.Git("config", key))
			r.Git("config", "--unset", key)
		}
		got, err := run(withoutArgs(logCommand(o, 0, o.Limit), tc.flag))
		for key, v := range saved {
			r.Git("config", key, v)
		}
		t.Logf("without %s: %d commits (%s), %v", tc.flag, len(got), shortIDs(got), err)
		if err == nil && sameIDsAndCounts(got, with) {
			t.Errorf("without %s the hostile config changes nothing: the test proves nothing", tc.flag)
		}
	}
	m.MustNotRun("Log's command lines")
}

// parseLog reads a whole logCommand output.
func parseLog(ctx context.Context, out []byte, o LogOptions) ([]Commit, error) {
	rr := newRecordReader(ctx, bytes.NewReader(out), logFieldLimits(o.WithBody), o.WithFileCount)
	var commits []Commit
	for {
		c, ok, err := rr.commit()
		if err != nil || !ok {
			return commits, err
		}
		commits = append(commits, c)
	}
}

func sameIDsAndCounts(a, b []Commit) bool {
	return slices.EqualFunc(a, b, func(x, y Commit) bool {
		return x.SHA == y.SHA && x.FilesChanged == y.FilesChanged && x.Subject == y.Subject && x.Author.Name == y.Author.Name
	})
}

// historyRepo is a generated repository for benchmarks: commits commits,
// each changing 5 of files files of 200 lines (every tenth also renaming
// one), built with git fast-import and packed.
func historyRepo(b testing.TB, commits, files int) *testrepo.Repo {
	b.Helper()
	var s strings.Builder
	mark := 0
	blob := func(content string) int {
		mark++
		fmt.Fprintf(&s, "blob\nmark :%d\ndata %d\n%s\n", mark, len(content), content)
		return mark
	}
	content := func(i, v int) string {
		var c strings.Builder
		for j := range 200 {
			if v > 0 && j == (v*37+i)%200 {
				fmt.Fprintf(&c, "changed in version %d\n", v)
				continue
			}
			fmt.Fprintf(&c, "line %d of file %d %s\n", j, i, strings.Repeat("x", 40))
		}
		return c.String()
	}
	names := make([]string, files)
	versions := make([]int, files)
	parent := 0
	for c := range commits {
		var ops []string
		if c == 0 {
			for i := range files {
				names[i] = fmt.Sprintf("dir%02d/file%04d.txt", i%50, i)
				ops = append(ops, fmt.Sprintf("M 100644 :%d %s\n", blob(content(i, 0)), names[i]))
			}
		} else {
			for k := range 5 {
				i := (c*7 + k*131) % files
				versions[i]++
				ops = append(ops, fmt.Sprintf("M 100644 :%d %s\n", blob(content(i, versions[i])), names[i]))
			}
			if c%10 == 0 {
				i := (c*13 + 1) % files
				renamed := fmt.Sprintf("dir%02d/renamed%04d_%d.txt", i%50, i, c)
				ops = append(ops, fmt.Sprintf("R %s %s\n", names[i], renamed))
				names[i] = renamed
			}
		}
		mark++
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\n", mark)
		fmt.Fprintf(&s, "author A U Thor <author@example.com> %d +0200\ncommitter C O Mitter <committer@example.com> %d +0000\n", 1700000000+c*60, 1700000000+c*60)
		msg := fmt.Sprintf("commit %d\n\nThe body of commit %d.\n", c, c)
		fmt.Fprintf(&s, "data %d\n%s", len(msg), msg)
		if c > 0 {
			fmt.Fprintf(&s, "from :%d\n", parent)
		}
		for _, op := range ops {
			s.WriteString(op)
		}
		s.WriteString("\n")
		parent = mark
	}
	r := testrepo.New(b)
	r.GitInput(s.String(), "fast-import", "--quiet")
	r.Git("gc", "-q")
	return r
}

// plainGitBench runs git as a user would, output discarded: the baseline.
func plainGitBench(b *testing.B, r *testrepo.Repo, args ...string) {
	b.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + r.GitDir()}, args...)...)
	cmd.Env = testrepo.Env(b.TempDir())
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
}

// benchVersus runs ours and plain git in turns, so that both see the same
// load, and reports each one's time per run and their ratio (ours/git).
func benchVersus(b *testing.B, ours, plain func(b *testing.B)) {
	b.Helper()
	var tOurs, tGit time.Duration
	for b.Loop() {
		start := time.Now()
		ours(b)
		mid := time.Now()
		plain(b)
		tOurs, tGit = tOurs+mid.Sub(start), tGit+time.Since(mid)
	}
	b.ReportMetric(float64(tOurs.Nanoseconds())/float64(b.N), "ours-ns/op")
	b.ReportMetric(float64(tGit.Nanoseconds())/float64(b.N), "git-ns/op")
	b.ReportMetric(float64(tOurs)/float64(tGit), "ours/git")
}

// BenchmarkLog: a page of 100 commits through Log against plain git log
// printing the same; and the ways of counting files, each against
// --name-only -M (what Log uses).
func BenchmarkLog(b *testing.B) {
	r := historyRepo(b, 300, 2000)
	head := r.Head()
	g := open(b, r)
	ctx := context.Background()
	for _, files := range []bool{false, true} {
		o := LogOptions{To: head, Limit: 100, WithFileCount: files}
		args := []string{"log", "-z", logFormat, "-100"}
		if files {
			args = append(args, "--name-only", "--root", "-M", "-l5000")
		}
		b.Run(map[bool]string{false: "commits", true: "with-file-count"}[files], func(b *testing.B) {
			benchVersus(b, func(b *testing.B) {
				if got, err := g.Log(ctx, o); err != nil || len(got) != 100 {
					b.Fatal(len(got), err)
				}
			}, func(b *testing.B) { plainGitBench(b, r, append(args, head)...) })
		})
	}
	b.Run("oldest-first-page-2", func(b *testing.B) {
		o := LogOptions{To: head, Limit: 100, Reverse: true, Skip: 100}
		benchVersus(b, func(b *testing.B) {
			if got, err := g.Log(ctx, o); err != nil || len(got) != 100 {
				b.Fatal(len(got), err)
			}
		}, func(b *testing.B) { plainGitBench(b, r, "log", "-z", logFormat, "--reverse", head) })
	})
	nameOnly := []string{"log", "-z", logFormat, "-100", "--root", "--name-only", "-M", "-l5000", head}
	for _, way := range [][]string{{"--shortstat", "-M"}, {"--name-only", "--no-renames"}, {"--raw", "-M"}} {
		b.Run("count-files"+strings.Join(way, ""), func(b *testing.B) {
			benchVersus(b, func(b *testing.B) {
				plainGitBench(b, r, append([]string{"log", "-z", logFormat, "-100", "--root"}, append(way, head)...)...)
			}, func(b *testing.B) { plainGitBench(b, r, nameOnly...) })
		})
	}
}

// FirstParentDescendant finds where a commit came into a branch: the merge
// commit for a side branch's commit, the next commit of the line for one on
// the first-parent line, nothing for the branch's own tip.
func TestFirstParentDescendant(t *testing.T) {
	r, ids := logHistory(t)
	g := open(t, r)
	ctx := context.Background()
	for _, c := range []struct{ head, want string }{
		{"side", ids["merge"]},
		{"two", ids["rename"]},
		{"root", ids["two"]},
		{"last", ""},
	} {
		got, err := g.FirstParentDescendant(ctx, ids["last"], ids[c.head])
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.head, got, err, c.want)
		}
	}
	if _, err := g.FirstParentDescendant(ctx, ids["last"], "--all"); err == nil {
		t.Error("an option as a commit id is not refused")
	}
}

// followHistory is a file renamed twice (with edits beside each rename),
// changed on a side branch that a merge brings in, and a second file that
// takes the first one's old name afterwards.
func followHistory(t testing.TB) (r *testrepo.Repo, ids map[string]string) {
	t.Helper()
	r = testrepo.New(t)
	ids = map[string]string{}
	body := func(n int) string {
		return strings.Repeat("a line long enough to be similar\n", 20) + fmt.Sprintf("edit %d\n", n)
	}
	ids["add"] = commitFile(r, "one.txt", body(0), "add one")
	ids["edit"] = commitFile(r, "one.txt", body(1), "edit one")
	r.Git("mv", "one.txt", "two.txt")
	ids["two"] = commitFile(r, "two.txt", body(2), "one becomes two")
	r.Git("branch", "side")
	r.Git("switch", "-q", "side")
	ids["side"] = commitFile(r, "two.txt", body(3), "side edit")
	r.Git("switch", "-q", "main")
	ids["other"] = commitFile(r, "other.txt", "other\n", "other file")
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	ids["merge"] = r.Head()
	r.Git("rm", "-q", "two.txt")
	ids["three"] = commitFile(r, "dir/three.txt", body(4), "two becomes three")
	ids["again"] = commitFile(r, "one.txt", "a new one\n", "a new one.txt")
	ids["last"] = commitFile(r, "dir/three.txt", body(5), "edit three")
	return r, ids
}

// TestLogFollowMatchesGit: Log with Follow lists what git log --follow
// lists, in every window and in both orders (oldest first is git's list
// turned around: git's own --reverse does not follow), with the same file
// counts; CountLog counts them.
func TestLogFollowMatchesGit(t *testing.T) {
	r, ids := followHistory(t)
	g := open(t, r)
	ctx := context.Background()
	files := map[string]int{}
	for _, rg := range []struct{ from, to, path string }{
		{"", ids["last"], "dir/three.txt"},
		{"", ids["merge"], "two.txt"},
		{"", ids["last"], "one.txt"},
		{ids["edit"], ids["last"], "dir/three.txt"},
		{"", ids["last"], "other.txt"},
		{"", ids["last"], "nothing.txt"},
	} {
		args := []string{"--follow", rg.to}
		if rg.from != "" {
			args = append(args, "^"+rg.from)
		}
		args = append(args, "--", rg.path)
		newest := gitLog(t, r, files, args...)
		oldest := slices.Clone(newest)
		slices.Reverse(oldest)
		base := LogOptions{From: rg.from, To: rg.to, Paths: []string{rg.path}, Follow: true}
		if n, err := g.CountLog(ctx, base); err != nil || n != len(newest) {
			t.Errorf("CountLog(%v) = %d, %v; git log lists %d", args, n, err, len(newest))
		}
		for _, reverse := range []bool{false, true} {
			all := newest
			if reverse {
				all = oldest
			}
			for _, skip := range []int{0, 1, len(all) - 1, len(all)} {
				for _, limit := range []int{1, 2, len(all) + 1} {
					if skip < 0 {
						continue
					}
					o := base
					o.Reverse, o.Skip, o.Limit, o.WithBody, o.WithFileCount = reverse, skip, limit, skip%2 == 0, limit%2 == 1
					got, err := g.Log(ctx, o)
					if err != nil {
						t.Fatalf("Log(%+v): %v", o, err)
					}
					sameCommits(t, fmt.Sprintf("Log(%v reverse=%v skip=%d limit=%d)", args, reverse, skip, limit), got, logPage(all, o))
				}
			}
		}
	}
	// The history that follows renames goes on to the first one.txt.
	if all, err := g.Log(ctx, LogOptions{To: ids["last"], Paths: []string{"dir/three.txt"}, Follow: true, Limit: 100}); err != nil ||
		len(all) == 0 || all[len(all)-1].SHA != ids["add"] {
		t.Errorf("dir/three.txt followed: %s, %v; want it to end at %s", shortIDs(all), err, ids["add"][:7])
	}
	for _, n := range [][]string{nil, {"a", "b"}} {
		if _, err := g.Log(ctx, LogOptions{To: ids["last"], Paths: n, Follow: true, Limit: 1}); err == nil {
			t.Errorf("Follow with %d paths: no error", len(n))
		}
		if _, err := g.CountLog(ctx, LogOptions{To: ids["last"], Paths: n, Follow: true}); err == nil {
			t.Errorf("CountLog: Follow with %d paths: no error", len(n))
		}
	}
}

// TestRenameStop: the history of a path stops at a rename where the
// commit git log --follow goes on from shows the path renamed
// (--name-status: R<score> old new); nowhere for a path never renamed, or
// whose rename is outside the range.
func TestRenameStop(t *testing.T) {
	r, ids := followHistory(t)
	g := open(t, r)
	ctx := context.Background()
	// oracle: the rename git log --follow shows for path at the oldest
	// commit of its history without --follow.
	oracle := func(from, to, path string) (string, string) {
		revs := []string{to}
		if from != "" {
			revs = append(revs, "^"+from)
		}
		return r.RenameStop(path, revs...)
	}
	for _, tc := range []struct {
		from, to, path string
		want           bool // the history stops at a rename
	}{
		{"", ids["last"], "dir/three.txt", true},
		{"", ids["merge"], "two.txt", true},
		{"", ids["last"], "one.txt", false}, // the new one.txt was added, not renamed
		{"", ids["last"], "other.txt", false},
		{ids["three"], ids["last"], "dir/three.txt", false}, // the rename is outside the range
		{"", ids["last"], "dir", false},                     // a directory: git renames files
		{"", ids["last"], "nothing.txt", false},
	} {
		commit, old, err := g.RenameStop(ctx, tc.from, tc.to, tc.path)
		wantCommit, wantOld := oracle(tc.from, tc.to, tc.path)
		if err != nil || commit != wantCommit || old != wantOld || (commit != "") != tc.want {
			t.Errorf("RenameStop(%s..%s, %s) = %q, %q, %v; git log --follow says %q, %q", tc.from, tc.to, tc.path, commit, old, err, wantCommit, wantOld)
		}
	}
	if commit, old, _ := g.RenameStop(ctx, "", ids["last"], "dir/three.txt"); commit != ids["three"] || old != "two.txt" {
		t.Errorf("dir/three.txt stops at %q from %q, want %s from two.txt", commit, old, ids["three"])
	}
}
