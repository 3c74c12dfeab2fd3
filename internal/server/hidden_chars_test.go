package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// The "commenting-out" example of the Trojan Source paper (CVE-2021-42574),
// built from its code points: U+202E RIGHT-TO-LEFT OVERRIDE, U+2066
// LEFT-TO-RIGHT ISOLATE, U+2069 POP DIRECTIONAL ISOLATE. Shown, it reads as
// a comment and then an if; run, the whole line is a comment.
var (
	rlo, lri, pdi = "\u202E", "\u2066", "\u2069"
	trojanLine    = "    /*" + rlo + " } " + lri + "if (isAdmin)" + pdi + " " + lri + " begin admins only */"
	trojanFile    = "var isAdmin = false;\n" +
		"function check() {\n" +
		trojanLine + "\n" +
		"        console.log(\"You are an admin.\");\n" +
		"    /* end admins only " + rlo + " { " + lri + "*/\n" +
		"}\n"
	trojanNames = []string{"U+202E RIGHT-TO-LEFT OVERRIDE", "U+2066 LEFT-TO-RIGHT ISOLATE", "U+2069 POP DIRECTIONAL ISOLATE"}
)

// hiddenNoteLine is the text's lines that note hidden characters, or "".
func hiddenNoteLine(text string) string {
	var notes []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "[hidden characters in ") || strings.HasPrefix(line, "[note: hidden characters in ") {
			notes = append(notes, line)
		}
	}
	return strings.Join(notes, "\n")
}

// wantHiddenNote: a note of the text says where the hidden characters are
// (lines, a phrase such as "new lines 3, 5") and names each code point.
func wantHiddenNote(t *testing.T, what, text, lines string) {
	t.Helper()
	notes := hiddenNoteLine(text)
	for _, note := range strings.Split(notes, "\n") {
		if !strings.Contains(note, lines) {
			continue
		}
		for _, want := range trojanNames {
			if !strings.Contains(note, want) {
				t.Errorf("%s: the note lacks %q: %s", what, want, note)
			}
		}
		return
	}
	t.Errorf("%s: no note of the hidden characters in %q:\n%s", what, lines, text)
}

// TestTrojanSourceFlagged: a pull request that brings the Trojan Source
// sample, with hidden characters in its commit's subject and body too.
// Every tool that shows that text shows it byte for byte and notes the
// hidden characters (the file, the lines, the code points by name); with
// --structured, the same is a field of the output.
func TestTrojanSourceFlagged(t *testing.T) {
	r := testrepo.New(t)
	r.Write("app.js", "var isAdmin = false;\nfunction check() {\n    if (isAdmin) {\n        console.log(\"You are an admin.\");\n    }\n}\n")
	base := r.Commit("base")
	r.Write("app.js", trojanFile)
	r.Write("evil"+rlo+"txt.exe", "x\n")
	head := r.Commit("Tidy " + rlo + "check" + pdi + "\n\nbody " + lri + "line" + pdi)
	makeLocalPull(r, base, head)
	h := serve(t, r)
	pr := args("owner", "acme", "repo", "widgets", "index", 1)

	var diffOut getDiffOut
	text := h.structured("get_diff", args("base", base), &diffOut)
	wantShown(t, "get_diff", text, "+"+trojanLine+"\n")
	wantHiddenNote(t, "get_diff", text, "the patch of app.js, new lines 3, 5:")
	if f := diffOut.Files; len(f) != 2 || f[1].Hidden != nil || f[0].Hidden == nil || !slices.Equal(f[0].Hidden.Lines, []int{3, 5}) || f[0].Hidden.OldCount != 0 || !slices.Equal(f[0].Hidden.CodePoints, trojanNames) {
		t.Errorf("get_diff: structured files %+v", diffOut.Files)
	}
	text = h.ok("get_pull_request_diff", pr)
	wantShown(t, "get_pull_request_diff", text, "+"+trojanLine+"\n")
	wantHiddenNote(t, "get_pull_request_diff", text, "the patch of app.js, new lines 3, 5:")

	var commitOut getCommitOut
	text = h.structured("get_commit", args("ref", "HEAD"), &commitOut)
	wantShown(t, "get_commit", text, "+"+trojanLine+"\n")
	wantHiddenNote(t, "get_commit", text, "the patch of app.js, new lines 3, 5:")
	if !strings.Contains(text, "[hidden characters in the message, lines 1, 3: U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+2069 POP DIRECTIONAL ISOLATE; shown as they are]") {
		t.Errorf("get_commit: no note of the message's hidden characters:\n%s", text)
	}
	if m := commitOut.MessageHidden; m == nil || !slices.Equal(m.Lines, []int{1, 3}) {
		t.Errorf("get_commit: structured messageHiddenCharacters %+v", m)
	}

	for _, ref := range []string{"", "HEAD"} {
		var out readFileOut
		text = h.structured("read_file", args("path", "app.js", "ref", ref), &out)
		wantShown(t, "read_file", text, trojanFile)
		wantHiddenNote(t, "read_file", text, "app.js, lines 3, 5")
		if out.Content != strings.TrimSuffix(trojanFile, "\n") || out.Hidden == nil || !slices.Equal(out.Hidden.Lines, []int{3, 5}) || !slices.Equal(out.Hidden.CodePoints, trojanNames) {
			t.Errorf("read_file ref %q: structured %+v", ref, out)
		}
	}
	text = h.ok("read_file", args("path", "app.js", "startLine", 4))
	if hiddenNoteLine(text) != "[hidden characters in app.js, line 5: U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE; shown as they are]" {
		t.Errorf("read_file from line 4: note %q", hiddenNoteLine(text))
	}
	text = h.ok("get_file_content", fileArgs("app.js"))
	wantShown(t, "get_file_content", text, trojanFile)
	wantHiddenNote(t, "get_file_content", text, "app.js, lines 3, 5")
	if !strings.HasPrefix(text, trojanFile) {
		t.Errorf("get_file_content: the file is not the text's start, byte for byte")
	}

	var commits listCommitsOut
	text = h.structured("list_commits", args(), &commits)
	if !strings.Contains(text, "Tidy "+rlo+"check"+pdi) || !strings.Contains(text, "[hidden characters in the subjects of "+git.Short(head)+": U+202E RIGHT-TO-LEFT OVERRIDE, U+2069 POP DIRECTIONAL ISOLATE; shown as they are]") {
		t.Errorf("list_commits: the subject or its note is missing:\n%s", text)
	}
	if c := commits.Commits[0]; !slices.Equal(c.SubjectHidden, []string{trojanNames[0], trojanNames[2]}) {
		t.Errorf("list_commits: structured subjectHiddenCharacters %q", c.SubjectHidden)
	}
	var pull getPullRequestOut
	text = h.structured("get_pull_request", pr, &pull)
	if !strings.Contains(text, "[hidden characters in the message of "+git.Short(head)+", lines 1, 3: ") || len(pull.Commits) != 1 || pull.Commits[0].MessageHidden == nil {
		t.Errorf("get_pull_request: no note of the message's hidden characters:\n%s\n%+v", text, pull.Commits)
	}

	for _, ref := range []string{"", "HEAD"} {
		var out searchCodeOut
		text = h.structured("search_code", args("query", "admins only", "ref", ref), &out)
		wantShown(t, "search_code", text, "app.js:3: "+trojanLine+"\n")
		wantHiddenNote(t, "search_code", text, "app.js, lines 3, 5")
		if len(out.Matches) != 2 || !slices.Equal(out.Matches[0].Hidden, trojanNames) {
			t.Errorf("search_code ref %q: structured matches %+v", ref, out.Matches)
		}
	}
	// A name with a hidden character is written quoted: the escape shows it.
	text = h.ok("list_changed_files", args("base", base))
	wantShown(t, "list_changed_files", text, `"evil\u202etxt.exe"`)
	// Context two matches share is counted once.
	text = h.ok("search_code", args("query", "admins only", "contextLines", 3))
	wantHiddenNote(t, "search_code with context", text, "app.js, lines 3, 5:")
	text = h.ok("blame", args("path", "app.js"))
	wantShown(t, "blame", text, trojanLine+"\n")
	wantHiddenNote(t, "blame", text, "app.js, lines 3, 5")

	// Files and patches with no hidden character have no note.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_diff", args("base", base, "head", base)}, {"read_file", args("path", "app.js", "ref", base)},
		{"list_commits", args("ref", base)}, {"get_commit", args("ref", base)}, {"search_code", args("query", "isAdmin", "ref", base)},
	} {
		if n := hiddenNoteLine(h.ok(c.tool, c.args)); n != "" {
			t.Errorf("%s %v: a note with nothing to say: %s", c.tool, c.args, n)
		}
	}
}

// wantShown: the text holds want, byte for byte.
func wantShown(t *testing.T, what, text, want string) {
	t.Helper()
	if !strings.Contains(text, want) {
		t.Errorf("%s: the text does not hold %q as it is:\n%s", what, want, text)
	}
}

// TestHiddenCharNotesFitTheLimit: notes of hidden characters on many lines
// of many files count against --max-bytes: every reply fits (the harness
// checks each), with and without --structured.
func TestHiddenCharNotesFitTheLimit(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	base := r.Commit("base")
	var body strings.Builder
	for i := range 400 {
		fmt.Fprintf(&body, "line %d \u200b\u202e\u2066\u2069\u061c\u00ad\U000E0041 hidden\n", i)
	}
	for i := range 8 {
		r.Write(fmt.Sprintf("dir/%s/f%d.txt", strings.Repeat("long", 10), i), body.String())
	}
	r.Commit("many " + strings.Repeat("\u200b", 50))
	makeLocalPull(r, base, r.Head())
	for _, structured := range []bool{false, true} {
		opts := []option{withMaxBytes(8192)}
		if !structured {
			opts = append(opts, withTextOnly())
		}
		h := serve(t, r, opts...)
		path := fmt.Sprintf("dir/%s/f0.txt", strings.Repeat("long", 10))
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"get_diff", args("base", base)},
			{"get_diff", args("base", base, "contextLines", 0)},
			{"get_commit", args("ref", "HEAD")},
			{"get_pull_request_diff", args("owner", "acme", "repo", "widgets", "index", 1)},
			{"get_pull_request", args("owner", "acme", "repo", "widgets", "index", 1)},
			{"read_file", args("path", path)},
			{"get_file_content", fileArgs(path, "start_line", 1, "end_line", 20)},
			{"search_code", args("query", "hidden", "maxResults", 100)},
			{"blame", args("path", path)},
			{"list_commits", args()},
		} {
			text := h.ok(c.tool, c.args)
			if hiddenNoteLine(text) == "" {
				t.Errorf("structured %v: %s %v: no note of the hidden characters:\n%s", structured, c.tool, c.args, text)
			}
		}
	}
}

// TestForgePullRequestHiddenChars: a forge's pull request title and
// description with hidden characters are noted, and shown as they are.
func TestForgePullRequestHiddenChars(t *testing.T) {
	f := forgetest.New(t)
	body := "Fixes the check.\n" + trojanLine + "\n"
	p := newFakePull(body)
	p.fields["title"] = "Tidy " + rlo + "check"
	f.API = p.serve
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	var out getPullRequestOut
	text := h.structured("get_pull_request", args("owner", "acme", "repo", "widgets", "index", 3), &out)
	wantShown(t, "get_pull_request", text, "Title: Tidy "+rlo+"check\n")
	wantShown(t, "get_pull_request", text, body)
	for _, want := range []string{
		"[hidden characters in the title: U+202E RIGHT-TO-LEFT OVERRIDE; shown as they are]",
		"[hidden characters in the description, line 2: U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+2069 POP DIRECTIONAL ISOLATE; shown as they are]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if *out.Body != body || !slices.Equal(out.TitleHidden, trojanNames[:1]) || out.BodyHidden == nil || !slices.Equal(out.BodyHidden.Lines, []int{2}) {
		t.Errorf("structured: body %q, titleHiddenCharacters %q, bodyHiddenCharacters %+v", *out.Body, out.TitleHidden, out.BodyHidden)
	}
}
