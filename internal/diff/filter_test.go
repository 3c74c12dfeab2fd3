package diff

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Filter passes exactly the sections the Splitter finds for a path, byte
// for byte.
func TestFilterKeepsTheSectionsOfAPath(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.diff")
	if len(files) == 0 {
		t.Fatal("no sample diffs")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sp := NewSplitter(bytes.NewReader(data))
		var secs []*Section
		for {
			sec, err := sp.Next()
			if err == io.EOF {
				break
			}
			if sec == nil {
				t.Fatalf("%s: %v", name, err)
			}
			secs = append(secs, sec)
		}
		for _, target := range secs {
			path := target.Header.NewPath
			var want []byte
			for _, sec := range secs {
				if sec.Header.Matches(path) {
					want = append(want, sec.Raw...)
				}
			}
			got, err := io.ReadAll(Filter(bytes.NewReader(data), func(h Header) bool { return h.Matches(path) }))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %q: got\n%s\nwant\n%s", name, path, got, want)
			}
		}
	}
}

// A line longer than the read buffer whose later piece starts like a
// section is not one.
func TestFilterLongLineIsNotASection(t *testing.T) {
	long := "+" + strings.Repeat("x", readBufSize-1) + "diff --git a/fake b/fake\n"
	diff := "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -0,0 +1 @@\n" + long +
		"diff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n"
	got, err := io.ReadAll(Filter(strings.NewReader(diff), func(h Header) bool { return h.NewPath == "a" }))
	if err != nil {
		t.Fatal(err)
	}
	if want := diff[:strings.Index(diff, "diff --git a/b")]; string(got) != want {
		t.Fatalf("got %d bytes, want %d", len(got), len(want))
	}
	got, _ = io.ReadAll(Filter(strings.NewReader(diff), func(h Header) bool { return h.NewPath == "fake" }))
	if len(got) != 0 {
		t.Fatalf("a piece of a long line was taken for a section: %.80q", got)
	}
}
