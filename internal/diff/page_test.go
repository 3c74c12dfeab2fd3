package diff

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

func jsonCost(b []byte) int { return text.JSONLen(b) }

func costOf(o PageOptions) func([]byte) int {
	if o.Cost != nil {
		return o.Cost
	}
	return func(b []byte) int { return len(b) }
}

// drain pages data from Pos{} to its end, checking what holds for every
// part: it fits in Room, moves forward, lists its files in order, and is a
// well-formed diff by itself.
func drain(t testing.TB, data []byte, o PageOptions) (parts [][]byte, pages []*Page) {
	t.Helper()
	cost := costOf(o)
	for pos := (Pos{}); ; {
		if len(pages) > len(data)+1 {
			t.Fatalf("room %d: more parts than input bytes", o.Room)
		}
		o.Start = pos
		pg, err := ReadPage(bytes.NewReader(data), o)
		if err != nil {
			t.Fatalf("room %d, part %d at %+v: %v", o.Room, len(pages), pos, err)
		}
		if c := cost(pg.Text); c > o.Room {
			t.Fatalf("room %d, part %d at %+v costs %d:\n%s", o.Room, len(pages), pos, c, pg.Text)
		}
		checkPageFiles(t, pos, pg)
		if patch := withoutPieces(pg.Text); len(patch) > 0 {
			self, err := ReadPage(bytes.NewReader(patch), PageOptions{Room: 1 << 30})
			if err != nil || !bytes.Equal(self.Text, patch) {
				t.Fatalf("room %d, part %d at %+v is not a well-formed diff (%v):\n%s", o.Room, len(pages), pos, err, pg.Text)
			}
		}
		parts, pages = append(parts, pg.Text), append(pages, pg)
		if pg.Next == nil {
			return parts, pages
		}
		if n := *pg.Next; n.File < pos.File || n.File == pos.File && (n.Line < pos.Line || n.Line == pos.Line && n.Byte <= pos.Byte) {
			t.Fatalf("room %d: part at %+v gave Next %+v", o.Room, pos, n)
		}
		pos = *pg.Next
	}
}

// withoutPieces is a part without its pieces' markers and without a
// piece that continues a line from the previous part (which no "@@" line
// counts): a well-formed diff, the first piece of a line being a line of
// its hunk.
func withoutPieces(part []byte) []byte {
	var out []byte
	lines := bytes.SplitAfter(part, []byte("\n"))
	for i := 0; i < len(lines); i++ {
		if m := lines[i]; bytes.HasPrefix(m, []byte(pieceOpener)) {
			if bytes.Contains(m, []byte(pieceFrom)) {
				i++
			}
			continue
		}
		out = append(out, lines[i]...)
	}
	return out
}

func checkPageFiles(t testing.TB, pos Pos, pg *Page) {
	t.Helper()
	for i, f := range pg.Files {
		switch {
		case i == 0 && (f.Index != pos.File || f.Continued != (pos.Line > 0)):
			t.Fatalf("part at %+v starts with file %d, continued %v", pos, f.Index, f.Continued)
		case i > 0 && (f.Index != pg.Files[i-1].Index+1 || f.Continued):
			t.Fatalf("part at %+v: file %d after %d, continued %v", pos, f.Index, pg.Files[i-1].Index, f.Continued)
		}
		last := i == len(pg.Files)-1
		ends := !last || pg.Next == nil || pg.Next.File > f.Index
		if f.Complete != ends {
			t.Fatalf("part at %+v: file %d complete %v, next %+v", pos, f.Index, f.Complete, pg.Next)
		}
	}
}

// leftOut reports pages that left something out, so that Join cannot give
// the input back.
func leftOut(pages []*Page) bool {
	for _, pg := range pages {
		for _, f := range pg.Files {
			if f.Hidden || f.Omitted || f.Replaced || len(f.LongLines) > 0 {
				return true
			}
		}
	}
	return false
}

func mustJoin(t testing.TB, parts [][]byte) []byte {
	t.Helper()
	out, err := Join(parts...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// firstDiff describes where two byte strings first differ.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("at byte %d of %d/%d:\n got %q\nwant %q", i, len(got), len(want),
		got[from:min(len(got), i+100)], want[from:min(len(want), i+100)])
}

// The example hunk for the rules on splitting.
const (
	exHeader = "diff --git a/f.go b/f.go\nindex 1111111..2222222 100644\n--- a/f.go\n+++ b/f.go\n"
	exHunk   = "@@ -3,5 +3,8 @@ func main() {\n c\n-d\n+D\n+E\n+F\n+G\n e\n f\n g\n"
)

// Rule 1: a hunk larger than the room is split at line boundaries into
// hunks with git's "@@" lines: a count of 1 left out, an empty range
// numbered by the line before it, the section heading on every piece.
func TestPageSplitsHunkWithGitHeaders(t *testing.T) {
	data := []byte(exHeader + exHunk)
	parts, pages := drain(t, data, PageOptions{Room: len(exHeader) + 36})
	var got []string
	for _, part := range parts {
		got = append(got, strings.TrimPrefix(string(part), exHeader))
	}
	want := []string{
		"@@ -3,2 +3 @@ func main() {\n c\n-d\n",
		"@@ -4,0 +4,2 @@ func main() {\n+D\n+E\n",
		"@@ -4,0 +6,2 @@ func main() {\n+F\n+G\n",
		"@@ -5,2 +8,2 @@ func main() {\n e\n f\n",
		"@@ -7 +10 @@ func main() {\n g\n",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("parts:\n%q\nwant\n%q", got, want)
	}
	for i, pg := range pages {
		if f := pg.Files[0]; f.Continued != (i > 0) || f.Complete != (i == len(pages)-1) {
			t.Errorf("part %d: %+v", i, f)
		}
	}
	if joined := mustJoin(t, parts); !bytes.Equal(joined, data) {
		t.Fatalf("Join: %s", firstDiff(joined, data))
	}
}

// Rule 1: a part ends between files, or between hunks, when that keeps
// the next file or hunk whole.
func TestPageSplitsBetweenFilesAndHunks(t *testing.T) {
	hunk1 := "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	hunk2 := "@@ -10,3 +10,3 @@ heading\n x\n-y\n+Y\n z\n"
	f1 := "diff --git a/one b/one\n--- a/one\n+++ b/one\n"
	f2 := "diff --git a/two b/two\n--- a/two\n+++ b/two\n"
	data := []byte(f1 + hunk1 + hunk2 + f2 + hunk1)

	// The room holds a header and one hunk, but not two.
	room := len(f1) + len(hunk2) + 5
	parts, _ := drain(t, data, PageOptions{Room: room})
	want := []string{f1 + hunk1, f1 + hunk2, f2 + hunk1}
	if len(parts) != len(want) {
		t.Fatalf("%d parts: %q", len(parts), parts)
	}
	for i := range want {
		if string(parts[i]) != want[i] {
			t.Errorf("part %d:\n%s\nwant\n%s", i, parts[i], want[i])
		}
	}

	// The room holds the first file whole, so the second starts a part.
	room = len(f1) + len(hunk1) + len(hunk2) + 10
	parts, _ = drain(t, data, PageOptions{Room: room})
	if len(parts) != 2 || string(parts[1]) != f2+hunk1 {
		t.Fatalf("parts: %q", parts)
	}
}

// Rule 2: a later part of a file repeats all of the file's header lines,
// and none of its earlier hunks.
func TestPageRepeatsHeader(t *testing.T) {
	hdr := "diff --git a/old name.txt b/new name.txt\nsimilarity index 91%\nrename from old name.txt\n" +
		"rename to new name.txt\nindex 1234567..89abcde 100755\n--- a/old name.txt\t\n+++ b/new name.txt\t\n"
	hunks := "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -20,3 +20,3 @@ func x()\n p\n-q\n+Q\n r\n"
	data := []byte(hdr + hunks)
	parts, pages := drain(t, data, PageOptions{Room: len(hdr) + 30})
	if len(parts) < 3 {
		t.Fatalf("want the file in several parts, got %q", parts)
	}
	for i, part := range parts {
		rest, ok := bytes.CutPrefix(part, []byte(hdr))
		if !ok || bytes.Contains(rest, []byte("diff --git")) || bytes.Contains(rest, []byte("rename")) {
			t.Errorf("part %d:\n%s", i, part)
		}
		f := pages[i].Files[0]
		if f.Header.OldPath != "old name.txt" || f.Header.NewPath != "new name.txt" || f.Header.Similarity != 91 {
			t.Errorf("part %d: header %+v", i, f.Header)
		}
	}
	if bytes.Count(bytes.Join(parts, nil), []byte("@@ -1,")) != 1 {
		t.Errorf("an earlier hunk was repeated: %q", parts)
	}
	if joined := mustJoin(t, parts); !bytes.Equal(joined, data) {
		t.Fatalf("Join: %s", firstDiff(joined, data))
	}
}

// Rule 2: a "\ No newline at end of file" line stays with the line before
// it, in the middle of a split hunk too.
func TestPageKeepsNoNewlineMarker(t *testing.T) {
	hdr := "diff --git a/n b/n\n--- a/n\n+++ b/n\n"
	body := "@@ -1,2 +1,4 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n+d\n"
	data := []byte(hdr + body)
	// The smallest room holds the header, "@@ -2 +1,0 @@" and the two lines.
	for room := len(hdr) + 45; room < len(data)+5; room++ {
		parts, pages := drain(t, data, PageOptions{Room: room})
		if leftOut(pages) {
			t.Fatalf("room %d: a line was left out", room)
		}
		for i, part := range parts {
			if j := bytes.Index(part, []byte("\\ No")); j >= 0 && !bytes.HasSuffix(part[:j], []byte("-b\n")) {
				t.Fatalf("room %d, part %d separates the marker:\n%s", room, i, part)
			}
		}
		if joined := mustJoin(t, parts); !bytes.Equal(joined, data) {
			t.Fatalf("room %d: Join: %s", room, firstDiff(joined, data))
		}
	}
}

// pageRepo builds two commits whose diff has the cases paging must get
// right, large ones included.
func pageRepo(t *testing.T) (g *gitRepo, c1, c2 string) {
	g = newGitRepo(t, true)
	var big, crlf strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&big, "line %04d of a file that is modified in many places\n", i)
	}
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&crlf, "crlf line %03d\r\n", i)
	}
	g.write("big-mod.txt", big.String(), 0o644)
	g.write("crlf-big.txt", crlf.String(), 0o644)
	g.write("nonl-mid.txt", "a\nb", 0o644)
	g.write("gone-big.txt", numbered("gone", 800), 0o644)
	g.write("ren95.txt", numbered("ren", 100), 0o644)
	g.write("ren100.txt", numbered("same", 30), 0o644)
	g.write("mode.sh", "#!/bin/sh\n", 0o644)
	g.write("img.bin", binaryBlob(5, 2000), 0o644)
	for _, name := range []string{"with space.txt", "ünïcode.txt", "tab\tname.txt", `quo"te.txt`} {
		g.write(name, numbered("q", 40), 0o644)
	}
	for i := range 120 {
		g.write(fmt.Sprintf("many/f%03d.txt", i), "one\ntwo\nthree\n", 0o644)
	}
	c1 = g.commit("base")

	var newBig strings.Builder
	for i := 0; newBig.Len() < 300<<10; i++ {
		fmt.Fprintf(&newBig, "new line %05d, with ünïcode and \"quotes\" and\ttabs\n", i)
	}
	g.write("new-big.txt", newBig.String(), 0o644)
	lines := strings.SplitAfter(big.String(), "\n")
	for i := 10; i < len(lines); i += 40 {
		lines[i] = "changed " + lines[i]
	}
	for i := 500; i < 700; i++ {
		lines[i] = "replaced " + lines[i]
	}
	g.write("big-mod.txt", strings.Join(lines, ""), 0o644)
	crlfLines := strings.SplitAfter(crlf.String(), "\n")
	for i := 0; i < len(crlfLines)-1; i += 10 {
		crlfLines[i] = "CHANGED " + crlfLines[i]
	}
	g.write("crlf-big.txt", strings.Join(crlfLines, ""), 0o644)
	g.write("nonl-mid.txt", "a\nb\n"+numbered("added", 200), 0o644)
	g.remove("gone-big.txt")
	g.remove("ren95.txt")
	ren := numbered("ren", 100)
	for _, n := range []string{"10", "30", "50", "70", "90"} {
		ren = strings.Replace(ren, "ren line "+n, "REN LINE "+n, 1)
	}
	g.write("ren95-new.txt", ren, 0o644) // about 95% similar
	g.remove("ren100.txt")
	g.write("moved/ren100.txt", numbered("same", 30), 0o644)
	g.write("mode.sh", "#!/bin/sh\n", 0o755)
	g.write("img.bin", binaryBlob(6, 2000), 0o644)
	for _, name := range []string{"with space.txt", "ünïcode.txt", "tab\tname.txt", `quo"te.txt`} {
		g.write(name, strings.Replace(numbered("q", 40), "q line 20", "Q LINE 20", 1), 0o644)
	}
	for i := range 120 {
		g.write(fmt.Sprintf("many/f%03d.txt", i), fmt.Sprintf("one\nTWO %d\nthree\n", i), 0o644)
	}
	c2 = g.commit("change")
	return g, c1, c2
}

// applyCheck runs "git apply --check" on patch in the work tree.
func applyCheck(t *testing.T, g *gitRepo, patch []byte, args ...string) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "p.diff")
	if err := os.WriteFile(name, patch, 0o644); err != nil {
		t.Fatal(err)
	}
	g.git(append(append([]string{"apply", "--check"}, args...), name)...)
}

// Rule 3: following Next from Pos{} terminates, every part fits, and Join
// gives back git's output byte for byte, which applies to the base.
func TestPageGitRoundTrip(t *testing.T) {
	type source struct {
		name   string
		g      *gitRepo
		c1, c2 string
		args   []string
		rooms  []int
	}
	var sources []source
	rnd := rand.New(rand.NewPCG(1, 2))
	randomRooms := func(n, lo, hi int) []int {
		var out []int
		for range n {
			out = append(out, lo+rnd.IntN(hi-lo))
		}
		return out
	}
	g, c1, c2, _ := fixture(t, true)
	sources = append(sources,
		source{"fixture", g, c1, c2, []string{"-M", "-C", "--find-copies-harder"}, randomRooms(30, 1000, 12000)},
		source{"fixture binary", g, c1, c2, []string{"--binary", "-M", "-C", "--find-copies-harder"}, randomRooms(10, 1000, 12000)})
	g2, d1, d2 := pageRepo(t)
	rooms := append([]int{1500, 1 << 20}, randomRooms(4, 3000, 120000)...)
	sources = append(sources,
		source{"large", g2, d1, d2, []string{"-M"}, rooms},
		source{"large binary", g2, d1, d2, []string{"--binary", "-M"}, rooms[:3]})

	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			g := *src.g
			g.t = t
			out := g.git(append(append([]string{"diff"}, src.args...), src.c1, src.c2)...)
			for _, cost := range []func([]byte) int{nil, jsonCost} {
				for _, room := range src.rooms {
					parts, pages := drain(t, out, PageOptions{Room: room, Cost: cost})
					if leftOut(pages) {
						t.Fatalf("room %d: a part left something out", room)
					}
					if joined := mustJoin(t, parts); !bytes.Equal(joined, out) {
						t.Fatalf("room %d, %d parts: Join: %s", room, len(parts), firstDiff(joined, out))
					}
				}
			}
			if strings.Contains(src.name, "binary") {
				parts, _ := drain(t, out, PageOptions{Room: src.rooms[0]})
				g.git("checkout", "-q", "--detach", src.c1)
				applyCheck(t, &g, mustJoin(t, parts))
			}
		})
	}
}

// Rule 3: each part of a diff of modified files applies by itself (without
// context at the cuts, hence --unidiff-zero).
func TestPagePartsApply(t *testing.T) {
	g, c1, c2 := pageRepo(t)
	out := g.git("diff", c1, c2, "--", "big-mod.txt", "crlf-big.txt", "nonl-mid.txt", "with space.txt", "ünïcode.txt", "many")
	g.git("checkout", "-q", "--detach", c1)
	for _, room := range []int{2500, 20000} {
		parts, _ := drain(t, out, PageOptions{Room: room, Cost: jsonCost})
		if len(parts) < 4 {
			t.Fatalf("room %d: only %d parts", room, len(parts))
		}
		for i, part := range parts {
			if i%3 == 0 || i == len(parts)-1 || room > 10000 {
				applyCheck(t, g, part, "--unidiff-zero")
			}
		}
	}
}

// Rule 3 for files split with more than one hunk in a part, and for hidden
// files, which are listed and not written.
func TestPageHidden(t *testing.T) {
	data := readSamples(t)[0]
	hide := func(h Header) bool { return strings.HasSuffix(h.NewPath, ".txt") }
	var want []byte
	for _, sec := range refSplit(data) {
		h, err := ParseHeader(strings.SplitAfter(string(headerOf(sec)), "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if !hide(h) {
			want = append(want, sec...)
		}
	}
	parts, pages := drain(t, data, PageOptions{Room: 1500, Hide: hide})
	hidden := 0
	for _, pg := range pages {
		for _, f := range pg.Files {
			if f.Hidden != hide(f.Header) || f.Hidden && (f.Added != 0 || !f.Complete) {
				t.Errorf("%+v", f)
			}
			if f.Hidden {
				hidden++
			}
		}
	}
	if hidden == 0 {
		t.Fatal("nothing hidden")
	}
	if joined := mustJoin(t, parts); !bytes.Equal(joined, want) {
		t.Fatalf("Join: %s", firstDiff(joined, want))
	}
}

// Rule 4: a line that cannot fit in any part comes in pieces, each as large
// as its part's room, on UTF-8 boundaries, each after its marker; joined,
// the parts are the input.
func TestPageLongLine(t *testing.T) {
	long := strings.Repeat("x", 5000)
	wide := strings.Repeat("é€😀x", 700) // 2-, 3- and 4-byte characters at every cut
	hdr := "diff --git a/l b/l\n--- a/l\n+++ b/l\n"
	data := []byte(hdr + "@@ -1,4 +1,6 @@ h\n a\n-" + long + "\n\\ No newline at end of file\n+" + long + "\n+" + wide + "\n+b\n c\n d\n")
	for _, o := range []PageOptions{{Room: 200}, {Room: 1000, Cost: jsonCost}, {Room: 333, Cost: jsonCost, Frame: text.FramePatch}} {
		parts, pages := drain(t, data, o)
		if joined := mustJoin(t, parts); !bytes.Equal(joined, data) {
			t.Fatalf("room %d: Join: %s", o.Room, firstDiff(joined, data))
		}
		pieces := 0
		for i, pg := range pages {
			for _, f := range pg.Files {
				if len(f.LongLines) > 0 {
					t.Fatalf("room %d: part %d left out %+v", o.Room, i, f.LongLines)
				}
			}
			for _, l := range bytes.SplitAfter(pg.Text, []byte("\n")) {
				if bytes.HasPrefix(l, []byte(pieceOpener)) {
					pieces++
				}
			}
			if !utf8.Valid(pg.Text) {
				t.Fatalf("room %d: part %d splits a character", o.Room, i)
			}
			// Parts are full: every part but the last holds at least
			// a third of its room (a piece fills what the room leaves;
			// one that would be small, beside its marker, starts the
			// next part).
			if i < len(pages)-1 && 3*costOf(o)(pg.Text) < o.Room {
				t.Errorf("room %d: part %d holds %d", o.Room, i, costOf(o)(pg.Text))
			}
		}
		if min := len(long) * 2 / o.Room; pieces < min {
			t.Errorf("room %d: %d pieces, want at least %d", o.Room, pieces, min)
		}
	}

	// At every room: a part that goes on with a hunk right after git's
	// "\ No newline at end of file" (the last piece of a line before it)
	// joins too (prometheus pull request 4679 as VS Code did not).
	// (A room under about 200 cannot hold the section's header lines, a
	// marker and git's "\" line: the pager says it left the rest out,
	// and the server's FitPart reads the part again with more.)
	for room := 200; room < 1500; room += 3 {
		parts, _ := drain(t, data, PageOptions{Room: room, Cost: jsonCost})
		if joined := mustJoin(t, parts); !bytes.Equal(joined, data) {
			t.Fatalf("room %d: Join: %s", room, firstDiff(joined, data))
		}
	}

	// The markers say the line, the side, the bytes and whether it goes
	// on; a line shorter than the room that cannot fit with the header
	// and a hunk header comes in pieces too.
	line := strings.Repeat("z", 150)
	data = []byte(hdr + "@@ -1,2 +1,2 @@\n a\n-" + line + "\n+b\n")
	parts, _ := drain(t, data, PageOptions{Room: 180})
	all := string(bytes.Join(parts, nil))
	for _, m := range []string{"[line 2 of the old l, bytes 1–", " of 150; goes on in the next part]\n", ", from the previous part: the line's end]\n"} {
		if !strings.Contains(all, m) {
			t.Errorf("no %q in the parts:\n%s", m, all)
		}
	}
	if joined := mustJoin(t, parts); !bytes.Equal(joined, data) {
		t.Fatalf("Join: %s", firstDiff(joined, data))
	}
}

// Rule 4: the pager makes progress however small the room: headers that
// do not fit are reported as Omitted, lines as LongLines.
func TestPageTinyRooms(t *testing.T) {
	data := readSamples(t)[0]
	for room := 1; room < 400; room += 7 {
		_, pages := drain(t, data, PageOptions{Room: room, Cost: jsonCost})
		files := 0
		for _, pg := range pages {
			for _, f := range pg.Files {
				if f.Complete {
					files++
				}
			}
		}
		if files != len(refSplit(data)) {
			t.Fatalf("room %d: %d files complete, want %d", room, files, len(refSplit(data)))
		}
	}
}

// Rule 5: bytes that are not UTF-8 are written as U+FFFD, the file is
// flagged, and the cost is that of the text written.
func TestPageReplacesInvalidUTF8(t *testing.T) {
	data := []byte("diff --git a/b\xff b/b\xff\n--- a/b\xff\n+++ b/b\xff\n@@ -1 +1 @@ \xfe\n-a\xc3\n+\xe2\x82b\n" +
		"diff --git a/ok b/ok\n--- a/ok\n+++ b/ok\n@@ -1 +1 @@\n-é\n+ü\n")
	pg, err := ReadPage(bytes.NewReader(data), PageOptions{Room: 1000, Cost: jsonCost})
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(pg.Text) || !bytes.Contains(pg.Text, []byte("+\uFFFD\uFFFDb\n")) || !bytes.Contains(pg.Text, []byte("-é\n")) {
		t.Fatalf("text %q", pg.Text)
	}
	if len(pg.Files) != 2 || !pg.Files[0].Replaced || pg.Files[1].Replaced || pg.Files[0].Header.NewPath != "b\xff" {
		t.Fatalf("files %+v", pg.Files)
	}
	// The replaced text costs more than the input; rooms are measured on it.
	for room := 40; room < 200; room++ {
		parts, _ := drain(t, data, PageOptions{Room: room, Cost: jsonCost})
		for _, part := range parts {
			if !utf8.Valid(part) {
				t.Fatalf("room %d: %q", room, part)
			}
		}
	}
}

// Rule 6: input that is not a diff, or a malformed hunk, is an error; an
// empty input is an empty page.
func TestPageErrors(t *testing.T) {
	pg, err := ReadPage(strings.NewReader(""), PageOptions{Room: 10})
	if err != nil || len(pg.Text) != 0 || pg.Files != nil || pg.Next != nil || *pg.Total != (Total{}) {
		t.Fatalf("empty input: %+v, %v", pg, err)
	}
	h := "diff --git a/x b/x\n--- a/x\n+++ b/x\n"
	bad := map[string]string{
		"not a diff":            "hello\nworld\n",
		"no names":              "diff --git nonsense\n",
		"hunk header":           h + "@@ -1,x +1 @@\n-a\n+b\n",
		"hunk header no +":      h + "@@ -1 1 @@\n-a\n+b\n",
		"hunk header zero":      h + "@@ -0,1 +1 @@\n-a\n+b\n",
		"empty hunk":            h + "@@ -1,0 +1,0 @@\n",
		"combined":              h + "@@@ -1 -1 +1 @@@\n--a\n++b\n",
		"too few lines":         h + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n",
		"too few at next file":  h + "@@ -1,3 +1,3 @@\n a\n" + h,
		"wrong kind":            h + "@@ -1 +1 @@\n-a\n-b\n",
		"not a hunk line":       h + "@@ -1 +1 @@\n-a\nxyz\n",
		"marker without a line": h + "@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n",
	}
	for name, in := range bad {
		for _, room := range []int{1, 30, 1000} {
			_, err := ReadPage(strings.NewReader(in), PageOptions{Room: room})
			if !errors.Is(err, ErrNotDiff) {
				// A small room may end the part before the fault.
				if err == nil && room < 1000 {
					continue
				}
				t.Errorf("%s, room %d: got %v, want ErrNotDiff", name, room, err)
			}
		}
	}
	var he *HeaderError
	if _, err := ReadPage(strings.NewReader(bad["no names"]), PageOptions{Room: 100}); !errors.As(err, &he) {
		t.Errorf("want a HeaderError, got %v", err)
	}
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(h+"@@ -1 +1 @@\n-a\n"), &errReader{boom})
	if _, err := ReadPage(r, PageOptions{Room: 1000}); err != boom {
		t.Errorf("read error: got %v", err)
	}
	if _, err := ReadPage(strings.NewReader(h), PageOptions{Room: 0}); err == nil {
		t.Error("Room 0 accepted")
	}
}

type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }

// Rule 7: a position that is not in the input is ErrBadPos.
func TestPageBadPos(t *testing.T) {
	data := exHeader + exHunk + "diff --git a/m b/m\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/n b/n\n--- a/n\n+++ b/n\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
	good := []Pos{{}, {File: 0, Line: 1}, {File: 0, Line: 9}, {File: 1, Line: 0}, {File: 2, Line: 0}, {File: 2, Line: 1}, {File: 2, Line: 3}}
	for _, pos := range good {
		if _, err := ReadPage(strings.NewReader(data), PageOptions{Room: 1000, Start: pos}); err != nil {
			t.Errorf("%+v: %v", pos, err)
		}
	}
	bad := []Pos{{File: -1, Line: 0}, {File: 0, Line: -1}, {File: 0, Line: 10}, {File: 0, Line: 100}, {File: 1, Line: 1}, {File: 2, Line: 2}, {File: 2, Line: 4}, {File: 2, Line: 5}, {File: 3, Line: 0}, {File: 9, Line: 0},
		{File: 0, Line: 0, Byte: 1}, {File: 2, Line: 1, Byte: 1}, {File: 2, Line: 2, Byte: 1}, {File: 2, Line: 1, Byte: -1}}
	for _, pos := range bad {
		if _, err := ReadPage(strings.NewReader(data), PageOptions{Room: 1000, Start: pos}); err != ErrBadPos {
			t.Errorf("%+v: got %v, want ErrBadPos", pos, err)
		}
	}
	if _, err := ReadPage(strings.NewReader(""), PageOptions{Room: 10, Start: Pos{File: 1, Line: 0}}); err != ErrBadPos {
		t.Errorf("empty input at file 1: %v", err)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Rule 8: a 20 MB section is paged in bounded memory, and the input is not
// read much past the part.
func TestPageMemory(t *testing.T) {
	const size, room = 20 << 20, 64 << 10
	small := "diff --git a/small b/small\n--- a/small\n+++ b/small\n@@ -1 +1 @@\n-a\n+b\n"
	// A 20 MB line, read in one go: it comes in pieces, never held whole.
	longLine := "diff --git a/long b/long\n--- a/long\n+++ b/long\n@@ -1 +1 @@\n-" + strings.Repeat("y", size) + "\n+b\n"
	input := func() io.Reader {
		return io.MultiReader(newHugeSection(size), strings.NewReader(small+longLine))
	}
	lines := int64(size / 64)
	inLong := func(b int64) Pos { return Pos{File: 2, Line: 1, Byte: b, LineBytes: size} }
	for _, tc := range []struct {
		start     Pos
		countRest bool
		toEnd     bool // the part reaches the end of input
		toLong    bool // the part ends inside the long line
	}{
		{start: Pos{}}, {start: Pos{File: 0, Line: lines / 2}}, {start: Pos{}, countRest: true},
		{start: Pos{File: 0, Line: lines - 10}, toLong: true}, {start: Pos{File: 2}, toLong: true},
		{start: inLong(size / 2), toLong: true}, {start: Pos{File: 2, Line: 1, Byte: size / 2}, toLong: true},
		{start: inLong(size - 100), toEnd: true},
	} {
		cr := &countingReader{r: input()}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		pg, err := ReadPage(cr, PageOptions{Start: tc.start, Room: room, CountRest: tc.countRest})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 2<<20 {
			t.Errorf("%+v: allocated %d bytes", tc, grew)
		}
		if len(pg.Text) == 0 || len(pg.Text) > room {
			t.Errorf("%+v: %d bytes of text", tc, len(pg.Text))
		}
		switch {
		case tc.toLong:
			if n := pg.Next; n == nil || n.File != 2 || n.Line != 1 || n.Byte <= tc.start.Byte || n.Byte > tc.start.Byte+room || n.LineBytes != size {
				t.Errorf("%+v: next %+v, want a piece of the long line", tc, pg.Next)
			}
		case tc.countRest || tc.toEnd:
			if pg.Total == nil || pg.Total.Files != 3 || cr.n != pg.Total.Bytes || (pg.Next == nil) != tc.toEnd {
				t.Errorf("%+v: total %+v, read %d, next %v", tc, pg.Total, cr.n, pg.Next)
			}
			if tc.toEnd && !strings.HasSuffix(string(pg.Text), strings.Repeat("y", 100)+"\n@@ -1,0 +1 @@\n+b\n") {
				t.Errorf("%+v: the line's last piece and the line after it: ...%q", tc, pg.Text[max(0, len(pg.Text)-300):])
			}
		default:
			if pg.Total != nil || pg.Next == nil {
				t.Errorf("%+v: total %+v, next %v", tc, pg.Total, pg.Next)
			}
			if far := cr.n - 64*tc.start.Line; far > 2*room+2*readBufSize {
				t.Errorf("%+v: read %d bytes past the start", tc, far)
			}
		}
	}
}

func TestJoin(t *testing.T) {
	h := "diff --git a/x b/x\n--- a/x\n+++ b/x\n"
	tests := []struct {
		name  string
		parts []string
		want  string
	}{
		{"empty", nil, ""},
		{"abutting pieces merge", []string{h + "@@ -3,2 +3 @@ f\n c\n-d\n", h + "@@ -4,0 +4,2 @@ f\n+D\n+E\n"},
			h + "@@ -3,2 +3,3 @@ f\n c\n-d\n+D\n+E\n"},
		{"a gap does not merge", []string{h + "@@ -3 +3 @@\n c\n", h + "@@ -5 +5 @@\n e\n"},
			h + "@@ -3 +3 @@\n c\n@@ -5 +5 @@\n e\n"},
		{"other headings do not merge", []string{h + "@@ -3 +3 @@ a\n c\n", h + "@@ -4 +4 @@ b\n e\n"},
			h + "@@ -3 +3 @@ a\n c\n@@ -4 +4 @@ b\n e\n"},
		{"other files do not merge", []string{h + "@@ -3 +3 @@\n c\n", strings.ReplaceAll(h, "x", "y") + "@@ -4 +4 @@\n e\n"},
			h + "@@ -3 +3 @@\n c\n" + strings.ReplaceAll(h, "x", "y") + "@@ -4 +4 @@\n e\n"},
		{"three pieces", []string{h + "@@ -0,0 +1 @@\n+a\n", h + "@@ -0,0 +2 @@\n+b\n", h + "@@ -0,0 +3 @@\n+c\n"},
			h + "@@ -0,0 +1,3 @@\n+a\n+b\n+c\n"},
	}
	for _, tc := range tests {
		var parts [][]byte
		for _, p := range tc.parts {
			parts = append(parts, []byte(p))
		}
		got, err := Join(parts...)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %v\n%s\nwant\n%s", tc.name, err, got, tc.want)
		}
	}
	for _, bad := range []string{"hello\n", h + "@@ nonsense\n"} {
		if _, err := Join([]byte(bad)); !errors.Is(err, ErrNotDiff) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// roundTrips reports whether Join can give d back from any parts of it:
// its hunk headers are written as git writes them, no two hunks of a file
// abut, and no two neighbouring files have the same header lines.
func roundTrips(d []byte) bool {
	var prevHdr []byte
	for i := 0; i < len(d); {
		end := headerEnd(d, i)
		if bytes.Equal(d[i:end], prevHdr) {
			return false
		}
		prevHdr = d[i:end]
		var prev *hunkHead
		for i = end; i < len(d) && !hasPrefix(d[i:], diffGitPrefix); i = lineEnd(d, i) {
			line := d[i:lineEnd(d, i)]
			if !hasPrefix(line, "@@") {
				continue
			}
			h, ok := parseHunkHead(line)
			if !ok || !bytes.Equal(appendHunkHead(nil, h), line) || prev != nil && prev.abuts(h) {
				return false
			}
			prev = &h
		}
	}
	return true
}

func FuzzPage(f *testing.F) {
	for _, data := range readSamples(f) {
		for _, room := range []uint16{100, 700, 3000} {
			f.Add(data, room, room%2 == 0)
		}
	}
	f.Add([]byte(exHeader+exHunk), uint16(120), false)
	f.Add([]byte("diff --git a/n b/n\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n"), uint16(60), true)
	f.Fuzz(func(t *testing.T, data []byte, room uint16, json bool) {
		o := PageOptions{Room: int(room%4096) + 1}
		if json {
			o.Cost = jsonCost
		}
		whole, err := ReadPage(bytes.NewReader(data), PageOptions{Room: 1 << 30, Cost: o.Cost})
		if err != nil {
			_, _ = ReadPage(bytes.NewReader(data), o) // must not panic
			return
		}
		if whole.Next != nil || whole.Total == nil || whole.Total.Bytes != int64(len(data)) {
			t.Fatalf("whole: next %v, total %+v", whole.Next, whole.Total)
		}
		parts, pages := drain(t, data, o)
		if last := pages[len(pages)-1]; last.Total == nil || *last.Total != *whole.Total {
			t.Fatalf("total %+v, want %+v", last.Total, whole.Total)
		}
		if leftOut(pages) || !roundTrips(whole.Text) {
			return
		}
		if joined := mustJoin(t, parts); !bytes.Equal(joined, whole.Text) {
			t.Fatalf("Join: %s", firstDiff(joined, whole.Text))
		}
	})
}

func BenchmarkReadPage(b *testing.B) {
	data := benchDiff(600)
	b.Logf("input: %.1f MB", float64(len(data))/1e6)
	const room = 64 << 10
	for _, start := range []Pos{{}, {File: 300, Line: 20}} {
		b.Run(fmt.Sprintf("from %d:%d", start.File, start.Line), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				pg, err := ReadPage(bytes.NewReader(data), PageOptions{Start: start, Room: room, Cost: jsonCost, CountRest: true})
				if err != nil || pg.Next == nil || pg.Total.Files != 600 {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("all parts", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			parts, _ := drain(b, data, PageOptions{Room: room, Cost: jsonCost})
			if len(parts) < 2 {
				b.Fatal("one part")
			}
		}
	})
}

// randomDiff writes a well-formed diff of random files and hunks: context,
// "-" and "+" lines of random lengths, some with CRLF or "\ No newline at
// end of file" after them, hunks with and without section headings, and
// sections with no hunks or with lines outside hunks (a binary patch).
func randomDiff(rnd *rand.Rand) []byte {
	var b bytes.Buffer
	line := func(prefix byte) {
		b.WriteByte(prefix)
		chars := []rune("abcdé\"\\<\t xyz")
		for range rnd.IntN(3) * rnd.IntN(60) {
			b.WriteRune(chars[rnd.IntN(len(chars))])
		}
		if rnd.IntN(8) == 0 {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
		if rnd.IntN(20) == 0 {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
	for f := range 1 + rnd.IntN(5) {
		name := fmt.Sprintf("dir/file %d.txt", f)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", name, name)
		switch rnd.IntN(6) {
		case 0:
			b.WriteString("old mode 100644\nnew mode 100755\n")
			continue
		case 1:
			fmt.Fprintf(&b, "index 1234567..89abcde 100644\nGIT binary patch\nliteral %d\n", rnd.IntN(100))
			for range rnd.IntN(6) {
				b.WriteString("zcmV?d00001" + strings.Repeat("x", rnd.IntN(60)) + "\n")
			}
			b.WriteString("\nliteral 0\nHcmV?d00001\n\n")
			continue
		}
		fmt.Fprintf(&b, "index 1234567..89abcde 100644\n--- a/%s\n+++ b/%s\n", name, name)
		oldAt, newAt := int64(1+rnd.IntN(3)), int64(1+rnd.IntN(3))
		for range 1 + rnd.IntN(4) {
			var body bytes.Buffer
			saved := b
			b = body
			var h hunkHead
			h.old.first, h.new.first = oldAt, newAt
			for range 1 + rnd.IntN(30) {
				switch k := " -+"[rnd.IntN(3)]; k {
				case ' ':
					h.old.n++
					h.new.n++
					line(k)
				case '-':
					h.old.n++
					line(k)
				default:
					h.new.n++
					line(k)
				}
			}
			body, b = b, saved
			if rnd.IntN(2) == 0 {
				h.tail = []byte(" func heading()\n")
			} else {
				h.tail = []byte("\n")
			}
			b.Write(appendHunkHead(nil, h))
			b.Write(body.Bytes())
			gap := int64(1 + rnd.IntN(5))
			oldAt, newAt = oldAt+h.old.n+gap, newAt+h.new.n+gap
		}
	}
	return b.Bytes()
}

// Rule 3, on generated diffs: for random rooms, draining terminates, every
// part fits and is well-formed, and Join gives the input back unless a
// line had to be left out.
func TestPageRandomDiffs(t *testing.T) {
	const diffs = 400
	rnd := rand.New(rand.NewPCG(3, 4))
	joined := 0
	for i := range diffs {
		data := randomDiff(rnd)
		if !roundTrips(data) {
			t.Fatalf("generated diff %d does not round-trip:\n%s", i, data)
		}
		o := PageOptions{Room: 40 + rnd.IntN(2500)}
		if i%2 == 0 {
			o.Cost = jsonCost
		}
		parts, pages := drain(t, data, o)
		if leftOut(pages) {
			continue
		}
		joined++
		if got := mustJoin(t, parts); !bytes.Equal(got, data) {
			t.Fatalf("diff %d, room %d: Join: %s\ninput:\n%s", i, o.Room, firstDiff(got, data), data)
		}
	}
	if joined < diffs/2 {
		t.Errorf("only %d of %d diffs were joined", joined, diffs)
	}
}

// A line outside hunks after a hunk is not git's output (git prints such
// lines only in sections without hunks): a part starting at it would read
// it back as a header line. FuzzPage found two such inputs; both reading
// the section and seeking past the line say ErrNotDiff.
func TestPageLineAfterHunks(t *testing.T) {
	in := "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nstray\n@@ -5 +5 @@\n-c\n+d\n"
	for _, start := range []Pos{{}, {Line: 5}} {
		if _, err := ReadPage(strings.NewReader(in), PageOptions{Start: start, Room: 1000}); !errors.Is(err, ErrNotDiff) {
			t.Errorf("from %+v: err = %v, want ErrNotDiff", start, err)
		}
	}
}

// An omitted section (its header lines alone cost more than Room) comes in
// a part of its own: a part before it ends before it, and the part ends
// after it, so the reader can give it more room and a part leaves out at
// most one.
func TestPageOmittedSectionIsAlone(t *testing.T) {
	long := strings.Repeat("p", 200)
	data := "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/" + long + " b/" + long + "\n--- a/" + long + "\n+++ b/" + long + "\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/c b/c\n--- a/c\n+++ b/c\n@@ -1 +1 @@\n-a\n+b\n"
	_, pages := drain(t, []byte(data), PageOptions{Room: 300})
	var got []string
	for _, pg := range pages {
		var files []string
		for _, f := range pg.Files {
			files = append(files, fmt.Sprintf("%s omitted=%v", f.Header.NewPath[:1], f.Omitted))
		}
		got = append(got, strings.Join(files, ","))
	}
	if want := []string{"a omitted=false", "p omitted=true", "c omitted=false"}; !slices.Equal(got, want) {
		t.Fatalf("parts %q, want %q", got, want)
	}
}
