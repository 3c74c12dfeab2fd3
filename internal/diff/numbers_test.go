package diff

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

const numHdr = "diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n"

// numberCases are hunks after numHdr (raw: the whole input), numbered.
var numberCases = []struct {
	name, in, want string
	raw            bool
}{
	{name: "context", in: "@@ -40 +41 @@ func f() {\n foo\n", want: "@@ -40 +41 @@ func f() {\n 40 41\tfoo\n"},
	{name: "removed", in: "@@ -12 +11,0 @@\n-bar\n", want: "@@ -12 +11,0 @@\n-12 \tbar\n"},
	{name: "added", in: "@@ -117,0 +118 @@\n+baz\n", want: "@@ -117,0 +118 @@\n+ 118\tbaz\n"},
	{name: "a hunk", in: "@@ -3,4 +3,5 @@\n c\n-d\n+D\n+E\n e\n-f\n+F\n",
		want: "@@ -3,4 +3,5 @@\n 3 3\tc\n-4 \td\n+ 4\tD\n+ 5\tE\n 5 6\te\n-6 \tf\n+ 7\tF\n"},
	{name: "lines that read as headers", in: "@@ -1,3 +1,3 @@\n--- a\n+++ b\n-- c\n++ d\n ctx\n",
		want: "@@ -1,3 +1,3 @@\n-1 \t-- a\n+ 1\t++ b\n-2 \t- c\n+ 2\t+ d\n 3 3\tctx\n"},
	{name: "no newline", in: "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n",
		want: "@@ -1,2 +1,2 @@\n 1 1\ta\n-2 \tb\n\\ No newline at end of file\n+ 2\tB\n\\ No newline at end of file\n"},
	{name: "two hunks, two sections",
		in:   "@@ -1 +1 @@\n-a\n+b\n@@ -10 +10 @@\n x\ndiff --git a/g b/g\nnew file mode 100644\n--- /dev/null\n+++ b/g\n@@ -0,0 +1,2 @@\n+1\n+2\n",
		want: "@@ -1 +1 @@\n-1 \ta\n+ 1\tb\n@@ -10 +10 @@\n 10 10\tx\ndiff --git a/g b/g\nnew file mode 100644\n--- /dev/null\n+++ b/g\n@@ -0,0 +1,2 @@\n+ 1\t1\n+ 2\t2\n"},
	{name: "a first piece", in: "@@ -1,2 +1,2 @@\n a\n[line 2 of the old f, bytes 1–3 of 9; goes on in the next part]\n-bbb\n",
		want: "@@ -1,2 +1,2 @@\n 1 1\ta\n[line 2 of the old f, bytes 1–3 of 9; goes on in the next part]\n-2 \tbbb\n"},
	{name: "a last piece", in: "[line 2 of the old f, bytes 4–9 of 9, from the previous part: the line's end]\n-bbbbbb\n\\ No newline at end of file\n@@ -3 +2 @@\n+c\n",
		want: "[line 2 of the old f, bytes 4–9 of 9, from the previous part: the line's end]\n-bbbbbb\n\\ No newline at end of file\n@@ -3 +2 @@\n+ 2\tc\n"},
	{name: "a middle piece counts no line", in: "@@ -1,2 +1,2 @@\n a\n[line 2 of the new f, bytes 4–9 of 20, from the previous part; goes on in the next part]\n+xx\n b\n",
		want: "@@ -1,2 +1,2 @@\n 1 1\ta\n[line 2 of the new f, bytes 4–9 of 20, from the previous part; goes on in the next part]\n+xx\n 2 2\tb\n"},
	{name: "a malformed @@ line", in: "@@ -x +1 @@\n+a\n-b\n@@ -5 +5 @@\n+z\n", want: "@@ -x +1 @@\n+a\n-b\n@@ -5 +5 @@\n+ 5\tz\n"},
	{name: "an empty hunk", in: "@@ -0,0 +0,0 @@\n+a\n", want: "@@ -0,0 +0,0 @@\n+a\n"},
	{name: "counts too small", in: "@@ -1 +1 @@\n-a\n+b\n+c\n-d\n", want: "@@ -1 +1 @@\n-1 \ta\n+ 1\tb\n+c\n-d\n"},
	{name: "one side used up", in: "@@ -1 +1,2 @@\n-a\n-b\n+c\n", want: "@@ -1 +1,2 @@\n-1 \ta\n-b\n+c\n"},
	{name: "stripped context", in: "@@ -1,4 +1,4 @@\n a\n\n\r\n d\n", want: "@@ -1,4 +1,4 @@\n 1 1\ta\n\n\r\n 4 4\td\n"},
	{name: "counts too large", in: "@@ -1,3 +1,3 @@\n a\nxyz\n b\n", want: "@@ -1,3 +1,3 @@\n 1 1\ta\nxyz\n b\n"},
	{name: "a section inside a hunk", in: "@@ -1,5 +1,5 @@\n a\ndiff --git a/g b/g\n--- a/g\n+++ b/g\n",
		want: "@@ -1,5 +1,5 @@\n 1 1\ta\ndiff --git a/g b/g\n--- a/g\n+++ b/g\n"},
	{name: "no final newline", in: "@@ -1 +1 @@\n-a\n+b", want: "@@ -1 +1 @@\n-1 \ta\n+ 1\tb"},
	{name: "CR and U+2028", in: "@@ -1,2 +1,2 @@\n-a\r\n+b\u2028c\r\n x\rY\n", want: "@@ -1,2 +1,2 @@\n-1 \ta\r\n+ 1\tb\u2028c\r\n 2 2\tx\rY\n"},
	{name: "framed", in: "@@ -1 +1 @@\n \\[note: x]\n", want: "@@ -1 +1 @@\n 1 1\t\\[note: x]\n"},
	{name: "reads as numbered", in: "@@ -1 +1 @@\n- 1\tx\n+1 \ty\n", want: "@@ -1 +1 @@\n-1 \t 1\tx\n+ 1\t1 \ty\n"},
	{name: "large numbers", in: "@@ -1099511627775 +1099511627775 @@\n x\n", want: "@@ -1099511627775 +1099511627775 @@\n 1099511627775 1099511627775\tx\n"},
	{name: "no section", raw: true, in: "+a\n@@ -1 +1 @@\n-a\n", want: "+a\n@@ -1 +1 @@\n-1 \ta\n"},
}

func TestNumberLinesExamples(t *testing.T) {
	for _, tc := range numberCases {
		in, want := numHdr+tc.in, numHdr+tc.want
		if tc.raw {
			in, want = tc.in, tc.want
		}
		if got := NumberLines([]byte(in)); string(got) != want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, want)
		}
		checkNumberRoundTrip(t, []byte(in))
	}
	var p []byte
	for _, tc := range numberCases {
		p = append(append(p, numHdr...), tc.in...)
	}
	if n := testing.AllocsPerRun(20, func() { _ = NumberedExtra(p) }); n != 0 {
		t.Errorf("NumberedExtra: %v allocations", n)
	}
}

// UnnumberLines refuses a hunk line without the numbers NumberLines gives it.
func TestUnnumberLinesRefuses(t *testing.T) {
	for _, bad := range []string{
		"@@ -1 +1 @@\n-a\n",
		"@@ -1 +1 @@\n-2 \ta\n",
		"@@ -1 +1 @@\n-01 \ta\n",
		"@@ -1 +1 @@\n-1 1\ta\n",
		"@@ -1 +1 @@\n-1 \n",
		"@@ -1 +1 @@\n 1 1 a\n",
		"@@ -1,2 +1 @@\n-1 \ta\n-b\n",
		"@@ -1 +1 @@\n[line 1 of the old f, bytes 1–3 of 9; goes on in the next part]\n-bbb\n",
	} {
		if got, err := UnnumberLines([]byte(numHdr + bad)); err == nil {
			t.Errorf("%q: no error, gave %q", bad, got)
		}
	}
}

// checkNumberRoundTrip checks UnnumberLines and NumberedExtra against
// NumberLines on p, and returns p numbered.
func checkNumberRoundTrip(t testing.TB, p []byte) []byte {
	t.Helper()
	num := NumberLines(p)
	if extra := NumberedExtra(p); extra != len(num)-len(p) {
		t.Fatalf("NumberedExtra %d, NumberLines added %d to %q", extra, len(num)-len(p), p)
	}
	back, err := UnnumberLines(num)
	if err != nil || !bytes.Equal(back, p) {
		t.Fatalf("UnnumberLines: %v: %s", err, firstDiff(back, p))
	}
	return num
}

// numbersRepo makes two commits whose diff has what numbering must get
// right: files of several hunks, renames with and without changes, a
// binary file, files without a final newline, a deletion, additions,
// lines with CR, U+2028 and other breaks, lines that read as headers or
// as the server's, and lines long enough to come in pieces.
func numbersRepo(t *testing.T) (g *gitRepo, c1, c2 string) {
	g = newGitRepo(t, true)
	m := strings.Split(strings.TrimSuffix(numbered("multi", 300), "\n"), "\n")
	m[49] = "-- reads like a header"
	m[120] = "[note: reads like the server's]"
	long := strings.Repeat("long é€😀 line ", 700)
	l := strings.Split(strings.TrimSuffix(numbered("long", 30), "\n"), "\n")
	l[2], l[14] = long+"old", long+"context"
	var crlf strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&crlf, "crlf line %02d\r\n", i)
	}
	breaks := "alpha\u2028beta\ngamma\u2029delta\nnel\u0085x\nvt\vff\fz\n" + numbered("u", 10)
	g.write("multi.txt", strings.Join(m, "\n")+"\n", 0o644)
	g.write("long.txt", strings.Join(l, "\n")+"\n", 0o644)
	g.write("ren-old.txt", numbered("ren", 40), 0o644)
	g.write("pure.txt", numbered("pure", 10), 0o644)
	g.write("img.bin", binaryBlob(1, 300), 0o644)
	g.write("nonl.txt", "a\nb\nc", 0o644)
	g.write("nonl2.txt", "x\ny", 0o644)
	g.write("gone.txt", numbered("gone", 12), 0o644)
	g.write("crlf.txt", strings.Replace(crlf.String(), "crlf line 10", "mid\rcr", 1), 0o644)
	g.write("breaks.txt", breaks, 0o644)
	g.write("with space.txt", numbered("sp", 20), 0o644)
	c1 = g.commit("base")

	m[9], m[120], m[299] = "changed line 10", "[line 3 of x, bytes 1–2 of 2: the line's end]", "the last line, changed"
	m = slices.Insert(m, 200, "inserted a", "diff --git a/x b/x", "@@ -1 +1 @@", "++ reads like a header too", "inserted e")
	m = slices.Delete(m, 99, 104)
	m = slices.Delete(m, 49, 50)
	l[2], l[15] = long+"new", "changed after a long line"
	g.write("multi.txt", strings.Join(m, "\n")+"\n", 0o644)
	g.write("long.txt", strings.Join(l, "\n")+"\n", 0o644)
	g.remove("ren-old.txt")
	g.write("ren-new.txt", strings.Replace(numbered("ren", 40), "ren line 20", "REN LINE 20", 1), 0o644)
	g.remove("pure.txt")
	g.write("moved/pure.txt", numbered("pure", 10), 0o644)
	g.write("img.bin", binaryBlob(2, 300), 0o644)
	g.write("nonl.txt", "a\nB\nc", 0o644)
	g.write("nonl2.txt", "x\ny\nz\n", 0o644)
	g.remove("gone.txt")
	g.write("added.txt", numbered("added", 7), 0o644)
	g.write("empty.txt", "", 0o644)
	g.write("crlf.txt", strings.NewReplacer("crlf line 05", "CRLF LINE 05", "mid\rcr", "mid\rCR").Replace(crlf.String()), 0o644)
	g.write("breaks.txt", strings.NewReplacer("beta", "BETA", "nel\u0085x", "nel\u0085X").Replace(breaks), 0o644)
	g.write("with space.txt", strings.Replace(numbered("sp", 20), "sp line 10", "SP LINE 10", 1), 0o644)
	c2 = g.commit("change")
	return g, c1, c2
}

// blobLines returns the lines (without their "\n") of files at commits,
// read with "git show REV:PATH" once each.
func blobLines(g *gitRepo) func(rev, path string) []string {
	cache := map[string][]string{}
	return func(rev, path string) []string {
		key := rev + ":" + path
		if f, ok := cache[key]; ok {
			return f
		}
		f := strings.SplitAfter(string(g.git("show", key)), "\n")
		if f[len(f)-1] == "" {
			f = f[:len(f)-1]
		}
		for i := range f {
			f[i] = strings.TrimSuffix(f[i], "\n")
		}
		cache[key] = f
		return f
	}
}

// parseNumbered reads a line as NumberLines writes it.
func parseNumbered(line string) (sign byte, oldN, newN int64, rest string, ok bool) {
	tab := strings.IndexByte(line, '\t')
	if tab < 1 {
		return 0, 0, 0, "", false
	}
	nums := strings.Split(line[1:tab], " ")
	if len(nums) != 2 {
		return 0, 0, 0, "", false
	}
	num := func(s string, has bool) (int64, bool) {
		if !has {
			return 0, s == ""
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil && n > 0 && strconv.FormatInt(n, 10) == s
	}
	sign = line[0]
	oldN, okOld := num(nums[0], sign != '+')
	newN, okNew := num(nums[1], sign != '-')
	return sign, oldN, newN, line[tab+1:], okOld && okNew && (sign == ' ' || sign == '-' || sign == '+')
}

// numberOracle checks numbered, NumberLines of orig (git's output or an
// unframed part of it), against the files themselves: the text of a line
// numbered N in the new file is line N of the new file (at c2), in the
// old file line N of the old one (at c1); a first piece's text starts
// that line, and its marker names the same number. Each line from a
// section's first "@@" line on that starts with git's sign is numbered,
// a piece that continues a line excepted; no other line is changed. It
// returns how many lines and first pieces it checked.
func numberOracle(t *testing.T, blob func(rev, path string) []string, c1, c2 string, orig, numbered []byte) (lines, pieces int) {
	t.Helper()
	ol, nl := strings.SplitAfter(string(orig), "\n"), strings.SplitAfter(string(numbered), "\n")
	if len(ol) != len(nl) {
		t.Fatalf("%d lines numbered as %d", len(ol), len(nl))
	}
	var hdr []string
	var h Header
	inHeader, inHunks, marker := false, false, ""
	for i, o := range ol {
		prev := marker
		marker = ""
		switch {
		case prev != "":
		case strings.HasPrefix(o, diffGitPrefix):
			hdr, inHeader, inHunks = []string{o}, true, false
		case strings.HasPrefix(o, pieceOpener):
			marker, inHeader = o, false
		case strings.HasPrefix(o, "@@"):
			if !inHunks {
				var err error
				if h, err = ParseHeader(hdr); err != nil {
					t.Fatalf("header %q: %v", hdr, err)
				}
			}
			inHeader, inHunks = false, true
		case inHeader:
			hdr = append(hdr, o)
		}
		want := inHunks && o != "" && strings.IndexByte("+- ", o[0]) >= 0 && !strings.Contains(prev, pieceFrom)
		if !want {
			if nl[i] != o {
				t.Fatalf("line %d, %.80q, numbered %.80q", i+1, o, nl[i])
			}
			continue
		}
		sign, oldN, newN, rest, ok := parseNumbered(nl[i])
		if !ok || string(sign)+rest != o {
			t.Fatalf("line %d, %.80q, numbered %.80q", i+1, o, nl[i])
		}
		line := strings.TrimSuffix(rest, "\n")
		check := func(rev, path string, n int64) {
			f := blob(rev, path)
			switch {
			case n < 1 || n > int64(len(f)):
				t.Fatalf("%.80q numbered %d: %s:%s has %d lines", o, n, rev[:7], path, len(f))
			case prev == "" && f[n-1] != line, prev != "" && !strings.HasPrefix(f[n-1], line):
				t.Fatalf("%.80q numbered %d: line %d of %s:%s is %.80q", o, n, n, rev[:7], path, f[n-1])
			}
		}
		if sign != '+' {
			check(c1, h.OldPath, oldN)
		}
		if sign != '-' {
			check(c2, h.NewPath, newN)
		}
		if prev != "" {
			var n int64
			var side string
			if _, err := fmt.Sscanf(prev, pieceOpener+"%d of the %s ", &n, &side); err != nil ||
				side == "new" && n != newN || side == "old" && (n != oldN || sign == '+') {
				t.Fatalf("marker %q before %.80q", prev, nl[i])
			}
			pieces++
		}
		lines++
	}
	return lines, pieces
}

// TestNumberLinesGit: git's own diff numbered, checked line by line
// against the files, and numbered back.
func TestNumberLinesGit(t *testing.T) {
	g, c1, c2 := numbersRepo(t)
	out := g.git("diff", "-M", c1, c2)
	for _, s := range []string{"rename from ren-old.txt", "similarity index 100%", "Binary files", "deleted file mode",
		"new file mode", "\\ No newline at end of file", "\u2028", "\r\n", "\n+++ reads like a header too\n", "\n--- reads like a header\n"} {
		if !bytes.Contains(out, []byte(s)) {
			t.Fatalf("the diff has no %q:\n%s", s, out)
		}
	}
	num := checkNumberRoundTrip(t, out)
	lines, _ := numberOracle(t, blobLines(g), c1, c2, out, num)
	if lines < 60 {
		t.Errorf("only %d lines numbered", lines)
	}
	t.Logf("%d lines numbered and checked against the files", lines)
	checkNumberRoundTrip(t, g.git("diff", "--binary", "-M", c1, c2))
}

// TestNumberLinesParts: the parts of the pager, with lines in pieces and
// hunks cut, numbered and numbered back, and joined.
func TestNumberLinesParts(t *testing.T) {
	g, c1, c2 := numbersRepo(t)
	out := g.git("diff", "-M", c1, c2)
	blob := blobLines(g)
	var firsts, conts, continued int
	for _, o := range []PageOptions{
		{Room: 350}, {Room: 600}, {Room: 1000, Cost: jsonCost}, {Room: 2500},
		{Room: 400, Frame: text.FramePatch}, {Room: 900, Cost: jsonCost, Frame: text.FramePatch},
	} {
		parts, pages := drain(t, out, o)
		var back [][]byte
		for i, part := range parts {
			num := checkNumberRoundTrip(t, part)
			if o.Frame == nil {
				_, p := numberOracle(t, blob, c1, c2, part, num)
				firsts += p
			}
			conts += bytes.Count(part, []byte(pieceFrom))
			for _, f := range pages[i].Files {
				if f.Continued {
					continued++
				}
			}
			unnum, _ := UnnumberLines(num)
			back = append(back, unnum)
		}
		if o.Frame == nil && !leftOut(pages) {
			if joined := mustJoin(t, back); !bytes.Equal(joined, out) {
				t.Fatalf("room %d: Join: %s", o.Room, firstDiff(joined, out))
			}
		}
	}
	t.Logf("%d first pieces, %d pieces that go on, %d parts that start inside a file", firsts, conts, continued)
	if firsts == 0 || conts == 0 || continued == 0 {
		t.Errorf("%d first pieces, %d pieces that go on, %d parts that start inside a file", firsts, conts, continued)
	}
}

func FuzzNumberLinesRoundTrip(f *testing.F) {
	// The stored git outputs of the package's fixture (renames, copies,
	// binary files, no final newline, deletions, additions, CRLF) and
	// their parts; the examples.
	for _, data := range readSamples(f) {
		f.Add(data)
		for _, o := range []PageOptions{{Room: 300}, {Room: 700, Frame: text.FramePatch}} {
			parts, _ := drain(f, data, o)
			for _, p := range parts {
				f.Add(p)
			}
		}
	}
	long := []byte(numHdr + "@@ -1,2 +1,2 @@ h\n a\n-" + strings.Repeat("é\u2028x\r", 300) + "\n+b\n")
	parts, _ := drain(f, long, PageOptions{Room: 400})
	for _, p := range parts {
		f.Add(p)
	}
	for _, tc := range numberCases {
		f.Add([]byte(numHdr + tc.in))
		f.Add([]byte(numHdr + tc.want))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		checkNumberRoundTrip(t, p)
		// Read as numbered, p is refused or is what NumberLines writes.
		if q, err := UnnumberLines(p); err == nil && !bytes.Equal(NumberLines(q), p) {
			t.Fatalf("UnnumberLines took %q to %q, which NumberLines writes as %q", p, q, NumberLines(q))
		}
	})
}
