package fold

import (
	"bytes"
	"strings"
	"testing"
)

// byteSource turns fuzz bytes into choices; past its end every choice is 0.
type byteSource struct {
	data []byte
	next int
}

func (s *byteSource) pick(n int) int {
	if n <= 1 || s.next >= len(s.data) {
		return 0
	}
	v := int(s.data[s.next]) % n
	s.next++
	return v
}

// Few lines, so that edits repeat, and lines that look like the folded
// text's own.
var fuzzLines = []string{
	"load(the_repository, x);",
	"\tload(the_repository, x);",
	"repo = the_repository; // x",
	"#include \"repository.h\"",
	"",
	"}",
	"\t\tconst char **argv,",
	"crlf the_repository\r",
	"\xff\xfe the_repository",
	strings.TrimSuffix(Separator, "\n"),
	":1:2 x",
	":1-2#1,2 \"\\t\"",
	"=a.c",
	"#1 5 lines added: ``",
	"diff --git a/x b/x",
	"@@ -1 +1 @@",
	"--- a/x",
}

var fuzzPaths = []string{"a.c", "b.c", "d/e.c", "sp ace.c", "new\nline.c", "é.c"}

// generatePatch writes a patch git could print, or nearly: its hunks may be
// adjacent, put an added line before a removed one, or start a line off.
func generatePatch(data []byte) []byte {
	s := &byteSource{data: data}
	var b strings.Builder
	for range 1 + s.pick(5) {
		path := fuzzPaths[s.pick(len(fuzzPaths))]
		switch s.pick(8) {
		case 0:
			b.WriteString("diff --git a/" + path + " b/" + path + "\nindex 1234567..89abcde 100644\nBinary files a/" + path + " and b/" + path + " differ\n")
			continue
		case 1:
			b.WriteString("diff --git a/" + path + " b/moved-" + path + "\nsimilarity index 100%\nrename from " + path + "\nrename to moved-" + path + "\n")
			continue
		case 2:
			b.WriteString("diff --git a/" + path + " b/" + path + "\nold mode 100644\nnew mode 100755\nindex 1234567..89abcde\n--- a/" + path + "\n+++ b/" + path + "\n")
		default:
			b.WriteString(gitFile(path))
		}
		writeHunks(&b, s)
	}
	return []byte(b.String())
}

func writeHunks(b *strings.Builder, s *byteSource) {
	oldLine, newLine := 1, 1
	hunks := s.pick(4)
	for h := range hunks {
		gap := s.pick(4)
		oldLine, newLine = oldLine+gap, newLine+gap
		var lines []string
		contextLines := func(n int) {
			for range n {
				lines = append(lines, " "+fuzzLines[s.pick(len(fuzzLines))])
			}
		}
		contextLines(s.pick(4))
		for r := range 1 + s.pick(3) {
			if r > 0 {
				contextLines(s.pick(4)) // none: an added line right before a removed one
			}
			removed, added := s.pick(4), s.pick(4)
			if removed+added == 0 {
				added = 1
			}
			var old []string
			for range removed {
				old = append(old, fuzzLines[s.pick(len(fuzzLines))])
				lines = append(lines, "-"+old[len(old)-1])
			}
			for i := range added {
				line := fuzzLines[s.pick(len(fuzzLines))]
				if i < len(old) {
					switch s.pick(4) {
					case 0:
						line = strings.ReplaceAll(old[i], "the_repository", "repo")
					case 1:
						line = "\t" + old[i]
					case 2:
						line = old[i] + " // x"
					}
				}
				lines = append(lines, "+"+line)
			}
		}
		contextLines(s.pick(4))
		if h == hunks-1 && s.pick(4) == 0 {
			lines = append(lines, "\\ No newline at end of file")
		}
		skew := 0
		if s.pick(8) == 0 && oldLine > 1 {
			skew = s.pick(3) - 1
		}
		hunk := hunkAt(oldLine+skew, newLine, lines...)
		b.WriteString(hunk)
		for _, l := range lines {
			switch l[0] {
			case ' ':
				oldLine++
				newLine++
			case '-':
				oldLine++
			case '+':
				newLine++
			}
		}
	}
}

func FuzzFoldRebuild(f *testing.F) {
	f.Add([]byte{}, uint8(0), false)
	f.Add([]byte{3, 0, 3, 1, 2, 1, 1, 0, 1, 1, 0}, uint8(1), false)
	f.Add(bytes.Repeat([]byte{4, 3, 2, 1, 0, 1, 1, 2, 0, 0}, 20), uint8(2), true)
	f.Add(bytes.Repeat([]byte{7, 5, 1, 3, 3, 1, 2, 0, 1, 2, 3, 0, 4}, 30), uint8(3), false)
	f.Add([]byte(plainFile("a.c", renamed(20))), uint8(1), false)
	f.Fuzz(func(t *testing.T, data []byte, minCount uint8, wholeHunks bool) {
		o := Options{MinCount: int(minCount % 6), WholeHunks: wholeHunks}
		patch := generatePatch(data)
		v, err := fold(patch, o)
		if err != nil {
			t.Fatalf("a generated patch was refused: %v\n%s", err, patch)
		}
		checkView(t, patch, v)
		// The fuzz bytes as a patch: if they parse, they fold exactly.
		if v, err := fold(data, o); err == nil {
			checkView(t, data, v)
		}
		_, _ = Rebuild(data) // must not panic
	})
}
