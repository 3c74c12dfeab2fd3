package fold

import (
	"strings"
	"testing"
)

// Sites are listed by file, in git's order, each path once, whatever their
// patterns.
func TestSitesByFile(t *testing.T) {
	file := func(path string) string {
		return plainFile(path,
			hunkAt(1, 1, " #include \"a.h\"", "+#include \"repository.h\"", " #include \"b.h\""),
			hunkAt(17, 18, around("-\tload(the_repository, x);", "+\tload(repo, x);")...))
	}
	v := mustFold(t, file("b.c")+file("a.c"), Options{MinCount: 2})
	want := "6 of 6 changed lines follow 2 patterns; 0 are shown in full as git's diff below\n" +
		"#1 2 lines added: `#include \"repository.h\"`\n" +
		"#2 2 lines edited: `the_repository` → `repo`\n" +
		"=b.c\n:2#1\n:21#2 \tload(repo, x);\n" +
		"=a.c\n:2#1\n:21#2 \tload(repo, x);\n"
	if got := head(t, v.Text); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Singles of one side under one indent on lines one after the other share
// a site line; a removed and an added line never do.
func TestSinglesShareALine(t *testing.T) {
	file := func(path string) string {
		return plainFile(path,
			hunkAt(1, 1, " c1", "-gone", " c2", "+new", " c3"),
			hunkAt(20, 20, " x", "+\tfoo();", "+\tbar();", "+baz();", "+\tqux();", "+\tfoo();", " y"))
	}
	v := mustFold(t, file("a.c")+file("b.c"), Options{MinCount: 2})
	want := "=a.c\n:2#2\n:3#3\n:21-22#1,4 \"\\t\"\n:23#5\n:24-25#6,1 \"\\t\"\n=b.c\n"
	got := head(t, v.Text)
	if !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
	}
	// Old line 2 and new line 3 are not one after the other.
	mixed := strings.Replace(string(v.Text), "=a.c\n:2#2\n:3#3\n", "=a.c\n:2-3#2,3\n", 1)
	if _, err := Rebuild([]byte(mixed)); err == nil {
		t.Errorf("Rebuild took a removed and an added line on one site line")
	}
}

// An edited site gives its column only when the edit's place in the new
// line does not go without saying.
func TestColumns(t *testing.T) {
	patch := plainFile("a.c",
		hunkAt(10, 10, " x", "-\trepo = get(the_repository);", "+\trepo = get(repo);", " y"), // "repo" twice
		hunkAt(20, 20, " x", "-int f(int a, int b)", "+int f(int a,", " y"),                  // a tail removed
		hunkAt(30, 30, " x", "-\tf(a, UNUSED b);", "+\tf(a, b);", " y"),                      // removed inside
		hunkAt(40, 40, " x", "-\tload(the_repository);", "+\tload(repo);", " y"))             // "repo" once
	v := mustFold(t, patch, Options{MinCount: 1})
	got := head(t, v.Text)
	for _, want := range []string{
		"\n:11:13#1 \trepo = get(repo);\n",
		"\n:21#2 int f(int a,\n",
		"\n:31:7#3 \tf(a, b);\n",
		"\n:41#1 \tload(repo);\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}

// Only the writer's spelling of the site lines rebuilds.
func TestRebuildRejectsOtherSpellings(t *testing.T) {
	file := func(path string) string {
		return plainFile(path, hunkAt(20, 20, " x", "+\tfoo();", "+\tbar();", " y"))
	}
	v := mustFold(t, file("a.c")+file("b.c"), Options{MinCount: 2})
	text := string(v.Text)
	if !strings.Contains(text, "\n:21-22#1,2 \"\\t\"\n") {
		t.Fatalf("no shared site line in\n%s", text)
	}
	for _, damage := range []string{
		":21-22#1 \"\\t\"",     // fewer patterns than lines
		":21-23#1,2 \"\\t\"",   // more lines than patterns
		":21-21#1 \"\\t\"",     // a range of one line
		":22-21#1,2 \"\\t\"",   // backwards
		":21-22:3#1,2 \"\\t\"", // a column for singles
		":21-22#1,2 \"\"",      // an empty indent written out
		":21-22#1,2 \\t",       // an indent not quoted
		":21-22#1,2, \"\\t\"",  // a dangling comma
	} {
		d := strings.Replace(text, ":21-22#1,2 \"\\t\"", damage, 1)
		if _, err := Rebuild([]byte(d)); err == nil {
			t.Errorf("Rebuild took %q", damage)
		}
	}
}
