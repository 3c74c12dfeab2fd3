package diff

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

// Added/Deleted agree with git's own --numstat for every text file.
func TestCountsMatchNumstat(t *testing.T) {
	g, c1, c2, _ := fixture(t, true)
	patch := g.git("diff", "-M", c1, c2)
	numstat := g.git("diff", "-M", "--numstat", "-z", c1, c2)
	want := map[string][2]int{} // new path → added, deleted
	for rest := string(numstat); rest != ""; {
		var rec string
		rec, rest, _ = strings.Cut(rest, "\x00")
		f := strings.SplitN(rec, "\t", 3)
		if len(f) != 3 || f[0] == "-" {
			if len(f) == 3 && f[2] == "" { // a rename: two more NUL-terminated names
				_, rest, _ = strings.Cut(rest, "\x00")
				_, rest, _ = strings.Cut(rest, "\x00")
			}
			continue
		}
		path := f[2]
		if path == "" {
			_, rest, _ = strings.Cut(rest, "\x00")
			path, rest, _ = strings.Cut(rest, "\x00")
		}
		a, _ := strconv.Atoi(f[0])
		d, _ := strconv.Atoi(f[1])
		want[path] = [2]int{a, d}
	}
	// A type change is two sections (delete, add) for one numstat line, so
	// compare sums per path.
	got := map[string][2]int{}
	s := NewSplitter(bytes.NewReader(patch))
	for {
		sec, err := s.NextWithin(0, 0)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !sec.Header.IsBinary {
			c := got[sec.Header.NewPath]
			got[sec.Header.NewPath] = [2]int{c[0] + sec.Added, c[1] + sec.Deleted}
		}
	}
	for path, w := range want {
		if got[path] != w {
			t.Errorf("%s: +%d -%d, numstat says +%d -%d", path, got[path][0], got[path][1], w[0], w[1])
		}
	}
	if len(want) < 5 {
		t.Fatalf("only %d files compared", len(want))
	}
}

func TestNextWithinKeepsOnlyWhatFits(t *testing.T) {
	input := "diff --git a/s b/s\n--- a/s\n+++ b/s\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/big b/big\n--- a/big\n+++ b/big\n@@ -1,2 +1,2 @@\n-" + strings.Repeat("x", 500) + "\n-y\n+z\n+w\n" +
		"diff --git a/t b/t\n--- a/t\n+++ b/t\n@@ -1 +1 @@\n-c\n+d\n"
	s := NewSplitter(strings.NewReader(input))
	small, err := s.NextWithin(100, 0)
	if err != nil || small.Raw == nil || int64(len(small.Raw)) != small.Size || small.Added != 1 || small.Deleted != 1 {
		t.Fatalf("small section: %+v, %v", small, err)
	}
	big, err := s.NextWithin(100, 0)
	if err != nil || big.Raw != nil || big.Size < 500 || big.Header.NewPath != "big" || big.Added != 2 || big.Deleted != 2 {
		t.Fatalf("big section: Raw %d bytes, %+v, %v", len(big.Raw), big.Header, err)
	}
	last, err := s.NextWithin(100, 0)
	if err != nil || string(last.Raw) != "diff --git a/t b/t\n--- a/t\n+++ b/t\n@@ -1 +1 @@\n-c\n+d\n" {
		t.Fatalf("section after a skipped one: %q, %v", last.Raw, err)
	}
}

func TestNextWithinAborts(t *testing.T) {
	input := "diff --git a/big b/big\nnew file mode 100644\n--- /dev/null\n+++ b/big\n@@ -0,0 +1,1000 @@\n" + strings.Repeat("+line\n", 1000) +
		"diff --git a/after b/after\n"
	s := NewSplitter(strings.NewReader(input))
	sec, err := s.NextWithin(10, 200)
	if !errors.Is(err, ErrAborted) || sec == nil || sec.Header.NewPath != "big" || !sec.Header.IsNew || sec.Size <= 200 || sec.Size > 200+readBufSize {
		t.Fatalf("abort: %+v, %v", sec, err)
	}
	if _, err := s.Next(); !errors.Is(err, ErrAborted) {
		t.Fatalf("the splitter goes on after an abort: %v", err)
	}
}
