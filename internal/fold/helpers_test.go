package fold

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// plainFile is a file changed in place, as git prints it.
func plainFile(path string, hunks ...string) string {
	return "diff --git a/" + path + " b/" + path + "\nindex 1234567..89abcde 100644\n--- a/" + path + "\n+++ b/" + path + "\n" + strings.Join(hunks, "")
}

// hunkAt writes a hunk whose first line is old line oldStart and new line
// newStart; lines carry their sign. Counts are taken from the lines.
func hunkAt(oldStart, newStart int, lines ...string) string {
	oldCount, newCount := 0, 0
	for _, l := range lines {
		switch l[0] {
		case ' ':
			oldCount++
			newCount++
		case '-':
			oldCount++
		case '+':
			newCount++
		}
	}
	var b bytes.Buffer
	b.WriteString("@@ -")
	writeRange(&b, oldStart, oldCount)
	b.WriteString(" +")
	writeRange(&b, newStart, newCount)
	b.WriteString(" @@ func f()\n")
	for _, l := range lines {
		b.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// context returns n context lines numbered from first.
func context(first, n int) []string {
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf(" line %d", first+i))
	}
	return lines
}

// around puts 3 lines of context before and after the changes.
func around(changes ...string) []string {
	return append(append(context(1, 3), changes...), context(4, 3)...)
}

// mustFold folds and checks what every fold must give: Rebuild equal to
// Normalize, and counts that add up to the patch's changed lines.
func mustFold(t *testing.T, patch string, o Options) *View {
	t.Helper()
	v, err := Fold([]byte(patch), o)
	if err != nil {
		t.Fatalf("Fold: %v\n%s", err, patch)
	}
	checkView(t, []byte(patch), v)
	return v
}

func checkView(t *testing.T, patch []byte, v *View) {
	t.Helper()
	want, err := Normalize(patch)
	if err != nil {
		t.Fatalf("Normalize: %v", err)
	}
	got, err := Rebuild(v.Text)
	if err != nil {
		t.Fatalf("Rebuild: %v\n%s", err, v.Text)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Rebuild differs from Normalize\nrebuilt:\n%s\nnormal:\n%s\nfolded:\n%s", got, want, v.Text)
	}
	rest := restOf(t, v.Text)
	files, err := parsePatch(rest)
	if err != nil {
		t.Fatalf("the rest is not a patch: %v\n%s", err, rest)
	}
	full := 0
	for _, f := range files {
		for i := range f.hunks {
			full += f.hunks[i].changed()
		}
	}
	if full != v.FullLines {
		t.Errorf("the rest holds %d changed lines, FullLines says %d", full, v.FullLines)
	}
	all, _ := parsePatch(patch)
	total := 0
	for _, f := range all {
		for i := range f.hunks {
			total += f.hunks[i].changed()
		}
	}
	if v.PatternLines+v.FullLines != total {
		t.Errorf("PatternLines %d + FullLines %d != %d changed lines", v.PatternLines, v.FullLines, total)
	}
	sites := 0
	for _, p := range v.Patterns {
		sites += p.Sites
		if p.Kind == Edited {
			sites += p.Sites
		}
	}
	if sites != v.PatternLines {
		t.Errorf("patterns hold %d lines, PatternLines says %d", sites, v.PatternLines)
	}
}

// cutFolded returns the folded text's parts: before the Separator, the
// rest, and the sites after the SitesSeparator.
func cutFolded(t *testing.T, text []byte) (patterns, rest, sites []byte) {
	t.Helper()
	patterns, after, ok := bytes.Cut(text, []byte("\n"+Separator))
	at := bytes.LastIndex(after, []byte(SitesSeparator))
	if !ok || at < 0 || at > 0 && after[at-1] != '\n' {
		t.Fatalf("no Separator and SitesSeparator in\n%s", text)
	}
	return append(patterns, '\n'), after[:at], after[at+len(SitesSeparator):]
}

// restOf returns the rest: git's diff between the two separators.
func restOf(t *testing.T, text []byte) []byte {
	t.Helper()
	_, rest, _ := cutFolded(t, text)
	return rest
}

// head returns the folded text's own lines: the patterns, then the sites.
func head(t *testing.T, text []byte) string {
	t.Helper()
	patterns, _, sites := cutFolded(t, text)
	return string(patterns) + string(sites)
}
