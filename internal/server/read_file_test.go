package server

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func TestReadFileWorkTreeAndRef(t *testing.T) {
	r := fixture(t)
	r.Write("README.md", "# uncommitted edit\n")
	h := serve(t, r)

	var out readFileOut
	text := h.structured("read_file", args("path", "README.md"), &out)
	if out.Content != "# uncommitted edit" || out.Ref != nil || out.TotalLines != 1 || out.StartLine != 1 || out.EndLine != 1 || out.Truncated {
		t.Fatalf("work tree read: %+v", out)
	}
	if !strings.HasPrefix(text, "README.md (work tree): lines 1–1 of 1\n") {
		t.Fatalf("text rendering: %q", text)
	}

	h.structured("read_file", args("path", "README.md", "ref", "HEAD"), &out)
	if out.Content != "# widgets v2" || out.Ref == nil || *out.Ref != r.Head() {
		t.Fatalf("read at HEAD: %+v", out)
	}
	// owner/repo are optional with one repository served, and checked when given.
	h.structured("read_file", args("owner", "acme", "repo", "widgets", "path", "crlf.txt", "ref", "v1.0-annotated", "startLine", 2), &out)
	if out.Content != "two\r\nthree\r" || out.StartLine != 2 || out.EndLine != 3 || out.TotalLines != 3 {
		t.Fatalf("slice at annotated tag: %+v", out)
	}
	h.fails("read_file", args("owner", "acme", "repo", "other", "path", "README.md"), "NOT_FOUND")
}

func TestReadFileAwkwardFiles(t *testing.T) {
	r := fixture(t)
	h := serve(t, r)
	for _, path := range []string{"src/main.go", "docs/naïve café.md", "crlf.txt", "no-newline.txt", "empty.txt"} {
		for _, ref := range []string{"", "main"} {
			var out readFileOut
			h.structured("read_file", args("path", path, "ref", ref), &out)
			want := linesOf(r.Show("main", path))
			if out.Content != strings.Join(want, "\n") || out.TotalLines != len(want) || out.EndLine != len(want) {
				t.Errorf("%s at %q: %+v, want %d lines %q", path, ref, out, len(want), want)
			}
		}
	}
	var bin readFileOut
	text := h.structured("read_file", args("path", "image.png"), &bin)
	if !bin.IsBinary || bin.Content != "" || !strings.Contains(text, "binary") {
		t.Errorf("binary: %+v %q", bin, text)
	}
	// A committed symlink at a ref is its link text.
	var link readFileOut
	h.structured("read_file", args("path", "link-outside", "ref", "main"), &link)
	if link.Content != "../../outside" {
		t.Errorf("symlink at ref: %q", link.Content)
	}
}

func TestReadFilePagesThroughLargeFile(t *testing.T) {
	r := testrepo.New(t)
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		b.WriteString(strings.Repeat("<&>\"\\\t", i%7)) // characters JSON escapes
		b.WriteString("ünïcödé line ")
		b.WriteString(strings.Repeat("x", i%50))
		b.WriteByte('\n')
	}
	content := b.String()
	r.Write("big.txt", content)
	r.Commit("big")
	h := serve(t, r, withMaxBytes(8192))

	var got []string
	start, pages := 1, 0
	for {
		var out readFileOut
		text := h.structured("read_file", args("path", "big.txt", "ref", "main", "startLine", start), &out)
		pages++
		if out.StartLine != start || out.EndLine < start || out.TotalLines != 3000 {
			t.Fatalf("page %d: %+v", pages, out)
		}
		got = append(got, strings.Split(out.Content, "\n")...)
		if !out.Truncated {
			break
		}
		hint := `"startLine":` + strconv.Itoa(out.EndLine+1)
		if !strings.Contains(text, hint) || out.Next == nil || out.Next.Arguments["startLine"] != float64(out.EndLine+1) {
			t.Fatalf("truncated page does not say %q: ...%q", hint, text[max(0, len(text)-200):])
		}
		start = out.EndLine + 1
	}
	if strings.Join(got, "\n") != strings.Join(linesOf(content), "\n") {
		t.Fatal("pages do not reassemble the file")
	}
	if pages < 10 {
		t.Fatalf("only %d pages for ~170 KB of escaped text at 8 KiB per reply", pages)
	}
}

func TestReadFileErrors(t *testing.T) {
	r := fixture(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("outside\n"), 0o644)
	r.Symlink(outside, "escape-abs")
	r.Symlink(".env", "innocent.txt")
	r.Write("long.txt", strings.Repeat("y", 20000)+"\n")
	r.Write("accents.txt", "éé\n")
	h := serve(t, r, withMaxBytes(8192))
	before := r.Snapshot()
	cases := []struct {
		name string
		args map[string]any
		code string
	}{
		{"symlink leaving the work tree", args("path", "escape-abs"), "PATH_DENIED"},
		// Denied although its target does not exist: a denial must not
		// tell whether something exists outside.
		{"relative symlink leaving the work tree", args("path", "link-outside"), "PATH_DENIED"},
		{"symlink to a secret", args("path", "innocent.txt"), "PATH_DENIED"},
		{"secret", args("path", ".env"), "PATH_DENIED"},
		{"inside .git", args("path", ".git/config"), "PATH_DENIED"},
		{"traversal", args("path", "src/../../x"), "PATH_DENIED"},
		{"directory", args("path", "src"), "INVALID_ARGUMENT"},
		{"directory at ref", args("path", "src", "ref", "main"), "INVALID_ARGUMENT"},
		{"missing", args("path", "nope.txt"), "NOT_FOUND"},
		{"missing at ref", args("path", "nope.txt", "ref", "main"), "NOT_FOUND"},
		{"start past the end", args("path", "README.md", "startLine", 5), "INVALID_ARGUMENT"},
		{"end before start", args("path", "README.md", "startLine", 5, "endLine", 2), "INVALID_ARGUMENT"},
		{"zero start", args("path", "README.md", "startLine", 0), "INVALID_ARGUMENT"},
		{"negative start", args("path", "README.md", "startLine", -3), "INVALID_ARGUMENT"},
		{"huge start", args("path", "README.md", "startLine", 1e12), "INVALID_ARGUMENT"},
		{"empty path", args("path", ""), "INVALID_ARGUMENT"},
		{"no path", args(), "INVALID_ARGUMENT"},
		{"ref injection", args("path", "README.md", "ref", "-c"), "INVALID_REF"},
		// A line longer than a reply comes in pieces
		// (TestReadFileLongLineComesInPieces); a piece starts only
		// inside its line, at a character's start.
		{"startByte at the line's end", args("path", "long.txt", "startByte", 20000), "INVALID_ARGUMENT"},
		{"startByte past the end", args("path", "long.txt", "startByte", 1e9), "INVALID_ARGUMENT"},
		{"startByte inside a character", args("path", "accents.txt", "startByte", 1), "INVALID_ARGUMENT"},
		{"negative startByte", args("path", "long.txt", "startByte", -1), "INVALID_ARGUMENT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { h.fails("read_file", c.args, c.code) })
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("repository changed:\n%s\n---\n%s", before, after)
	}
}

func TestReadFileBareRepositoryReadsHEAD(t *testing.T) {
	r := fixture(t)
	h := serve(t, r.CloneBare(filepath.Join(t.TempDir(), "w.git")))
	var out readFileOut
	h.structured("read_file", args("path", "README.md"), &out)
	if out.Content != "# widgets v2" || out.Ref == nil || *out.Ref != r.Head() {
		t.Fatalf("bare: %+v", out)
	}
}

// A work-tree read ends at the call's deadline (there is no git process to
// kill: the read itself stops), and a binary file is not read past its
// first bytes, however large.
func TestReadFileWorkTreeDeadlineAndBinary(t *testing.T) {
	r := testrepo.New(t)
	r.Write("small.txt", "x\n")
	r.Commit("small")
	// A 4 GiB sparse file: zeros, so binary, and nothing to read for real.
	f, err := os.Create(filepath.Join(r.Dir, "sparse.bin"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(4 << 30)
	f.Close()
	r.Write("text.txt", strings.Repeat("line of text\n", 100_000))
	h := serve(t, r)
	start := time.Now()
	var out readFileOut
	text := h.structured("read_file", args("path", "sparse.bin"), &out)
	if !out.IsBinary || !strings.Contains(text, "4294967296 bytes") || time.Since(start) > 2*time.Second {
		t.Fatalf("binary: %+v %q after %v", out, text, time.Since(start))
	}
	hd := serve(t, r, withTimeout(time.Nanosecond))
	hd.fails("read_file", args("path", "text.txt"), "UNAVAILABLE")
}

// Pages of a blob read after its line count is known (kept by object id)
// stop at their last line, and answer exactly as the first read did.
func TestReadFileKnownLineCount(t *testing.T) {
	r := testrepo.New(t)
	r.Write("big.txt", numberedLines(5000))
	r.Commit("big")
	h := serve(t, r, withMaxBytes(8192))
	for _, page := range [][2]int{{1, 10}, {4990, 0}, {2000, 2100}, {1, 0}} {
		a := args("path", "big.txt", "ref", "main", "startLine", page[0])
		if page[1] != 0 {
			a["endLine"] = page[1]
		}
		var first, second readFileOut
		h.structured("read_file", a, &first)
		h.structured("read_file", a, &second)
		if *first.Ref != *second.Ref {
			t.Fatalf("refs differ")
		}
		first.Ref, second.Ref = nil, nil
		first.Next, second.Next = nil, nil
		if !reflect.DeepEqual(first, second) || first.TotalLines != 5000 {
			t.Fatalf("page %v: first %+v\nsecond %+v", page, first, second)
		}
	}
	h.fails("read_file", args("path", "big.txt", "ref", "main", "startLine", 5001), "INVALID_ARGUMENT")
}
