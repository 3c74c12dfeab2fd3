//go:build unix

package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
)

// Issue 11, "Error messages": what an agent reads when its arguments are
// wrong says in plain words what was wrong and what is accepted, under the
// stable INVALID_ARGUMENT code. Arguments go over the wire as the exact
// bytes given (json.RawMessage), as a client would send them.

// errorCase is a call that must fail with exactly msg.
type errorCase struct {
	name string
	tool string
	args string // the arguments object, as JSON text
	msg  string // the whole text the agent reads
}

// wantError makes the call and checks the exact message; the call must be
// an isError result, not a protocol error.
func wantError(t *testing.T, h *harness, c errorCase) {
	t.Helper()
	res, _, err := hostileCall(h, c.tool, json.RawMessage(c.args))
	if err != nil {
		t.Fatalf("%s %s: protocol error %v, want an isError result", c.tool, c.args, err)
	}
	got := textOf(res)
	if !res.IsError {
		t.Fatalf("%s %s succeeded: %.300q", c.tool, c.args, got)
	}
	if got != c.msg {
		t.Fatalf("%s %s:\n got %s\nwant %s", c.tool, c.args, got, c.msg)
	}
}

func TestArgumentErrorMessages(t *testing.T) {
	r := fixture(t)
	h := serve(t, r)
	before := r.Snapshot()
	const gfc = `"owner":"acme","repo":"widgets","filePath":"README.md"`
	const pr = `"owner":"acme","repo":"widgets"`
	cases := []errorCase{
		// null where a value is expected.
		{"path null", "read_file", `{"path": null}`,
			"INVALID_ARGUMENT: path must be a string, not null"},
		{"ref null", "read_file", `{"path": "README.md", "ref": null}`,
			"INVALID_ARGUMENT: ref must be a string, not null; leave it out to use its default"},
		{"startLine null", "read_file", `{"path": "README.md", "startLine": null}`,
			"INVALID_ARGUMENT: startLine must be a whole number, not null; leave it out to use its default"},
		{"filePath null", "get_file_content", `{"owner":"acme","repo":"widgets","filePath":null}`,
			"INVALID_ARGUMENT: filePath must be a string, not null"},
		{"with_metadata null", "get_file_content", `{` + gfc + `,"with_metadata":null}`,
			"INVALID_ARGUMENT: with_metadata must be true or false, not null; leave it out to use its default"},
		{"index null", "get_pull_request_diff", `{` + pr + `,"index":null}`,
			"INVALID_ARGUMENT: index must be a whole number, not null"},
		{"mode null", "get_diff", `{"base":"main","mode":null}`,
			`INVALID_ARGUMENT: mode must be "merge-base" or "direct", not null; leave it out to use its default`},

		// Below the minimum, above the maximum.
		{"startLine 0", "read_file", `{"path": "README.md", "startLine": 0}`,
			"INVALID_ARGUMENT: startLine must be at least 1 (got 0)"},
		{"endLine 0", "read_file", `{"path": "README.md", "endLine": 0}`,
			"INVALID_ARGUMENT: endLine must be at least 1 (got 0)"},
		{"startLine -3", "read_file", `{"path": "README.md", "startLine": -3}`,
			"INVALID_ARGUMENT: startLine must be at least 1 (got -3)"},
		{"index 0", "get_pull_request_diff", `{` + pr + `,"index":0}`,
			"INVALID_ARGUMENT: index must be at least 1 (got 0)"},
		{"maxBytes -1", "get_diff", `{"base":"main","maxBytes":-1}`,
			"INVALID_ARGUMENT: maxBytes must be at least 0 (got -1)"},
		{"limit 1000", "list_repositories", `{"limit":1000}`,
			"INVALID_ARGUMENT: limit must be at most 500 (got 1000)"},
		{"contextLines 9", "search_code", `{"query":"x","contextLines":9}`,
			"INVALID_ARGUMENT: contextLines must be at most 5 (got 9)"},

		// Past an int64, quoted as sent, naming no Go type.
		{"endLine 2^63", "read_file", `{"path": "README.md", "endLine": 9223372036854775808}`,
			"INVALID_ARGUMENT: endLine must be at most 2147483647 (got 9223372036854775808)"},
		{"endLine 1e19", "read_file", `{"path": "README.md", "endLine": 1e19}`,
			"INVALID_ARGUMENT: endLine must be at most 2147483647 (got 1e19)"},
		{"end_line 2^63 (no schema bound)", "get_file_content", `{` + gfc + `,"end_line":9223372036854775808}`,
			"INVALID_ARGUMENT: end_line must be at most 9223372036854775807 (got 9223372036854775808)"},
		{"end_line 1e19 (no schema bound)", "get_file_content", `{` + gfc + `,"end_line":1e19}`,
			"INVALID_ARGUMENT: end_line must be at most 9223372036854775807 (got 1e19)"},
		{"start_line -1e300 (no schema bound)", "get_file_content", `{` + gfc + `,"start_line":-1e300}`,
			"INVALID_ARGUMENT: start_line must be at least -9223372036854775808 (got -1e300)"},
		{"start_line -2^63-1", "get_file_content", `{` + gfc + `,"start_line":-9223372036854775809}`,
			"INVALID_ARGUMENT: start_line must be at least -9223372036854775808 (got -9223372036854775809)"},

		// Past a float64: a number, not "not a JSON object".
		{"endLine 1e400", "read_file", `{"path": "README.md", "endLine": 1e400}`,
			"INVALID_ARGUMENT: endLine must be at most 2147483647 (got 1e400)"},
		{"end_line 1e400", "get_file_content", `{` + gfc + `,"end_line":1e400}`,
			"INVALID_ARGUMENT: end_line must be at most 9223372036854775807 (got 1e400)"},
		{"index -1e400", "get_pull_request_diff", `{` + pr + `,"index":-1e400}`,
			"INVALID_ARGUMENT: index must be at least 1 (got -1e400)"},
		{"index 1e999999999", "get_pull_request_diff", `{` + pr + `,"index":1e999999999}`,
			"INVALID_ARGUMENT: index must be at most 2147483647 (got 1e999999999)"},
		{"a long number is cut", "get_pull_request_diff", `{` + pr + `,"index":` + strings.Repeat("9", 100) + `}`,
			"INVALID_ARGUMENT: index must be at most 2147483647 (got 99999999999999999999… (100 characters))"},

		// Whole numbers only.
		{"startLine 1.5", "read_file", `{"path": "README.md", "startLine": 1.5}`,
			"INVALID_ARGUMENT: startLine must be a whole number (got 1.5)"},
		{"start_line 1e-400", "get_file_content", `{` + gfc + `,"start_line":1e-400}`,
			"INVALID_ARGUMENT: start_line must be a whole number (got 1e-400)"},

		// The wrong type.
		{"startLine a string", "read_file", `{"path": "README.md", "startLine": "two"}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got the string "two")`},
		{"index a path", "get_pull_request_diff", `{` + pr + `,"index":"7/../../x"}`,
			`INVALID_ARGUMENT: index must be a whole number (got the string "7/../../x")`},
		{"ref a boolean", "read_file", `{"path": "README.md", "ref": true}`,
			"INVALID_ARGUMENT: ref must be a string (got the boolean true)"},
		{"base a number", "get_diff", `{"base": 123}`,
			"INVALID_ARGUMENT: base must be a string (got the number 123)"},
		{"with_metadata a string", "get_file_content", `{` + gfc + `,"with_metadata":"yes"}`,
			`INVALID_ARGUMENT: with_metadata must be true or false (got the string "yes")`},
		{"filePath an object", "get_file_content", `{"owner":"acme","repo":"widgets","filePath":{"path":"../x"}}`,
			"INVALID_ARGUMENT: filePath must be a string (got an object)"},
		{"paths a number", "get_diff", `{"base":"main","paths":7}`,
			`INVALID_ARGUMENT: paths must be an array of strings (got the number 7)`},
		{"paths with a number", "get_diff", `{"base":"main","paths":["cmd",1]}`,
			"INVALID_ARGUMENT: paths[1] must be a string (got the number 1)"},
		{"paths too many", "get_diff", `{"base":"main","paths":[` + strings.TrimSuffix(strings.Repeat(`"a",`, 201), ",") + `]}`,
			"INVALID_ARGUMENT: paths must have at most 200 entries (got 201)"},
		{"mode not one of the choices", "get_diff", `{"base":"main","mode":"x"}`,
			`INVALID_ARGUMENT: mode must be "merge-base" or "direct" (got "x")`},
		// Characters, not bytes, and the query is not repeated back.
		{"query too long", "search_code", `{"query":"` + strings.Repeat("é", 501) + `"}`,
			"INVALID_ARGUMENT: query must be at most 500 characters long (got 501)"},
		{"a long string is cut", "read_file", `{"path": "README.md", "startLine": "` + strings.Repeat("a", 100) + `"}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got the string "` + strings.Repeat("a", 40) + `"…)`},

		// Names: unknown, missing.
		{"unknown parameter", "read_file", `{"path": "README.md", "bogus": 1}`,
			`INVALID_ARGUMENT: there is no parameter "bogus" (the parameters are owner, repo, path, ref, startLine, endLine, startByte, maxBytes)`},
		{"unknown parameters", "get_file_content", `{` + gfc + `,"bogus":"x","start":1}`,
			`INVALID_ARGUMENT: there are no parameters "bogus", "start"; did you mean "start_line" for "start"? (the parameters are owner, repo, ref, filePath, start_line, end_line, start_byte, with_metadata)`},
		{"missing path", "read_file", `{}`,
			"INVALID_ARGUMENT: path is required"},
		{"missing owner", "get_file_content", `{"repo":"widgets","filePath":"README.md"}`,
			"INVALID_ARGUMENT: owner and repo are required (this server serves acme/widgets; list_repositories lists them)"},

		// Arguments that are not an object.
		{"arguments an array", "read_file", `[]`,
			"INVALID_ARGUMENT: arguments must be a JSON object of named parameters, like {\"name\": value} (got an array)"},
		{"arguments a string", "read_file", `"README.md"`,
			"INVALID_ARGUMENT: arguments must be a JSON object of named parameters, like {\"name\": value} (got the string \"README.md\")"},

		// Every problem at once.
		{"several problems", "read_file", `{"path": null, "startLine": 0, "x": 1}`,
			`INVALID_ARGUMENT: there is no parameter "x" (the parameters are owner, repo, path, ref, startLine, endLine, startByte, maxBytes); path must be a string, not null; startLine must be at least 1 (got 0)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantError(t, h, c) })
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("bad arguments changed the repository:\n%s", hostileDiffLines(before, after))
	}
}

// Numbers that are whole and in range are taken, however they are written.
func TestArgumentNumbersAccepted(t *testing.T) {
	h := serve(t, fixture(t))
	for _, lit := range []string{"2", "2.0", "2e0", "0.2e1", "20e-1"} {
		t.Run(lit, func(t *testing.T) {
			res, _, err := hostileCall(h, "read_file", json.RawMessage(`{"path":"crlf.txt","ref":"main","startLine":`+lit+`}`))
			if err != nil || res.IsError {
				t.Fatalf("startLine %s: %v %q", lit, err, textOf(res))
			}
			var out readFileOut
			hostileDecode(t, res, &out)
			if out.StartLine != 2 || out.Content != "two\r\nthree\r" {
				t.Fatalf("startLine %s: %+v", lit, out)
			}
		})
	}
	// Past the end clamps (the contract), up to the largest int64.
	if got := h.ok("get_file_content", fileArgs("crlf.txt", "ref", "main", "start_line", 3, "end_line", json.Number("9223372036854775807"))); got != "three\r" {
		t.Fatalf("end_line max int64: %q", got)
	}
}

// An empty file is called empty, not an inverted range; a range past the
// end says how many lines there are.
func TestLineRangeErrorMessages(t *testing.T) {
	r := fixture(t)
	h := serve(t, r)
	before := r.Snapshot()
	const empty = `"owner":"acme","repo":"widgets","filePath":"empty.txt"`
	const readme = `"owner":"acme","repo":"widgets","filePath":"README.md"`
	cases := []errorCase{
		{"get_file_content start_line on an empty file", "get_file_content", `{` + empty + `,"start_line":1}`,
			`INVALID_ARGUMENT: "empty.txt" is empty (0 lines): there is no line 1 to return; leave out the line range to get its (empty) content`},
		{"get_file_content a range of an empty file", "get_file_content", `{` + empty + `,"start_line":1,"end_line":1}`,
			`INVALID_ARGUMENT: "empty.txt" is empty (0 lines): there is no line 1 to return; leave out the line range to get its (empty) content`},
		{"get_file_content end_line on an empty file", "get_file_content", `{` + empty + `,"end_line":3}`,
			`INVALID_ARGUMENT: "empty.txt" is empty (0 lines): there is no line 1 to return; leave out the line range to get its (empty) content`},
		{"read_file startLine 2 of an empty file", "read_file", `{"path":"empty.txt","startLine":2}`,
			`INVALID_ARGUMENT: "empty.txt" is empty (0 lines): there is no line 2 to return; leave out the line range to get its (empty) content`},
		{"get_file_content start_line past the end", "get_file_content", `{` + readme + `,"start_line":3}`,
			`INVALID_ARGUMENT: start_line 3 is past the end of "README.md" (1 line): with end_line at the last line, 1, the range 3–1 is inverted; start_line must be at most 1`},
		{"get_file_content range past the end", "get_file_content", `{"owner":"acme","repo":"widgets","filePath":"crlf.txt","start_line":5,"end_line":9}`,
			`INVALID_ARGUMENT: start_line 5 is past the end of "crlf.txt" (3 lines): with end_line at the last line, 3, the range 5–3 is inverted; start_line must be at most 3`},
		{"read_file startLine past the end", "read_file", `{"path":"crlf.txt","startLine":5}`,
			`INVALID_ARGUMENT: startLine 5 is past the end of "crlf.txt", which has 3 lines: startLine must be at most 3`},
		{"get_file_content inverted range", "get_file_content", `{` + readme + `,"start_line":3,"end_line":2}`,
			`INVALID_ARGUMENT: start_line 3 is after end_line 2: the range is inverted; end_line must be at least start_line, or 0 (or left out) for the last line`},
		{"get_file_content negative end_line", "get_file_content", `{` + readme + `,"end_line":-1}`,
			`INVALID_ARGUMENT: start_line 1 (its default) is after end_line -1: the range is inverted; end_line must be at least start_line, or 0 (or left out) for the last line`},
		{"get_file_content negative start_line and end_line", "get_file_content", `{` + readme + `,"start_line":-5,"end_line":-1}`,
			`INVALID_ARGUMENT: start_line -5 (1 once clamped) is after end_line -1: the range is inverted; end_line must be at least start_line, or 0 (or left out) for the last line`},
		{"read_file endLine before startLine", "read_file", `{"path":"crlf.txt","startLine":3,"endLine":2}`,
			`INVALID_ARGUMENT: endLine 2 is before startLine 3: endLine must be at least startLine, or left out to read as far as fits`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantError(t, h, c) })
	}

	t.Run("read_file of an empty file says it is empty", func(t *testing.T) {
		for _, a := range []map[string]any{args("path", "empty.txt"), args("path", "empty.txt", "startLine", 1, "endLine", 1)} {
			var out readFileOut
			got := h.structured("read_file", a, &out)
			if got != "empty.txt (work tree) is empty: 0 lines\n" {
				t.Fatalf("%v: %q", a, got)
			}
			if out.TotalLines != 0 || out.Content != "" || out.StartLine != 1 || out.EndLine != 0 || out.Truncated {
				t.Fatalf("%v: %+v", a, out)
			}
		}
		var out readFileOut
		if got := h.structured("read_file", args("path", "empty.txt", "ref", "main"), &out); got != "empty.txt (commit "+r.Head()+") is empty: 0 lines\n" {
			t.Fatalf("at a ref: %q", got)
		}
	})
	t.Run("get_file_content of an empty file without a range is its empty content", func(t *testing.T) {
		if got := h.ok("get_file_content", fileArgs("empty.txt")); got != "" {
			t.Fatalf("%q", got)
		}
	})
	if after := r.Snapshot(); after != before {
		t.Fatalf("bad ranges changed the repository:\n%s", hostileDiffLines(before, after))
	}
}

// A pull request whose head adds nothing to its base has an empty diff:
// the reply says so, rather than being empty.
func TestEmptyPullRequestDiffSaysSo(t *testing.T) {
	r := newPRRepo(t)
	main := r.Git("rev-parse", "main")
	main = strings.TrimSpace(main)
	r.Git("update-ref", "refs/pull/20/head", main) // head = base
	// #21: a commit and its revert: commits, but no change.
	r.Git("checkout", "-q", "-b", "pr21", "main")
	r.Write("tmp.txt", "x\n")
	r.Commit("add")
	r.Git("rm", "-q", "tmp.txt")
	head21 := r.Commit("revert")
	r.Git("update-ref", "refs/pull/21/head", head21)
	r.Git("checkout", "-q", "main")
	h := serve(t, r.Repo)
	before := r.Snapshot()

	t.Run("head is the base", func(t *testing.T) {
		got := h.ok("get_pull_request_diff", prArgs(20))
		want := "The diff of acme/widgets#20 is empty: its head " + main[:12] + " is already part of its base (it is the merge base), so no file differs; list_commits with index=20 lists the commits its merge brought in (or says why a fast-forward cannot tell them)" +
			"; its base is the checked-out branch (main), as refs/pull/20/merge is not fetched: if that is the pull request's own branch, not its target, get_diff with base set to the target and head=refs/pull/20/head gives its changes.\n"
		if got != want {
			t.Fatalf("got  %q\nwant %q", got, want)
		}
	})
	t.Run("head reverts its own change", func(t *testing.T) {
		got := h.ok("get_pull_request_diff", prArgs(21))
		want := "The diff of acme/widgets#21 is empty: no file differs between its merge base " + main[:12] + " and its head " + head21[:12] + ".\n"
		if got != want {
			t.Fatalf("got  %q\nwant %q", got, want)
		}
	})
	t.Run("file_path in an empty diff", func(t *testing.T) {
		got := h.fails("get_pull_request_diff", prArgs(20, "file_path", "cmd/main.go"), "NOT_FOUND")
		want := `NOT_FOUND: file_path "cmd/main.go" is not in the diff of acme/widgets#20: its head ` + main[:12] + " is already part of its base (it is the merge base), so no file differs; list_commits with index=20 lists the commits its merge brought in (or says why a fast-forward cannot tell them)"
		if got != want {
			t.Fatalf("got  %q\nwant %q", got, want)
		}
	})
	t.Run("a diff with changes is unchanged", func(t *testing.T) {
		if got, want := h.ok("get_pull_request_diff", prArgs(7)), r.gitDiff(r.mergeBase, r.feature); got != want {
			t.Fatalf("got %q, want git's diff %q", got, want)
		}
	})
	if after := r.Snapshot(); after != before {
		t.Fatalf("the calls changed the repository:\n%s", hostileDiffLines(before, after))
	}
}

// The same from a forge whose .diff endpoint answers with no bytes.
func TestEmptyForgePullRequestDiffSaysSo(t *testing.T) {
	f := forgetest.New(t)
	f.API = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/repos/acme/widgets/pulls/6.diff" {
			w.Header().Set("Content-Type", "text/plain")
			return // 200, empty
		}
		http.NotFound(w, r)
	}
	h, _ := serveForge(t, f.URL, "tok", f.Repo, 30*time.Second, time.Hour)
	got := h.ok("get_pull_request_diff", prArgs(6))
	if want := "The diff of acme/widgets#6 is empty: no file differs between its head and its merge base with its base.\n"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
