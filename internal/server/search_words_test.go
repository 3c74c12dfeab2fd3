package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// search_code counts in words ("1 match", not "1 matches"), and the glob
// it suggests for narrowing a long search is from the files it matched,
// not another language's ("src/**/*.go" in a C repository).
func TestSearchCodeWords(t *testing.T) {
	r := testrepo.New(t)
	for i := range 6 {
		r.Write(fmt.Sprintf("src/f%d.c", i), "int needle;\n")
	}
	r.Write("src/f.h", "extern int needle;\n")
	r.Write("README", "needle\n")
	r.Write(".needle", "needle\n")
	r.Write("one.txt", "unique haystack\n")
	r.Commit("c files")
	h := serve(t, r, withTextOnly())

	text := h.ok("search_code", args("query", "unique haystack", "ref", "HEAD"))
	if !strings.Contains(text, ": 1 match\n") {
		t.Errorf("one match:\n%s", text)
	}
	text = h.ok("search_code", args("query", "needle", "ref", "HEAD"))
	if !strings.Contains(text, ": 9 matches\n") {
		t.Errorf("nine matches:\n%s", text)
	}
	text = h.ok("search_code", args("query", "needle", "ref", "HEAD", "maxResults", 8))
	if !strings.Contains(text, `narrow the search with pathGlobs (e.g. ["*.c"]) or`) || strings.Contains(text, "*.go") {
		t.Errorf("a truncated search of C files suggests another glob:\n%s", text)
	}
	text = h.ok("search_code", args("query", "needle", "ref", "HEAD", "maxResults", 1, "offset", 2))
	if !strings.Contains(text, ": match 3 shown; more follow\n") {
		t.Errorf("one match of more:\n%s", text)
	}
	// No matched file has an extension: no example.
	text = h.ok("search_code", args("query", "needle", "ref", "HEAD", "pathGlobs", []string{"README", ".needle"}, "maxResults", 1))
	if !strings.Contains(text, "narrow the search with pathGlobs or a more specific query") {
		t.Errorf("an example where no matched file has an extension:\n%s", text)
	}
}
