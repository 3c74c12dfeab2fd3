//go:build unix

package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// blameHistory is a repository whose file "lib/code.txt" has lines from
// several commits, some through a rename (from "old name.txt"), and whose
// other files have odd names and content. It returns the last commit.
func blameHistory(t testing.TB) (r *testrepo.Repo, head string) {
	t.Helper()
	r = testrepo.New(t)
	lines := func(prefix string, n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%s line %d\n", prefix, i)
		}
		return b.String()
	}
	r.Write("old name.txt", lines("first", 12))
	r.Write("odd\tname\n.txt", "tab\tinside\r\nbytes \xff\xfe not UTF-8\nno newline at the end")
	r.Write("ünï/ファイル.txt", "ü\n")
	r.Write("empty.txt", "")
	r.Write("--output=x.txt", "a path like an option\n")
	commitFile(r, "other.txt", "x\n", "first commit")
	if err := os.Mkdir(filepath.Join(r.Dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("mv", "old name.txt", "lib/code.txt")
	content := strings.Replace(lines("first", 12), "first line 3\n", "second line 3\n", 1)
	commitFile(r, "lib/code.txt", content, "second: rename and change\n\nwith a body")
	content = strings.Replace(content, "first line 7\n", "third line 7\nthird line 7b\n", 1)
	commitFile(r, "lib/code.txt", content+"third tail", "third")
	r.Write("odd\tname\n.txt", "tab\tinside\r\nbytes \xff\xfe changed\nno newline at the end")
	r.Write("ünï/ファイル.txt", "ü\nü2\n")
	head = r.Commit("fourth")
	return r, head
}

// gitBlame is plain git's blame of the range: `git blame --line-porcelain`,
// which repeats every detail on every line, read independently of Blame's
// parser.
func gitBlame(t testing.TB, r *testrepo.Repo, commit, path string, start, end int) ([]BlameLine, map[string]BlameCommit) {
	t.Helper()
	out := r.Git("blame", "--line-porcelain", "-L", fmt.Sprintf("%d,%d", start, end), commit, "--", path)
	var lines []BlameLine
	commits := map[string]BlameCommit{}
	var l BlameLine
	var c BlameCommit
	var atime, ctime int64
	for _, s := range strings.SplitAfter(out, "\n") {
		if s == "" {
			continue
		}
		s = strings.TrimSuffix(s, "\n")
		if strings.HasPrefix(s, "\t") {
			l.Text = s[1:]
			lines = append(lines, l)
			c.SHA = l.SHA
			commits[l.SHA] = c
			l, c = BlameLine{}, BlameCommit{}
			continue
		}
		key, value, _ := strings.Cut(s, " ")
		switch key {
		case "author":
			c.Author.Name = value
		case "author-mail":
			c.Author.Email = strings.Trim(value, "<>")
		case "author-time":
			atime, _ = strconv.ParseInt(value, 10, 64)
		case "author-tz":
			c.Author.Date = blameZoned(t, atime, value)
		case "committer":
			c.Committer.Name = value
		case "committer-mail":
			c.Committer.Email = strings.Trim(value, "<>")
		case "committer-time":
			ctime, _ = strconv.ParseInt(value, 10, 64)
		case "committer-tz":
			c.Committer.Date = blameZoned(t, ctime, value)
		case "summary":
			c.Summary = value
		case "previous":
			sha, name, _ := strings.Cut(value, " ")
			l.Previous, l.PreviousPath = sha, blameUnquote(t, name)
		case "filename":
			l.Path = blameUnquote(t, value)
		case "boundary":
		default:
			f := strings.Fields(s)
			l.SHA = f[0]
			l.OrigLine, _ = strconv.Atoi(f[1])
			l.Line, _ = strconv.Atoi(f[2])
		}
	}
	return lines, commits
}

func blameZoned(t testing.TB, sec int64, tz string) time.Time {
	t.Helper()
	z, err := time.Parse("-0700", tz)
	if err != nil {
		t.Fatalf("zone %q: %v", tz, err)
	}
	_, off := z.Zone()
	return time.Unix(sec, 0).In(time.FixedZone("", off))
}

func blameUnquote(t testing.TB, s string) string {
	t.Helper()
	if !strings.HasPrefix(s, `"`) {
		return s
	}
	u, err := strconv.Unquote(s)
	if err != nil {
		t.Fatalf("unquote %s: %v", s, err)
	}
	return u
}

// checkBlame compares Blame with plain git.
func checkBlame(t *testing.T, g *Repo, r *testrepo.Repo, commit, path string, start, end int) {
	t.Helper()
	got, commits, err := g.Blame(context.Background(), commit, path, start, end)
	if err != nil {
		t.Errorf("Blame(%q, %d, %d): %v", path, start, end, err)
		return
	}
	want, wantCommits := gitBlame(t, r, commit, path, start, end)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Blame(%q, %d, %d) =\n%+v\nwant\n%+v", path, start, end, got, want)
	}
	if len(commits) != len(wantCommits) {
		t.Errorf("Blame(%q, %d, %d): %d commits, git says %d", path, start, end, len(commits), len(wantCommits))
	}
	seen := map[string]bool{}
	for _, c := range commits {
		w := wantCommits[c.SHA]
		if c.SHA != w.SHA || c.Summary != w.Summary || !samePerson(c.Author, w.Author) || !samePerson(c.Committer, w.Committer) {
			t.Errorf("Blame(%q): commit %+v, git says %+v", path, c, w)
		}
		if seen[c.SHA] {
			t.Errorf("Blame(%q): commit %s twice", path, c.SHA)
		}
		seen[c.SHA] = true
	}
	// Commits come in the order of their first line.
	var order []string
	for _, l := range got {
		if !seen[l.SHA] {
			t.Errorf("Blame(%q): line %d's commit %s is not among the commits", path, l.Line, l.SHA)
		}
		if len(order) == 0 || !strings.Contains(strings.Join(order, " "), l.SHA) {
			order = append(order, l.SHA)
		}
	}
	for i, c := range commits {
		if i < len(order) && order[i] != c.SHA {
			t.Errorf("Blame(%q): commit %d is %s, its first line says %s", path, i, c.SHA, order[i])
		}
	}
}

func TestBlameMatchesGit(t *testing.T) {
	r, head := blameHistory(t)
	g := open(t, r)
	for _, tc := range []struct {
		path       string
		start, end int
	}{
		{"lib/code.txt", 1, 14}, {"lib/code.txt", 3, 3}, {"lib/code.txt", 7, 9}, {"lib/code.txt", 14, 14},
		{"lib/code.txt", 10, 1000}, // past the end: git stops at the last line
		{"odd\tname\n.txt", 1, 3}, {"ünï/ファイル.txt", 1, 2}, {"other.txt", 1, 1}, {"--output=x.txt", 1, 1},
	} {
		checkBlame(t, g, r, head, tc.path, tc.start, tc.end)
	}
	lines, commits, err := g.Blame(context.Background(), head, "lib/code.txt", 1, 14)
	if err != nil || len(lines) != 14 || len(commits) != 3 {
		t.Fatalf("Blame = %d lines, %d commits, %v", len(lines), len(commits), err)
	}
	if l := lines[0]; l.Path != "old name.txt" || l.Previous != "" || l.Text != "first line 1" || l.OrigLine != 1 {
		t.Errorf("line 1 = %+v: want it from the first commit's old name.txt", l)
	}
	if l := lines[2]; l.Path != "lib/code.txt" || l.PreviousPath != "old name.txt" || l.Text != "second line 3" {
		t.Errorf("line 3 = %+v: want it from the rename, after old name.txt", l)
	}
	if l := lines[13]; l.Text != "third tail" || l.Line != 14 {
		t.Errorf("line 14 = %+v", l)
	}
	if c := commits[1]; c.Summary != "second: rename and change" || c.Author.Name != "Test Author" || c.Committer.Email != "committer@example.com" {
		t.Errorf("commit 2 = %+v", c)
	}
	odd, _, err := g.Blame(context.Background(), head, "odd\tname\n.txt", 1, 3)
	if err != nil || len(odd) != 3 || odd[0].Text != "tab\tinside\r" || odd[1].Text != "bytes \xff\xfe changed" || odd[2].Text != "no newline at the end" {
		t.Errorf("odd lines = %+v, %v", odd, err)
	}
}

// A line longer than Blame keeps is cut and marked.
func TestBlameLongLine(t *testing.T) {
	r := testrepo.New(t)
	head := commitFile(r, "min.js", "short\n"+strings.Repeat("x", maxBlameLine+100)+"\nlast\n", "minified")
	g := open(t, r)
	lines, _, err := g.Blame(context.Background(), head, "min.js", 1, 3)
	if err != nil || len(lines) != 3 {
		t.Fatalf("Blame = %d lines, %v", len(lines), err)
	}
	if lines[0].Truncated || lines[0].Text != "short" || !lines[1].Truncated || len(lines[1].Text) != maxBlameLine-1 || lines[2].Text != "last" || lines[2].Line != 3 {
		t.Errorf("lines: %v %q, %v %d bytes, %v %q", lines[0].Truncated, lines[0].Text, lines[1].Truncated, len(lines[1].Text), lines[2].Truncated, lines[2].Text)
	}
}

func TestBlameErrors(t *testing.T) {
	r, head := blameHistory(t)
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
	r.Git("commit", "-q", "-m", "submodule")
	head = r.Head()
	g := openSettingsOnly(t, r)
	ctx := context.Background()

	var past *BlameRangeError
	if _, _, err := g.Blame(ctx, head, "lib/code.txt", 15, 20); !errors.As(err, &past) || past.Lines != 14 || past.Start != 15 || past.Path != "lib/code.txt" {
		t.Errorf("Blame past the end = %v", err)
	}
	if _, _, err := g.Blame(ctx, head, "empty.txt", 1, 1); !errors.As(err, &past) || past.Lines != 0 {
		t.Errorf("Blame of an empty file = %v", err)
	}
	// A file named to look like git's message is still told by the count.
	r.Write("x has only 99 lines", "1\n2\n")
	named := r.Commit("a name like git's message")
	if _, _, err := g.Blame(ctx, named, "x has only 99 lines", 3, 3); !errors.As(err, &past) || past.Lines != 2 {
		t.Errorf("Blame past the end of a file named like the message = %v", err)
	}
	for _, path := range []string{"nope.txt", "lib", "sub", "lib/code.txt/x", "--output=" + filepath.Join(t.TempDir(), "x")} {
		if _, _, err := g.Blame(ctx, head, path, 1, 1); !errors.Is(err, ErrMissing) {
			t.Errorf("Blame(%q) = %v, want ErrMissing", path, err)
		}
	}
	if _, _, err := g.Blame(ctx, strings.Repeat("ab", 20), "lib/code.txt", 1, 1); !errors.Is(err, ErrMissing) {
		t.Errorf("Blame in a missing commit = %v, want ErrMissing", err)
	}

	// Refused before git runs.
	written := filepath.Join(t.TempDir(), "written")
	for _, tc := range []struct {
		commit, path string
		start, end   int
	}{
		{"--output=" + written, "lib/code.txt", 1, 1}, {"-" + head[1:], "lib/code.txt", 1, 1},
		{"HEAD", "lib/code.txt", 1, 1}, {head[:10], "lib/code.txt", 1, 1}, {head + "^", "lib/code.txt", 1, 1},
		{head, "../outside", 1, 1}, {head, "lib/../other.txt", 1, 1}, {head, "/etc/passwd", 1, 1},
		{head, "", 1, 1}, {head, "./other.txt", 1, 1}, {head, "lib/", 1, 1},
		{head, "lib/code.txt", 0, 1}, {head, "lib/code.txt", -3, 1}, {head, "lib/code.txt", 5, 4},
	} {
		if lines, _, err := g.Blame(ctx, tc.commit, tc.path, tc.start, tc.end); err == nil || errors.Is(err, ErrMissing) {
			t.Errorf("Blame(%q, %q, %d, %d) = %d lines, %v; want a refusal", tc.commit, tc.path, tc.start, tc.end, len(lines), err)
		}
	}
	if _, err := os.Stat(written); err == nil {
		t.Fatal("a commit was read as an option")
	}

	ctx, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	if _, _, err := g.Blame(ctx, head, "lib/code.txt", 1, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Blame past its deadline = %v", err)
	}
}

// A repository's config neither runs a program through Blame nor changes
// its answer; each flag or setting that holds one off is shown to be the
// one that does.
func TestBlameHostileConfig(t *testing.T) {
	r := testrepo.New(t)
	// The indent heuristic decides which of two equal blank-line
	// boundaries the block inserted by "two" takes; blame.ignoreRevsFile
	// would pass the lines "reformat" changed on to "one".
	one := commitFile(r, "s.txt", "1\n2\na\n\nb\n3\n4\n", "one")
	two := commitFile(r, "s.txt", "1\n2\na\n\nb\na\n\nb\n3\n4\n", "two")
	reformat := commitFile(r, "s.txt", "1 reformatted\n2\na\n\nb\na\n\nb\n3\n4\n", "reformat")
	head := commitFile(r, "other.txt", "x\n", "three")
	blame := func(g *Repo, c *gitexec.Cmd) ([]BlameLine, []BlameCommit, error) {
		t.Helper()
		p := newBlameParser(context.Background())
		err := g.run.Stream(context.Background(), c, func(stdout io.Reader) error { return p.parse(bufio.NewReader(stdout)) })
		return p.lines, p.commits, err
	}
	wantLines, wantCommits, err := open(t, r).Blame(context.Background(), head, "s.txt", 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if wantLines[0].SHA != reformat || wantLines[4].SHA != two || wantLines[7].SHA != one {
		t.Fatalf("blame does not say what the test expects: %+v", wantLines)
	}

	m := newMarker(t, "evil", `tr a-z A-Z < "$1"`)
	hostileReadConfig(t, r, m)
	ignoreFile := filepath.Join(r.GitDir(), "ignore-revs")
	if err := os.WriteFile(ignoreFile, []byte(reformat+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("config", "blame.ignoreRevsFile", ignoreFile)
	mailmap := filepath.Join(r.GitDir(), "mailmap")
	if err := os.WriteFile(mailmap, []byte("Mapped <mapped@example.com> <author@example.com>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("config", "mailmap.file", mailmap)

	// Control: plain git runs the textconv program, and its answer changes.
	mustPlainGit(t, r.Dir, plainEnv(t), "blame", "--porcelain", head, "--", "s.txt")
	m.MustRun("plain git blame")

	for _, g := range []*Repo{open(t, r), openSettingsOnly(t, r)} {
		lines, commits, err := g.Blame(context.Background(), head, "s.txt", 1, 10)
		m.MustNotRun("Blame")
		if err != nil || !reflect.DeepEqual(lines, wantLines) || !reflect.DeepEqual(commits, wantCommits) {
			t.Errorf("Blame in the hostile repository =\n%+v\n%+v, %v\nwant\n%+v\n%+v", lines, commits, err, wantLines, wantCommits)
		}
	}

	g := openSettingsOnly(t, r)
	c := blameCommand(head, "s.txt", 1, 10)
	for _, drop := range []string{"--no-textconv", "--no-ignore-revs-file", "mailmap.file", "--indent-heuristic", "--encoding=UTF-8"} {
		lines, commits, err := blame(g, withoutArgs(c, drop))
		if drop == "--no-textconv" {
			m.MustRun("Blame's command without " + drop)
		}
		m.Reset()
		t.Logf("without %s: %v", drop, err)
		if err == nil && reflect.DeepEqual(lines, wantLines) && reflect.DeepEqual(commits, wantCommits) {
			t.Errorf("without %s the hostile config changes nothing: the test proves nothing", drop)
		}
	}
}

// A FIFO where the config names blame's ignore list or the mailmap: plain
// git blame waits on it for ever, Blame reads neither.
func TestBlameFIFO(t *testing.T) {
	r, head := blameHistory(t)
	for _, key := range []string{"blame.ignoreRevsFile", "mailmap.file"} {
		fifo := filepath.Join(r.GitDir(), strings.ReplaceAll(key, ".", "-"))
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		r.Git("config", key, fifo)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		cmd := exec.CommandContext(ctx, "git", "blame", "--porcelain", "-L", "1,1", head, "--", "lib/code.txt")
		cmd.Dir, cmd.Env = r.Dir, plainEnv(t)
		if out, err := cmd.CombinedOutput(); ctx.Err() == nil {
			t.Fatalf("control: plain git blame with %s on a FIFO did not hang: %v %s", key, err, out)
		}
		cancel()
		for _, g := range []*Repo{open(t, r), openSettingsOnly(t, r)} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if lines, _, err := g.Blame(ctx, head, "lib/code.txt", 1, 2); err != nil || len(lines) != 2 {
				t.Errorf("Blame with %s on a FIFO = %d lines, %v", key, len(lines), err)
			}
			cancel()
		}
		r.Git("config", "--unset", key)
	}
}

// BenchmarkBlame: 100 lines of a file with a long history through Blame,
// and plain git blame printing the same.
func BenchmarkBlame(b *testing.B) {
	r := historyRepo(b, 300, 40)
	head := r.Head()
	path := strings.SplitN(r.Git("ls-tree", "-r", "--name-only", "HEAD"), "\n", 2)[0]
	if n := strings.Count(r.Git("log", "--format=%H", "--", path), "\n"); n < 20 {
		b.Fatalf("%s has only %d commits", path, n)
	}
	g := open(b, r)
	benchVersus(b, func(b *testing.B) {
		if lines, _, err := g.Blame(context.Background(), head, path, 1, 100); err != nil || len(lines) != 100 {
			b.Fatal(len(lines), err)
		}
	}, func(b *testing.B) { plainGitBench(b, r, "blame", "--porcelain", "-L", "1,100", head, "--", path) })
}
