package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func searchRepo(t *testing.T) *testrepo.Repo {
	r := testrepo.New(t)
	r.Write("src/main.go", "package main\n\n// Needle in main.\nfunc main() {\n\tneedle()\n}\n")
	r.Write("src/util/util.go", "package util\n\nfunc Needle() {}\n")
	r.Write("docs/guide.md", "The NEEDLE is documented here.\n")
	r.Write("top.go", "package top // needle at the top\n")
	r.Write("bin/blob.bin", "needle\x00binary needle\n")
	r.Write(".env", "NEEDLE_TOKEN=secret\n")
	r.Write("config/.ssh/id", "needle key\n")
	r.Write("long.txt", strings.Repeat("é", 400)+" needle "+strings.Repeat("x", 400)+"\n")
	r.Write("-e", "a file named -e with a needle\n")
	r.Commit("search fixture")
	r.Git("tag", "v1")
	return r
}

func searchArgs(query string, kv ...any) map[string]any {
	m := args(kv...)
	m["query"] = query
	return m
}

func matchPaths(out searchCodeOut) []string {
	var p []string
	for _, m := range out.Matches {
		p = append(p, m.Path+":"+strconv.Itoa(m.Line))
	}
	return p
}

func TestSearchCode(t *testing.T) {
	r := searchRepo(t)
	h := serve(t, r)
	cases := []struct {
		name string
		args map[string]any
		want string // path:line of every match, in order
	}{
		{"literal, case-insensitive by default", searchArgs("needle", "ref", "main"), "-e:1,docs/guide.md:1,long.txt:1,src/main.go:3,src/main.go:5,src/util/util.go:3,top.go:1"},
		{"case-sensitive", searchArgs("Needle", "ref", "main", "caseSensitive", true), "src/main.go:3,src/util/util.go:3"},
		{"literal means literal", searchArgs("needle()", "ref", "main"), "src/main.go:5,src/util/util.go:3"},
		{"regex (extended)", searchArgs("^func (main|Needle)\\(", "ref", "main", "regex", true), "src/main.go:4,src/util/util.go:3"},
		{"glob * stays in its directory", searchArgs("needle", "ref", "main", "pathGlobs", []string{"src/*.go"}), "src/main.go:3,src/main.go:5"},
		{"glob ** crosses directories", searchArgs("needle", "ref", "main", "pathGlobs", []string{"src/**/*.go"}), "src/main.go:3,src/main.go:5,src/util/util.go:3"},
		{"several globs", searchArgs("needle", "ref", "main", "pathGlobs", []string{"/*.go", "docs/**"}), "docs/guide.md:1,top.go:1"},
		{"a glob without / matches a name at any depth", searchArgs("needle", "ref", "main", "pathGlobs", []string{"*.go"}), "src/main.go:3,src/main.go:5,src/util/util.go:3,top.go:1"},
		{"a glob naming a directory selects what is under it", searchArgs("needle", "ref", "main", "pathGlobs", []string{"util"}), "src/util/util.go:3"},
		{"no match is an empty list", searchArgs("haystack", "ref", "main"), ""},
		{"an option-like query is a pattern", searchArgs("--output=x", "ref", "main"), ""},
		{"at a tag", searchArgs("documented", "ref", "v1"), "docs/guide.md:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out searchCodeOut
			h.structured("search_code", c.args, &out)
			if got := strings.Join(matchPaths(out), ","); got != c.want {
				t.Fatalf("matches %s, want %s", got, c.want)
			}
			if out.Truncated || out.Ref == nil || len(*out.Ref) != 40 {
				t.Fatalf("truncated %v, ref %v", out.Truncated, out.Ref)
			}
		})
	}
}

func TestSearchCodeSkipsBinaryAndSecrets(t *testing.T) {
	r := searchRepo(t)
	h := serve(t, r)
	var out searchCodeOut
	text := h.structured("search_code", searchArgs("needle", "ref", "main", "maxResults", 500), &out)
	for _, m := range out.Matches {
		if m.Path == "bin/blob.bin" || m.Path == ".env" || strings.Contains(m.Path, ".ssh") {
			t.Errorf("searched %s", m.Path)
		}
	}
	if strings.Contains(text, "secret") {
		t.Fatal("a secret is in the reply")
	}
	// Asked for by glob, a secret is still not searched.
	h.structured("search_code", searchArgs("needle", "ref", "main", "pathGlobs", []string{".env", "config/**"}), &out)
	if len(out.Matches) != 0 {
		t.Fatalf("secrets searched by glob: %v", matchPaths(out))
	}
}

func TestSearchCodeContextLines(t *testing.T) {
	r := searchRepo(t)
	h := serve(t, r)
	var out searchCodeOut
	text := h.structured("search_code", searchArgs("needle", "ref", "main", "pathGlobs", []string{"src/main.go"}, "contextLines", 1), &out)
	if len(out.Matches) != 2 {
		t.Fatalf("%+v", out.Matches)
	}
	m3, m5 := out.Matches[0], out.Matches[1]
	if strings.Join(m3.Before, "|") != "" || strings.Join(m3.After, "|") != "func main() {" {
		t.Errorf("line 3 context: before %q after %q", m3.Before, m3.After)
	}
	if strings.Join(m5.Before, "|") != "func main() {" || strings.Join(m5.After, "|") != "}" {
		t.Errorf("line 5 context: before %q after %q", m5.Before, m5.After)
	}
	if !strings.Contains(text, "src/main.go-4- func main() {\nsrc/main.go:5: \tneedle()\nsrc/main.go-6- }\n") {
		t.Errorf("text:\n%s", text)
	}
}

func TestSearchCodeTruncation(t *testing.T) {
	r := testrepo.New(t)
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		b.WriteString("common line\n")
	}
	r.Write("a.txt", b.String())
	r.Write("b.txt", b.String())
	r.Commit("many matches")
	h := serve(t, r, withMaxBytes(8192))

	var out searchCodeOut
	text := h.structured("search_code", searchArgs("common", "ref", "main", "maxResults", 10), &out)
	if len(out.Matches) != 10 || !out.Truncated || !strings.Contains(text, "more follow") || !strings.Contains(text, "pathGlobs") || out.Next == nil {
		t.Fatalf("%d matches, truncated %v\n%s", len(out.Matches), out.Truncated, text)
	}
	// maxResults 500 of long context does not fit 8 KiB: cut to what fits, still truncated.
	h.structured("search_code", searchArgs("common", "ref", "main", "maxResults", 500, "contextLines", 5), &out)
	if len(out.Matches) == 0 || len(out.Matches) >= 500 || !out.Truncated {
		t.Fatalf("%d matches, truncated %v", len(out.Matches), out.Truncated)
	}
}

// A long matching line shows its first piece, of at most 500 bytes, on a
// character's boundary, and its length (TestSearchCodeLongMatchGoesOnInReadFile
// reads the rest).
func TestSearchCodeLongLinesAreCut(t *testing.T) {
	r := searchRepo(t)
	h := serve(t, r)
	var out searchCodeOut
	h.structured("search_code", searchArgs("needle", "ref", "main", "pathGlobs", []string{"long.txt"}), &out)
	m := out.Matches[0]
	line := strings.Split(r.Git("show", "main:long.txt"), "\n")[m.Line-1]
	if len(m.Text) > 500 || len(m.Text) < 497 || !utf8.ValidString(m.Text) || !strings.HasPrefix(line, m.Text) || m.LineBytes != int64(len(line)) {
		t.Fatalf("long line: %d bytes of %d, %q", len(m.Text), m.LineBytes, m.Text[len(m.Text)-40:])
	}
}

func TestSearchCodeWorkTree(t *testing.T) {
	r := searchRepo(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "leak.txt"), []byte("needle outside the repository\n"), 0o644)
	// A tracked file whose directory is now a symlink leading outside.
	r.Write("linked/leak.txt", "needle inside\n")
	r.Commit("linked")
	os.RemoveAll(filepath.Join(r.Dir, "linked"))
	os.Symlink(outside, filepath.Join(r.Dir, "linked"))
	r.Write("src/main.go", "package main\n\n// uncommitted needle edit\n")
	h := serve(t, r)

	var wt, at searchCodeOut
	h.structured("search_code", searchArgs("needle", "pathGlobs", []string{"src/**", "linked/**"}), &wt)
	if wt.Ref != nil || strings.Join(matchPaths(wt), ",") != "src/main.go:3,src/util/util.go:3" {
		t.Fatalf("work tree: ref %v, %v", wt.Ref, matchPaths(wt))
	}
	for _, m := range wt.Matches {
		if strings.Contains(m.Text, "outside") {
			t.Fatal("read a file outside the repository through a symlinked directory")
		}
	}
	h.structured("search_code", searchArgs("needle", "ref", "HEAD", "pathGlobs", []string{"src/**"}), &at)
	if strings.Join(matchPaths(at), ",") != "src/main.go:3,src/main.go:5,src/util/util.go:3" {
		t.Fatalf("at HEAD: %v", matchPaths(at))
	}
	// A bare repository searches HEAD.
	hb := serve(t, r.CloneBare(filepath.Join(t.TempDir(), "b.git")))
	var bare searchCodeOut
	hb.structured("search_code", searchArgs("needle", "pathGlobs", []string{"src/**"}), &bare)
	if bare.Ref == nil || len(bare.Matches) != 3 {
		t.Fatalf("bare: %+v", bare)
	}
}

func TestSearchCodeBadInput(t *testing.T) {
	r := searchRepo(t)
	h := serve(t, r)
	before := r.Snapshot()
	cases := []struct {
		name string
		args map[string]any
		code string
		says string
	}{
		{"empty query", searchArgs(""), "INVALID_ARGUMENT", "empty"},
		{"query over 500 characters", searchArgs(strings.Repeat("x", 501)), "INVALID_ARGUMENT", "500"},
		{"invalid regex", searchArgs("a(", "regex", true), "INVALID_ARGUMENT", "Unmatched ("},
		{"NUL in query", searchArgs("a\x00b"), "INVALID_ARGUMENT", "NUL"},
		{"newline in query", searchArgs("a\nb"), "INVALID_ARGUMENT", "line break"},
		{"unknown ref", searchArgs("x", "ref", "nope"), "INVALID_REF", "nope"},
		{"ref option", searchArgs("x", "ref", "--no-index"), "INVALID_REF", "starts with"},
		{"glob with ..", searchArgs("x", "pathGlobs", []string{"../**"}), "PATH_DENIED", ".."},
		{"glob with an unclosed [", searchArgs("x", "pathGlobs", []string{"src/[ab"}), "INVALID_ARGUMENT", "not closed"},
		{"too many globs", searchArgs("x", "pathGlobs", make([]string, 21)), "INVALID_ARGUMENT", "pathGlobs"},
		{"maxResults 0", searchArgs("x", "maxResults", 0), "INVALID_ARGUMENT", "maxResults"},
		{"maxResults over 500", searchArgs("x", "maxResults", 501), "INVALID_ARGUMENT", "maxResults"},
		{"contextLines over 5", searchArgs("x", "contextLines", 6), "INVALID_ARGUMENT", "contextLines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if msg := h.fails("search_code", c.args, c.code); !strings.Contains(msg, c.says) {
				t.Fatalf("%q does not say %q", msg, c.says)
			}
		})
	}
	if after := r.Snapshot(); after != before {
		t.Fatal("repository changed")
	}
}

func withMaxSearchFileBytes(n int64) option {
	return func(c *Config) { c.MaxSearchFileBytes = n }
}

// Finding 13: git grep's output is read from its -z form. A committed file
// named "new\nline.txt" was reported as "line.txt" at a ref and dropped in
// the work tree.
func TestSearchCodeNewlineInFileName(t *testing.T) {
	r := testrepo.New(t)
	r.Write("new\nline.txt", "a needle here\n")
	r.Write("line.txt", "no match\n")
	r.Commit("a name with a newline")
	h := serve(t, r, withTimeout(5*time.Second))
	for _, ref := range []string{"main", ""} {
		var out searchCodeOut
		text := h.structured("search_code", searchArgs("needle", "ref", ref), &out)
		if len(out.Matches) != 1 || out.Matches[0].Path != "new\nline.txt" || out.Matches[0].Line != 1 || out.Matches[0].Text != "a needle here" {
			t.Errorf("ref %q: %+v", ref, out.Matches)
		}
		// The name is written quoted: a newline in it cannot start a line
		// of its own (docs/security.md, finding 05).
		if !strings.Contains(text, `"new\nline.txt":1: a needle here`) {
			t.Errorf("ref %q: text %q", ref, text)
		}
		// Context comes from the file, found by its real name.
		h.structured("search_code", searchArgs("needle", "ref", ref, "contextLines", 1), &out)
		if len(out.Matches) != 1 || out.Matches[0].Path != "new\nline.txt" {
			t.Errorf("ref %q with context: %+v", ref, out.Matches)
		}
	}
}

// Finding 13: a line "7\0FAKE…" after the first 8,000 bytes (so the file is
// not binary to git) right before a match, with contextLines=1, came out as
// a match at line 802 whose text was "FAKE…".
func TestSearchCodeNULInContextLine(t *testing.T) {
	r := testrepo.New(t)
	var b strings.Builder
	for i := 1; i <= 800; i++ {
		fmt.Fprintf(&b, "filler line %04d\n", i)
	}
	b.WriteString("7\x00FAKE needle? no: a context line\n") // line 801
	b.WriteString("12\x000\x00also context\n")              // line 802
	b.WriteString("the real needle\n")                      // line 803
	b.WriteString("9\x00after\n")                           // line 804
	r.Write("data.txt", b.String())
	r.Commit("NUL after 8,000 bytes")
	h := serve(t, r, withTimeout(5*time.Second))
	for _, ref := range []string{"main", ""} {
		var out searchCodeOut
		h.structured("search_code", searchArgs("real needle", "ref", ref, "contextLines", 2), &out)
		if len(out.Matches) != 1 {
			t.Fatalf("ref %q: %+v", ref, out.Matches)
		}
		m := out.Matches[0]
		if m.Line != 803 || m.Text != "the real needle" ||
			strings.Join(m.Before, "|") != "7\x00FAKE needle? no: a context line|12\x000\x00also context" ||
			strings.Join(m.After, "|") != "9\x00after|filler" && strings.Join(m.After, "|") != "9\x00after" {
			t.Errorf("ref %q: %+v", ref, m)
		}
		// The NUL lines themselves, as matches, keep their NULs.
		h.structured("search_code", searchArgs("FAKE", "ref", ref, "caseSensitive", true), &out)
		if len(out.Matches) != 1 || out.Matches[0].Line != 801 || out.Matches[0].Text != "7\x00FAKE needle? no: a context line" {
			t.Errorf("ref %q: %+v", ref, out.Matches)
		}
	}
}

// Context lines are the file's lines around each match, numbered from it:
// adjacent matches each get theirs.
func TestSearchCodeContextAdjacentMatches(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "one\nhit two\nhit three\nfour\nfive\n")
	r.Commit("adjacent")
	h := serve(t, r)
	var out searchCodeOut
	text := h.structured("search_code", searchArgs("hit", "ref", "main", "contextLines", 2), &out)
	if len(out.Matches) != 2 {
		t.Fatalf("%+v", out.Matches)
	}
	m2, m3 := out.Matches[0], out.Matches[1]
	if strings.Join(m2.Before, "|") != "one" || strings.Join(m2.After, "|") != "hit three|four" ||
		strings.Join(m3.Before, "|") != "one|hit two" || strings.Join(m3.After, "|") != "four|five" {
		t.Errorf("%+v", out.Matches)
	}
	if !strings.Contains(text, "a.txt-1- one\na.txt:2: hit two\na.txt-3- hit three\na.txt-4- four\n") {
		t.Errorf("text:\n%s", text)
	}
}

// No match is "matches": [] in the structured result, never null.
func TestSearchCodeNoMatchIsEmptyList(t *testing.T) {
	r := searchRepo(t)
	h := serve(t, r)
	for _, ref := range []string{"main", ""} {
		res := h.call("search_code", searchArgs("haystack", "ref", ref))
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"matches":[]`) {
			t.Errorf("ref %q: %s", ref, data)
		}
	}
}

// Finding 6 (search): git grep reads a file whole; files over
// --max-search-file-bytes are not searched, at a ref or in the work tree,
// and the reply says how many were skipped.
func TestSearchCodeSkipsLargeFiles(t *testing.T) {
	r := testrepo.New(t)
	r.Write("big/huge.txt", strings.Repeat("needle in a large file\n", 200)) // 4,600 bytes
	r.Write("big/new\nline.txt", strings.Repeat("needle\n", 1000))           // 7,000 bytes
	r.Write("small.txt", "needle\n")
	r.Write(".env", strings.Repeat("needle\n", 1000)) // hidden: never searched, never counted
	r.Commit("large files")
	h := serve(t, r, withMaxSearchFileBytes(4096), withTimeout(5*time.Second))
	for _, ref := range []string{"main", ""} {
		var out searchCodeOut
		text := h.structured("search_code", searchArgs("needle", "ref", ref), &out)
		if strings.Join(matchPaths(out), ",") != "small.txt:1" || out.SkippedLarge != 2 {
			t.Errorf("ref %q: %v, skipped %d", ref, matchPaths(out), out.SkippedLarge)
		}
		if !strings.Contains(text, "[not searched: 2 files larger than the server's 4 KiB search limit (--max-search-file-bytes)") {
			t.Errorf("ref %q: text %q", ref, text)
		}
		// Only the files the globs select are counted.
		h.structured("search_code", searchArgs("needle", "ref", ref, "pathGlobs", []string{"/*.txt"}), &out)
		if strings.Join(matchPaths(out), ",") != "small.txt:1" || out.SkippedLarge != 0 {
			t.Errorf("ref %q, glob /*.txt: %v, skipped %d", ref, matchPaths(out), out.SkippedLarge)
		}
		h.structured("search_code", searchArgs("needle", "ref", ref, "pathGlobs", []string{"big/**"}), &out)
		if len(out.Matches) != 0 || out.SkippedLarge != 2 {
			t.Errorf("ref %q, glob big/**: %v, skipped %d", ref, matchPaths(out), out.SkippedLarge)
		}
	}
	// A file that grew in the work tree is measured as it is now.
	r.Write("small.txt", strings.Repeat("needle\n", 1000))
	var out searchCodeOut
	h.structured("search_code", searchArgs("needle"), &out)
	if len(out.Matches) != 0 || out.SkippedLarge != 3 {
		t.Errorf("work tree after growth: %v, skipped %d", matchPaths(out), out.SkippedLarge)
	}
}
