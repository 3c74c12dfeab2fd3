package diff

import (
	"slices"
	"testing"
)

// ScanHidden numbers a patch's lines as the files do: "+" and context lines
// in the new file, "-" lines in the old one, from each hunk's header.
func TestScanHiddenLineNumbers(t *testing.T) {
	patch := "diff --git a/app.js b/app.js\n" +
		"index 1111111..2222222 100644\n" +
		"--- a/app.js\n" +
		"+++ b/app.js\n" +
		"@@ -1,3 +1,3 @@\n" +
		" ctx\u200b line\n" +
		"-old \u202e line\n" +
		"+new \u2066 line\n" +
		" plain\n" +
		"@@ -10,2 +10,3 @@ func f() {\n" +
		" a\n" +
		"+b\u2069\n" +
		"\\ No newline at end of file\n"
	newSide, oldSide := ScanHidden([]byte(patch))
	if !slices.Equal(newSide.Lines, []int{1, 2, 11}) || newSide.Count != 3 {
		t.Errorf("new side: lines %v count %d, want [1 2 11] 3", newSide.Lines, newSide.Count)
	}
	if !slices.Equal(oldSide.Lines, []int{2}) || !slices.Equal(oldSide.Points, []rune{0x202E}) {
		t.Errorf("old side: lines %v points %U, want [2] [U+202E]", oldSide.Lines, oldSide.Points)
	}
	if !slices.Equal(newSide.Points, []rune{0x200B, 0x2066, 0x2069}) {
		t.Errorf("new side points %U", newSide.Points)
	}
}

// A name in a section's header is not scanned: git quotes it there.
func TestScanHiddenSkipsHeaders(t *testing.T) {
	patch := "diff --git a/x\u202e b/x\u202e\nnew file mode 100644\n--- /dev/null\n+++ b/x\u202e\n@@ -0,0 +1 @@\n+plain\n"
	if n, o := ScanHidden([]byte(patch)); n.Found() || o.Found() {
		t.Errorf("header lines scanned: %v %v", n.Lines, o.Lines)
	}
}
