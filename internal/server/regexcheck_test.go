//go:build unix

package server

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func TestCheckRegex(t *testing.T) {
	for q, ok := range map[string]bool{
		"^func (main|Needle)\\(":         true,
		"a{2,5}":                         true,
		"[a-z]{1,255}":                   true,
		"(ab){10}(cd){10}":               true,
		"(a{10}){10}":                    true,
		"x{3,}":                          true,
		"\\{1,99999\\}":                  true, // escaped braces are literal
		"[{]1,99999}":                    true,
		"a{":                             true,
		"a{1,32767}":                     false,
		"((a{1,100}){1,100}){1,100}":     false,
		"(a{40}){40}":                    false,
		"a{256}":                         false,
		"b{99999999999}":                 false,
		"((x{20}y){20}z){3}":             false,
		"(a{1000}|b)":                    false,
		"(?:a{10}){10}":                  true,
		"[[:alpha:]]{5}([[:digit:]]{3})": true,
		// {,n} is {0,n} to glibc (finding 2).
		"a{,32767}":        false,
		"(a{1,255}){,255}": false,
		"(a{,40}){,40}":    false,
		"a{,200}":          true,
		"a{,}":             true,
		"a{,}{,}{,}":       true,
		// Stacked counts multiply.
		"a{1,100}{1,100}": false,
		// x+ is x x* to glibc: nested + doubles per level.
		"((((((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+": false,
		"(a+)+b":          true,
		"(a{255}b{255})+": false,
		// The whole pattern counts, not only the largest part.
		strings.Repeat("a{1,255}", 4): false,
		strings.Repeat("a{1,200}", 4): true,
		// Backreferences (finding 3); a backslash before a digit inside
		// brackets, or an escaped backslash, is not one.
		"(a*)*(a*)*(a*)*\\3\\2\\1b": false,
		"(a)\\1":                    false,
		"[\\1]":                     true,
		"\\\\1":                     true,
		"a\\d":                      true,
		// Unmatched ")" is a literal; unbalanced groups do not confuse it.
		"a)(b{300}": false,
		"a)b":       true,
		"((((":      true,
	} {
		if err := repo.CheckRegex(q); (err == nil) != ok {
			t.Errorf("repo.CheckRegex(%q) = %v, want ok=%v", q, err, ok)
		}
	}
	if err := repo.CheckRegex("(a)\\1"); err == nil || !strings.Contains(err.Error(), "backreference") {
		t.Errorf("a backreference: %v", err)
	}
	if err := repo.CheckRegex("a{,300}"); err == nil || !strings.Contains(err.Error(), "255") {
		t.Errorf("a count over 255: %v", err)
	}
}

func TestCheckRevRegexes(t *testing.T) {
	for rev, ok := range map[string]bool{
		"HEAD":                                  true,
		"main~2":                                true,
		"HEAD^{/fix the bug}":                   true,
		"HEAD^{/a{1,10}}":                       true,
		"HEAD^{/!-wip}":                         true,
		"HEAD^{/((a{1,100}){1,100}){1,100}}":    false,
		"HEAD^{/((a{1,100}){1,100}){1,100}}~3":  false,
		"HEAD^{/((a{1,100}){1,100}){1,100}}^2":  false,
		"HEAD^{/a{,32767}}^{tree}":              false,
		"HEAD^{/!-a{,32767}}":                   false,
		"HEAD^{/(a*)*\\1}":                      false,
		"HEAD^{/a{,32767}}:README.md":           false,
		"HEAD^{/x}^{/a{1,32767}}":               false,
		"HEAD^{/a{1,32767}}^{/x}":               false,
		":/init":                                false, // refused as a form, with advice
		":/((a{1,100}){1,100}){1,100}":          false,
		"main:docs/a{1,32767}":                  true, // a path, never compiled
		"v1.0^{}":                               true,
		"HEAD@{yesterday}":                      true,
		"HEAD^{/" + strings.Repeat("(", 300):    true,
		"HEAD" + strings.Repeat("^{/x}", 150):   true,
		"HEAD^{/" + strings.Repeat("}", 300):    true,
		strings.Repeat("^{/", 300) + "a{1,300}": true, // no closing brace: no search
	} {
		err := repo.CheckRev(rev)
		if (err == nil) != ok {
			t.Errorf("CheckRev(%q) = %v, want ok=%v", rev, err, ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "INVALID_REF: ") {
			t.Errorf("CheckRev(%q) = %v, want INVALID_REF", rev, err)
		}
	}
}

func TestCheckGlobs(t *testing.T) {
	for g, ok := range map[string]bool{
		"src/**/*.go":            true,
		"**/*_test.go":           true,
		"*foo*":                  true,
		"**/tests/**/*.py":       true,
		"docs/**":                true,
		"**/*a*b":                true,
		"*a*a*b":                 false, // three "*" in one segment
		"**/*a*a*b":              false,
		"**/*a*/**/*b":           false, // four wildcards
		"*a*a*a*a*a*a*a*b":       false,
		strings.Repeat("a", 257): false,
	} {
		if err := repo.CheckGlobs([]string{g}); (err == nil) != ok {
			t.Errorf("repo.CheckGlobs(%q) = %v, want ok=%v", g, err, ok)
		}
	}
}

// bombMax is how long a refused pattern may take to come back: it must be
// refused before git compiles it, not after.
const bombMax = 3 * time.Second

// timedFails calls a tool that must fail fast with code and returns the
// message.
func timedFails(t *testing.T, h *harness, tool string, args map[string]any, code string) string {
	t.Helper()
	start := time.Now()
	msg := h.fails(tool, args, code)
	if took := time.Since(start); took > bombMax {
		t.Errorf("%s(%v) took %v (limit %v)", tool, args, took, bombMax)
	}
	return msg
}

// Finding 1: a revision's commit-message search (REV^{/TEXT}, :/TEXT) is a
// regex git cat-file compiles; read_file ref='HEAD^{/((a{1,100}){1,100}){1,100}}'
// took 1.8 GiB and ~7 s per call. Every tool taking a ref refuses it, and
// ":/TEXT" (which never worked: "^{commit}" was read into the pattern)
// says what to give instead.
func TestHostileRegexInRevision(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "one\n")
	first := r.Commit("init: the first commit")
	r.Write("a.txt", "two\n")
	r.Commit("second")
	h := serve(t, r, withTimeout(5*time.Second))

	bomb := "HEAD^{/((a{1,100}){1,100}){1,100}}"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", args("path", "a.txt", "ref", bomb)},
		{"get_file_content", fileArgs("a.txt", "ref", bomb)},
		{"search_code", searchArgs("one", "ref", bomb)},
		{"get_diff", args("base", bomb)},
		{"get_diff", args("base", "HEAD~1", "head", bomb)},
		{"list_changed_files", args("base", "HEAD~1", "head", "HEAD^{/a{,32767}}")},
		{"read_file", args("path", "a.txt", "ref", "HEAD^{/(a*)*(a*)*\\2\\1b}")},
		{"read_file", args("path", "a.txt", "ref", ":/((a{1,100}){1,100}){1,100}")},
	} {
		msg := timedFails(t, h, c.tool, c.args, "INVALID_REF")
		if !strings.Contains(msg, "regex") && !strings.Contains(msg, "not supported") {
			t.Errorf("%s: %q does not say what is wrong", c.tool, msg)
		}
	}
	// An honest ":/init" gets an answer it can act on ...
	msg := timedFails(t, h, "read_file", args("path", "a.txt", "ref", ":/init"), "INVALID_REF")
	if !strings.Contains(msg, "HEAD^{/init}") {
		t.Errorf(":/init: %q does not say what to give instead", msg)
	}
	// ... and what it says works.
	var out readFileOut
	h.structured("read_file", args("path", "a.txt", "ref", "HEAD^{/init}"), &out)
	if strings.TrimSpace(out.Content) != "one" {
		t.Errorf("HEAD^{/init}: %q, want the first commit's a.txt", out.Content)
	}
	var found searchCodeOut
	h.structured("search_code", searchArgs("one", "ref", "main^{/^init}"), &found)
	if found.Ref == nil || *found.Ref != first || len(found.Matches) != 1 {
		t.Errorf("search_code at main^{/^init}: %+v", found)
	}
}

// Finding 2: {,n} counts were not parsed: search_code query='a{,32767}'
// exhausted git grep's 4 GiB cap, (a{1,255}){,255} ran to the 30 s
// deadline. Nested "+" doubles the compiled pattern per level as well.
func TestHostileRegexOpenCounts(t *testing.T) {
	r := searchRepo(t)
	h := serve(t, r, withTimeout(5*time.Second))
	for _, q := range []string{
		"a{,32767}",
		"(a{1,255}){,255}",
		"((a{,100}){,100}){,100}",
		"a{1,100}{1,100}",
		strings.Repeat("(", 20) + "a" + strings.Repeat(")+", 20),
	} {
		for _, ref := range []string{"main", ""} {
			msg := timedFails(t, h, "search_code", searchArgs(q, "regex", true, "ref", ref), "INVALID_ARGUMENT")
			if !strings.Contains(msg, "limit") {
				t.Errorf("%q: %q does not state the limit", q, msg)
			}
		}
	}
	hostileGitStopped(t, r.Dir)
	// An ordinary bounded count still runs.
	var out searchCodeOut
	h.structured("search_code", searchArgs("n[e]{2}dle{,3}", "regex", true, "ref", "main", "pathGlobs", []string{"top.go"}), &out)
	if len(out.Matches) != 1 {
		t.Errorf("a bounded count: %+v", out)
	}
}

// Finding 3: (a*)*(a*)*(a*)*\3\2\1b over one line of 3,000 characters cost
// 30 s of CPU per call: backreferences are refused, with the reason.
func TestHostileBackreference(t *testing.T) {
	r := testrepo.New(t)
	r.Write("long.txt", strings.Repeat("a", 3000)+"\n")
	r.Commit("a long line")
	h := serve(t, r, withTimeout(5*time.Second))
	for _, ref := range []string{"main", ""} {
		msg := timedFails(t, h, "search_code", searchArgs(`(a*)*(a*)*(a*)*\3\2\1b`, "regex", true, "ref", ref), "INVALID_ARGUMENT")
		if !strings.Contains(msg, "backreference") {
			t.Errorf("%q does not name the backreference", msg)
		}
	}
	hostileGitStopped(t, r.Dir)
	// The same characters as a fixed string are harmless text.
	var out searchCodeOut
	h.structured("search_code", searchArgs(`(a*)*(a*)*(a*)*\3\2\1b`, "ref", "main"), &out)
	if len(out.Matches) != 0 {
		t.Errorf("fixed string: %+v", out)
	}
}

// Finding 4: pathGlobs=["*a*a*a*a*a*a*a*b"] over one crafted deep path took
// 13 s in git's wildmatch. Globs with too many wildcards are refused with
// the limit; those allowed stay fast over the same path.
func TestHostileGlobBacktracking(t *testing.T) {
	r := testrepo.New(t)
	seg := strings.Repeat("a", 60)
	deep := strings.Repeat(seg+"/", 60) + strings.Repeat("a", 200)
	r.Write(deep, "needle\n")
	r.Write("b.txt", "needle\n")
	r.Commit("a deep path")
	h := serve(t, r, withTimeout(5*time.Second))
	for _, g := range []string{"*a*a*a*a*a*a*a*b", "**/*a*a*a*a*b", "**/*a*/**/*b"} {
		for _, ref := range []string{"main", ""} {
			msg := timedFails(t, h, "search_code", searchArgs("needle", "pathGlobs", []string{g}, "ref", ref), "INVALID_ARGUMENT")
			if !strings.Contains(msg, "limit") {
				t.Errorf("%q: %q does not state the limit", g, msg)
			}
		}
	}
	for _, g := range []string{"**/*a*b", "**/**/*a", "*a*b/**", "**/b.*"} {
		for _, ref := range []string{"main", ""} {
			start := time.Now()
			var out searchCodeOut
			h.structured("search_code", searchArgs("needle", "pathGlobs", []string{g}, "ref", ref), &out)
			if took := time.Since(start); took > bombMax {
				t.Errorf("glob %q at %q took %v", g, ref, took)
			}
		}
	}
}
