package server

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// backwardsRange finds a range "51–50" in a reply's text.
var backwardsRange = regexp.MustCompile(`(\d+)–(\d+)`)

// TestOffsetPastTheEndSaysSo: review 4, finding 19. search_code with an
// offset past the last of 6 matches said "matches 51–50 of 50", a range
// that runs backwards and a total that is the offset. Every offset-paged
// tool says, of an offset at or past the end, the true total, that the
// offset is past it, and the call that reads the list from its first item;
// that call does.
func TestOffsetPastTheEndSaysSo(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("f%d.txt", i)] = "needle\n"
	}
	r := repoWith(t, files)
	r.Git("checkout", "-qb", "topic")
	for i := range 6 {
		r.Write(fmt.Sprintf("g%d.txt", i), "new\n")
	}
	r.Commit("six more")
	r.Git("update-ref", "refs/pull/5/head", "HEAD")
	r.Git("checkout", "-q", "main")
	h := serve(t, r, withTextOnly())

	cases := []struct {
		tool  string
		args  map[string]any
		first string // a line of the first page
		past  map[int]string
	}{
		{"search_code", args("query", "needle"), "f0.txt:1: needle", map[int]string{
			50: "offset 50 is past the last of 6 matches", 6: "offset 6 is past the last of 6 matches"}},
		{"list_files", args(), "f0.txt", map[int]string{
			50: "offset 50 is past the last of 6 entries", 6: "offset 6 is past the last of 6 entries"}},
		{"list_changed_files", args("base", "main", "head", "topic"), "g0.txt", map[int]string{
			50: "offset 50 is past the last of 6 files", 6: "offset 6 is past the last of 6 files"}},
		{"list_pull_request_files", prArgs(5), "g0.txt", map[int]string{
			50: "offset 50 is past the last of 6 files", 6: "offset 6 is past the last of 6 files"}},
		{"list_commits", args("ref", "topic"), "six more", map[int]string{
			50: "offset 50 is past the last of 2 commits", 2: "offset 2 is past the last of 2 commits"}},
		{"list_repositories", args(), "acme/widgets", map[int]string{
			50: "offset 50 is past the only repository", 1: "offset 1 is past the only repository"}},
	}
	for _, c := range cases {
		for offset, want := range c.past {
			a := map[string]any{"offset": offset}
			for k, v := range c.args {
				a[k] = v
			}
			got := h.ok(c.tool, a)
			for _, m := range backwardsRange.FindAllStringSubmatch(got, -1) {
				if mustAtoi(m[1]) > mustAtoi(m[2]) {
					t.Errorf("%s offset %d: a backwards range %q:\n%s", c.tool, offset, m[0], got)
				}
			}
			if !strings.Contains(got, want) {
				t.Errorf("%s offset %d: want %q in:\n%s", c.tool, offset, want, got)
				continue
			}
			// How to start over is said, and reads the first page.
			if !strings.Contains(got, "; call "+c.tool+" again without offset") || !strings.Contains(got, " for the first") {
				t.Errorf("%s offset %d: no way to start over:\n%s", c.tool, offset, got)
				continue
			}
			if first := h.ok(c.tool, c.args); !strings.Contains(first, c.first) {
				t.Errorf("%s: the call that starts over does not read the first page:\n%s", c.tool, first)
			}
		}
	}
}

// A forge's 1-based page past the end is an offset past it too, and the
// call that starts over leaves the page out as well.
func TestPagePastTheEndStartsOver(t *testing.T) {
	r := repoWith(t, map[string]string{"a.txt": "a\n"})
	r.Git("checkout", "-qb", "topic")
	r.Write("b.txt", "b\n")
	r.Commit("b")
	r.Git("update-ref", "refs/pull/5/head", "HEAD")
	r.Git("checkout", "-q", "main")
	h := serve(t, r, withTextOnly())
	got := h.ok("list_pull_request_files", prArgs(5, "page", 9, "limit", 2))
	want := `offset 16 is past the only file; call list_pull_request_files again without offset and page for the first`
	if !strings.Contains(got, want) {
		t.Errorf("page 9: want %q in:\n%s", want, got)
	}
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}
