package fold

import (
	"fmt"
	"strings"
	"testing"
)

// renamed is one pair of the argument rename, at new line n of a file.
func renamed(n int) string {
	return hunkAt(n-3, n-3, around("-\tload(the_repository, x);", "+\tload(repo, x);")...)
}

func TestRenameInTenFilesAndOneOtherLine(t *testing.T) {
	var patch strings.Builder
	for i := range 10 {
		patch.WriteString(plainFile(fmt.Sprintf("src/f%d.c", i), renamed(10+i)))
	}
	odd := hunkAt(40, 40, around("-\tload(the_repository, x);", "+\tload(the_repo, x);")...)
	patch.WriteString(plainFile("src/odd.c", odd))
	v := mustFold(t, patch.String(), Options{})

	want := "20 of 22 changed lines follow 1 pattern; 2 are shown in full as git's diff below\n" +
		"#1 10 lines edited: `the_repository` → `repo`\n"
	for i := range 10 {
		want += fmt.Sprintf("=src/f%d.c\n:%d#1 \tload(repo, x);\n", i, 10+i)
	}
	if got := head(t, v.Text); got != want {
		t.Errorf("patterns:\n%s\nwant:\n%s", got, want)
	}
	if got := string(restOf(t, v.Text)); got != plainFile("src/odd.c", odd) {
		t.Errorf("the rest is not the other file as git wrote it:\n%s", got)
	}
	if len(v.Patterns) != 1 || v.Patterns[0].Sites != 10 || v.PatternLines != 20 || v.FullLines != 2 {
		t.Errorf("view = %+v", v)
	}
}

// A hunk that holds a pattern's pair and another change: by default it is
// cut, the other change shown with its context; with WholeHunks it stays as
// git wrote it and its pair is not a site.
func TestMixedHunk(t *testing.T) {
	var patch strings.Builder
	for i := range 5 {
		patch.WriteString(plainFile(fmt.Sprintf("f%d.c", i), renamed(20)))
	}
	mixed := hunkAt(17, 17, " line 1", " line 2", " line 3", "-\tload(the_repository, x);", "+\tload(repo, x);",
		" a", " b", " c", " d", "-\tint y = 1;", "+\tint y = 2;", " e", " f", " g")
	patch.WriteString(plainFile("mixed.c", mixed))

	v := mustFold(t, patch.String(), Options{})
	if v.Patterns[0].Sites != 6 {
		t.Errorf("cut: the pattern has %d sites, want 6", v.Patterns[0].Sites)
	}
	wantRest := plainFile("mixed.c", "@@ -22,7 +22,7 @@\n b\n c\n d\n-\tint y = 1;\n+\tint y = 2;\n e\n f\n g\n")
	if got := string(restOf(t, v.Text)); got != wantRest {
		t.Errorf("cut: the rest is\n%s\nwant\n%s", got, wantRest)
	}

	v = mustFold(t, patch.String(), Options{WholeHunks: true})
	if v.Patterns[0].Sites != 5 {
		t.Errorf("whole: the pattern has %d sites, want 5", v.Patterns[0].Sites)
	}
	if got := string(restOf(t, v.Text)); got != plainFile("mixed.c", mixed) {
		t.Errorf("whole: the rest is not the mixed hunk as git wrote it:\n%s", got)
	}
	if strings.Contains(head(t, v.Text), "mixed.c") {
		t.Errorf("whole: a line of a hunk kept whole is listed as a site")
	}
}

// With WholeHunks, a hunk kept whole lowers its patterns' counts, which can
// leave a pattern too rare to show.
func TestWholeHunksDropsPatternBelowMinCount(t *testing.T) {
	var patch strings.Builder
	for i := range 2 {
		patch.WriteString(plainFile(fmt.Sprintf("f%d.c", i), renamed(20)))
	}
	patch.WriteString(plainFile("mixed.c", hunkAt(17, 17, around("-\tload(the_repository, x);", "+\tload(repo, x);", " a", "-b", "+B")...)))
	v := mustFold(t, patch.String(), Options{WholeHunks: true, MinCount: DefaultMinCount})
	if len(v.Patterns) != 0 || string(restOf(t, v.Text)) != patch.String() {
		t.Errorf("want no pattern and the whole patch in the rest, got\n%s", v.Text)
	}
}

func TestSameLineAddedInEightFiles(t *testing.T) {
	var patch strings.Builder
	for i := range 8 {
		indent := strings.Repeat("\t", i%2)
		patch.WriteString(plainFile(fmt.Sprintf("f%d.c", i), hunkAt(2, 2, " #include \"a.h\"", "+"+indent+"#include \"repository.h\"", " #include \"b.h\"")))
	}
	v := mustFold(t, patch.String(), Options{})
	want := "8 of 8 changed lines follow 1 pattern; 0 are shown in full as git's diff below\n" +
		"#1 8 lines added: `#include \"repository.h\"`\n"
	for i := range 8 {
		want += fmt.Sprintf("=f%d.c\n:3#1", i)
		if i%2 == 1 {
			want += ` "\t"`
		}
		want += "\n"
	}
	if got := head(t, v.Text); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if rest := restOf(t, v.Text); len(rest) != 0 {
		t.Errorf("the rest should be empty:\n%s", rest)
	}
}

// A line broken in two repeats its pair and its single; a run that does
// not repeat all of them stays in the rest whole, never in part.
func TestUnequalRunFoldsWhole(t *testing.T) {
	var patch strings.Builder
	reflow := func(last string) string {
		return hunkAt(10, 10, around("-int f(int a, int b)", "+int f(int a,", "+      "+last)...)
	}
	for i := range 5 {
		patch.WriteString(plainFile(fmt.Sprintf("f%d.c", i), reflow("int b)")))
	}
	odd := reflow("long b)")
	patch.WriteString(plainFile("odd.c", odd))
	v := mustFold(t, patch.String(), Options{})
	if len(v.Patterns) != 2 || v.PatternLines != 15 {
		t.Errorf("want 2 patterns over 15 lines, got %+v", v)
	}
	if got := string(restOf(t, v.Text)); got != plainFile("odd.c", odd) {
		t.Errorf("the odd run is not in the rest whole:\n%s", got)
	}
}

// By default an edit is a pattern at three sites, or at two when its
// texts hold LongEdit bytes or more (the_repository → repo: 18); a
// MinCount given holds for every edit.
func TestMinCount(t *testing.T) {
	short := hunkAt(17, 17, around("-\tload(a, x);", "+\tload(b, x);")...)
	build := func(n int, hunk string) string {
		var patch strings.Builder
		for i := range n {
			patch.WriteString(plainFile(fmt.Sprintf("f%d.c", i), hunk))
		}
		return patch.String()
	}
	for _, c := range []struct {
		files, minCount, patterns int
		hunk                      string
	}{
		{2, 0, 1, renamed(20)}, {1, 0, 0, renamed(20)}, {2, 0, 0, short}, {3, 0, 1, short},
		{2, 3, 0, renamed(20)}, {3, 0, 1, renamed(20)}, {4, 4, 1, renamed(20)}, {3, 4, 0, renamed(20)}, {1, 1, 1, renamed(20)},
	} {
		v := mustFold(t, build(c.files, c.hunk), Options{MinCount: c.minCount})
		if len(v.Patterns) != c.patterns {
			t.Errorf("%d files, MinCount %d: %d patterns, want %d", c.files, c.minCount, len(v.Patterns), c.patterns)
		}
	}
}

// Lines that look like the folded text's own lines, bytes that are not
// UTF-8, CRLF endings, quoted paths: all must come back.
func TestLinesThatLookLikeTheFormat(t *testing.T) {
	tricky := []string{
		strings.TrimSuffix(Separator, "\n"),
		":12:3 x",
		":12#1 x",
		":3-4#1,2 \"\\t\"",
		"=src/a.c",
		"#1 5 lines added: `x`",
		"1 of 2 changed lines follow 1 pattern",
		"diff --git a/x b/x",
		"@@ -1 +1 @@",
		"--- a/x",
		"\xff\xfe the_repository \x80",
		"crlf the_repository\r",
		"",
		"\t",
		"`back`quote` \"the_repository\"",
	}
	paths := []string{"a.c", "sp ace.c", "new\nline.c", `quo"te.c`, "tab\t.c", "é.c", "back\\slash.c"}
	var patch strings.Builder
	for i, p := range paths {
		var lines []string
		for j, tr := range tricky {
			n := 10 + 10*j
			lines = append(lines, hunkAt(n, n+j, " ctx", "-"+tr, "+"+strings.ReplaceAll(tr, "the_repository", "repo"), "+"+tr, " ctx"))
		}
		name := p
		if i > 0 {
			name = fmt.Sprintf("%d%s", i, p)
		}
		patch.WriteString(gitFile(name, lines...))
	}
	v := mustFold(t, patch.String(), Options{})
	if len(v.Patterns) == 0 || v.FullLines != 0 {
		t.Errorf("want everything folded, got %d patterns, %d lines in full\n%s", len(v.Patterns), v.FullLines, v.Text)
	}
}

// gitFile is plainFile with git's quoting of the path.
func gitFile(path string, hunks ...string) string {
	a, b := string(quoteName([]byte("a/"+path))), string(quoteName([]byte("b/"+path)))
	tab := ""
	if strings.Contains(path, " ") {
		tab = "\t"
	}
	return "diff --git " + a + " " + b + "\nindex 1234567..89abcde 100644\n--- " + a + tab + "\n+++ " + b + tab + "\n" + strings.Join(hunks, "")
}

// Files without hunks, or with a header Rebuild could not write, stay in
// the rest whole, and so does a hunk with a line without its newline.
func TestFilesThatStayWhole(t *testing.T) {
	var patch strings.Builder
	for i := range 5 {
		patch.WriteString(plainFile(fmt.Sprintf("f%d.c", i), renamed(20)))
	}
	stay := []string{
		"diff --git a/img.png b/img.png\nindex 1234567..89abcde 100644\nBinary files a/img.png and b/img.png differ\n",
		"diff --git a/bin.dat b/bin.dat\nindex 1234567..89abcde 100644\nGIT binary patch\nliteral 5\nMcmZ?wbnyQ900062A^-pY\n\nliteral 3\nKcmZ?wbN>JW3;+TE\n\n",
		"diff --git a/old.c b/new.c\nsimilarity index 100%\nrename from old.c\nrename to new.c\n",
		"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
		"diff --git a/moved.c b/moved2.c\nsimilarity index 90%\nrename from moved.c\nrename to moved2.c\nindex 1234567..89abcde 100644\n--- a/moved.c\n+++ b/moved2.c\n" + renamed(20),
		"diff --git a/made.c b/made.c\nnew file mode 100644\nindex 0000000..89abcde\n--- /dev/null\n+++ b/made.c\n@@ -0,0 +1 @@\n+\tload(repo, x);\n",
		plainFile("eof.c", "@@ -18,3 +18,3 @@\n line 1\n line 2\n-\tload(the_repository, x);\n\\ No newline at end of file\n+\tload(repo, x);\n\\ No newline at end of file\n"),
		plainFile("dup.c", renamed(20)) + plainFile("dup.c", renamed(40)),
	}
	for _, s := range stay {
		patch.WriteString(s)
	}
	v := mustFold(t, patch.String(), Options{})
	if got, want := string(restOf(t, v.Text)), strings.Join(stay, ""); got != want {
		t.Errorf("the rest:\n%s\nwant:\n%s", got, want)
	}
	if v.Patterns[0].Sites != 5 {
		t.Errorf("%d sites, want 5", v.Patterns[0].Sites)
	}
}

func TestNormalize(t *testing.T) {
	patch := plainFile("a.c", hunkAt(3, 3, " x", "-old", "+new", "+more", " y"), hunkAt(20, 21, "-gone", "\\ No newline at end of file")) +
		"diff --git a/0.c b/0.c\nindex 1234567..89abcde 100644\n--- a/0.c\n+++ b/0.c\n" + hunkAt(1, 1, "+first", " second")
	got, err := Normalize([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	want := "diff --git a/0.c b/0.c\n--- a/0.c\n+++ b/0.c\n+1 first\n" +
		"diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n-4 old\n-20 gone\n\\ No newline at end of file\n+4 new\n+5 more\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestBadInput(t *testing.T) {
	for _, p := range []string{
		"not a patch\n",
		"diff --git a/x b/x\n@@ -1 +1 @@\n-a\n",
		"diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n",
		"diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\nstray\n",
		"diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b",
		"diff --git a/x b/x\n@@ -1 +1\n",
		"diff --git a/x b/x\n@@ -99999999999999 +1 @@\n",
	} {
		if _, err := Fold([]byte(p), Options{}); err == nil {
			t.Errorf("Fold(%q) took it", p)
		}
	}
}

// A folded text damaged anywhere must not rebuild silently.
func TestRebuildRejectsDamage(t *testing.T) {
	var patch strings.Builder
	for i := range 5 {
		patch.WriteString(plainFile(fmt.Sprintf("f%d.c", i), renamed(20)))
	}
	v := mustFold(t, patch.String(), Options{})
	text := string(v.Text)
	for _, damage := range []func(string) string{
		func(s string) string { return strings.Replace(s, "#1 5 lines", "#1 6 lines", 1) },
		func(s string) string { return strings.Replace(s, "#1 ", "#2 ", 1) },
		func(s string) string { return strings.Replace(s, Separator, "", 1) },
		func(s string) string { return strings.Replace(s, ":20#1", ":20:9#1", 1) },
		func(s string) string { return strings.Replace(s, ":20#1", ":20:0#1", 1) },
		func(s string) string { return strings.Replace(s, ":20#1", ":20:7#1", 1) }, // the implied column, spelled out
		func(s string) string { return strings.Replace(s, ":20#1", ":20#2", 1) },
		func(s string) string { return strings.Replace(s, ":20#1", ":20#0", 1) },
		func(s string) string { return strings.Replace(s, ":20#1", ":20-21#1,1", 1) },
		func(s string) string { return strings.Replace(s, ":20#1", ":20", 1) },
		func(s string) string { return strings.Replace(s, ":20#1 ", ":20#1", 1) },
		func(s string) string { return strings.Replace(s, "=f1.c\n", "=f0.c\n", 1) },
		func(s string) string { return strings.Replace(s, "=f1.c\n", "=f1.c\n=f9.c\n", 1) },
		func(s string) string { return strings.Replace(s, "\n## the rest", "\n=f9.c\n## the rest", 1) },
		func(s string) string { return strings.Replace(s, "=f4.c\n", "#2 1 line added: `x`\n=f4.c\n:1#2\n", 1) },
		func(s string) string { return strings.Replace(s, "`repo`", "`repo", 1) },
		func(s string) string { return strings.Replace(s, "=f0.c\n", "", 1) },
		func(s string) string { return strings.Replace(s, "=f0.c\n", "=\"f0.c\n", 1) },
		func(s string) string { return strings.Replace(s, "=f0.c\n", "\n", 1) },
		func(s string) string { return s + "garbage\n" },
	} {
		d := damage(text)
		if d == text {
			t.Fatalf("damage did nothing")
		}
		if _, err := Rebuild([]byte(d)); err == nil {
			t.Errorf("Rebuild took a damaged text:\n%s", d)
		}
	}
}
