//go:build unix

package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Issue 14, item 4: arguments as models send them. A number or boolean sent
// as a string is taken for an integer or boolean parameter, judged as the
// number it spells; an unknown parameter's error names the closest one the
// tool takes. Calls go through the real tool path, arguments as the exact
// bytes a client sends.

// modelsRepo has a README of five lines, committed, so that line ranges
// have room.
func modelsRepo(t *testing.T) *testrepo.Repo {
	r := testrepo.New(t)
	r.Write("README.md", "one\ntwo\nthree\nfour\nfive\n")
	r.Write("src/main.go", "package main\n\nfunc main() {}\n")
	r.Commit("five lines")
	return r
}

// rawReply is a successful call's text and structured content, as sent.
func rawReply(t *testing.T, h *harness, tool, args string) string {
	t.Helper()
	res, _, err := hostileCall(h, tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: protocol error %v", tool, args, err)
	}
	if res.IsError {
		t.Fatalf("%s %s failed: %s", tool, args, textOf(res))
	}
	return replyBytes(t, res)
}

func replyBytes(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return textOf(res) + "\n--structured--\n" + string(data)
}

func TestStringArgumentsAreReadAsTheyAreMeant(t *testing.T) {
	r := modelsRepo(t)
	h := serve(t, r)
	before := r.Snapshot()
	const gfc = `"owner":"acme","repo":"widgets","filePath":"README.md"`
	same := []struct {
		name, tool, strs, nums string
	}{
		{"read_file line range", "read_file",
			`{"path": "README.md", "startLine": "2", "endLine": "3"}`,
			`{"path": "README.md", "startLine": 2, "endLine": 3}`},
		{"read_file at a ref", "read_file",
			`{"path": "README.md", "ref": "main", "startLine": "4"}`,
			`{"path": "README.md", "ref": "main", "startLine": 4}`},
		// A string holding any JSON number is that number: 2.0 and 1e3
		// are whole, as they are when sent as numbers.
		{"2.0 is 2", "read_file",
			`{"path": "README.md", "startLine": "2.0"}`,
			`{"path": "README.md", "startLine": 2}`},
		{"1e3 is 1000 (past the end: as far as the file goes)", "read_file",
			`{"path": "README.md", "startLine": "2", "endLine": "1e3"}`,
			`{"path": "README.md", "startLine": 2, "endLine": 1000}`},
		{"get_file_content lines", "get_file_content",
			`{` + gfc + `, "start_line": "2", "end_line": "3"}`,
			`{` + gfc + `, "start_line": 2, "end_line": 3}`},
		{"get_file_content with_metadata", "get_file_content",
			`{` + gfc + `, "with_metadata": "true"}`,
			`{` + gfc + `, "with_metadata": true}`},
		{"get_file_content with_metadata false", "get_file_content",
			`{` + gfc + `, "with_metadata": "false", "start_line": "2"}`,
			`{` + gfc + `, "with_metadata": false, "start_line": 2}`},
		{"get_file_content negative start_line clamps", "get_file_content",
			`{` + gfc + `, "start_line": "-5", "end_line": "2"}`,
			`{` + gfc + `, "start_line": -5, "end_line": 2}`},
		{"search_code booleans and numbers", "search_code",
			`{"query": "^f", "regex": "true", "caseSensitive": "false", "maxResults": "2", "contextLines": "1", "ref": "main"}`,
			`{"query": "^f", "regex": true, "caseSensitive": false, "maxResults": 2, "contextLines": 1, "ref": "main"}`},
	}
	for _, c := range same {
		t.Run(c.name, func(t *testing.T) {
			got, want := rawReply(t, h, c.tool, c.strs), rawReply(t, h, c.tool, c.nums)
			if got != want {
				t.Fatalf("with strings:\n%s\nwith numbers:\n%s", got, want)
			}
		})
	}

	// The numbers as read: lines 2–3 of the file.
	var out readFileOut
	res, _, err := hostileCall(h, "read_file", json.RawMessage(`{"path": "README.md", "startLine": "2", "endLine": "3"}`))
	if err != nil {
		t.Fatal(err)
	}
	hostileDecode(t, res, &out)
	if out.StartLine != 2 || out.EndLine != 3 || out.Content != "two\nthree" {
		t.Fatalf("%+v", out)
	}

	refused := []errorCase{
		// Not a number: today's words.
		{"abc", "read_file", `{"path": "README.md", "startLine": "abc"}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got the string "abc")`},
		{"nothing is trimmed", "read_file", `{"path": "README.md", "startLine": " 2 "}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got the string " 2 ")`},
		{"no plus sign", "read_file", `{"path": "README.md", "startLine": "+2"}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got the string "+2")`},
		{"no hex", "read_file", `{"path": "README.md", "startLine": "0x10"}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got the string "0x10")`},
		{"no leading zero", "read_file", `{"path": "README.md", "startLine": "02"}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got the string "02")`},
		{"empty", "read_file", `{"path": "README.md", "startLine": ""}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got the string "")`},
		{"NaN", "read_file", `{"path": "README.md", "endLine": "NaN"}`,
			`INVALID_ARGUMENT: endLine must be a whole number (got the string "NaN")`},
		{"a number is not a boolean", "get_file_content", `{` + gfc + `, "with_metadata": "1"}`,
			`INVALID_ARGUMENT: with_metadata must be true or false (got the string "1")`},
		{"yes is not a boolean", "get_file_content", `{` + gfc + `, "with_metadata": "yes"}`,
			`INVALID_ARGUMENT: with_metadata must be true or false (got the string "yes")`},
		{"TRUE is not a boolean", "search_code", `{"query": "x", "regex": "TRUE"}`,
			`INVALID_ARGUMENT: regex must be true or false (got the string "TRUE")`},
		{"true is not a number", "read_file", `{"path": "README.md", "startLine": "true"}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got the string "true")`},
		// A string parameter takes no number; a number is not made a string.
		{"path a number", "read_file", `{"path": 2}`,
			`INVALID_ARGUMENT: path must be a string (got the number 2)`},

		// A number, judged as a number: ranges are checked on it.
		{"fraction", "read_file", `{"path": "README.md", "startLine": "2.5"}`,
			`INVALID_ARGUMENT: startLine must be a whole number (got 2.5)`},
		{"below the minimum", "read_file", `{"path": "README.md", "startLine": "-1"}`,
			`INVALID_ARGUMENT: startLine must be at least 1 (got -1)`},
		{"zero, minimum 1", "read_file", `{"path": "README.md", "endLine": "0"}`,
			`INVALID_ARGUMENT: endLine must be at least 1 (got 0)`},
		{"maxBytes -1, minimum 0", "get_diff", `{"base": "main", "maxBytes": "-1"}`,
			`INVALID_ARGUMENT: maxBytes must be at least 0 (got -1)`},
		{"past an int64", "read_file", `{"path": "README.md", "endLine": "99999999999999999999"}`,
			`INVALID_ARGUMENT: endLine must be at most 2147483647 (got 99999999999999999999)`},
		{"past an int64, no schema bound", "get_file_content", `{` + gfc + `, "end_line": "99999999999999999999"}`,
			`INVALID_ARGUMENT: end_line must be at most 9223372036854775807 (got 99999999999999999999)`},
		{"1e400", "read_file", `{"path": "README.md", "endLine": "1e400"}`,
			`INVALID_ARGUMENT: endLine must be at most 2147483647 (got 1e400)`},
		// Before defaults and validation: the maximum is checked on the number.
		{"over the maximum", "search_code", `{"query": "x", "contextLines": "9"}`,
			`INVALID_ARGUMENT: contextLines must be at most 5 (got 9)`},
		{"past the end of the file", "read_file", `{"path": "README.md", "startLine": "1e3"}`,
			`INVALID_ARGUMENT: startLine 1000 is past the end of "README.md", which has 5 lines: startLine must be at most 5`},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) { wantError(t, h, c) })
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("the calls changed the repository:\n%s", hostileDiffLines(before, after))
	}
}

// wantUnknown checks an unknown-parameter error: before, then the list of
// the tool's parameters (whatever they are today), then after.
func wantUnknown(t *testing.T, h *harness, tool, args, before, after string) {
	t.Helper()
	res, _, err := hostileCall(h, tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: protocol error %v, want an isError result", tool, args, err)
	}
	got := textOf(res)
	if !res.IsError {
		t.Fatalf("%s %s succeeded: %.300q", tool, args, got)
	}
	rest, ok := strings.CutPrefix(got, before+" (the parameters are ")
	if ok {
		_, rest, ok = strings.Cut(rest, ")")
	}
	if !ok || rest != after {
		t.Fatalf("%s %s:\n got %s\nwant %s (the parameters are …)%s", tool, args, got, before, after)
	}
}

func TestUnknownParameterSuggestsTheClosest(t *testing.T) {
	h := serve(t, modelsRepo(t))
	const pathRequired = "; path is required"
	cases := []struct{ name, tool, args, before, after string }{
		{"sourcePath for path: a suffix", "read_file", `{"sourcePath": "README.md"}`,
			`INVALID_ARGUMENT: there is no parameter "sourcePath"; did you mean "path"?`, pathRequired},
		{"FilePath for filePath: the same name", "get_file_content", `{"owner": "acme", "repo": "widgets", "FilePath": "README.md"}`,
			`INVALID_ARGUMENT: there is no parameter "FilePath"; did you mean "filePath"?`, "; filePath is required"},
		{"filepath for filePath, already given: none", "get_file_content", `{"owner": "acme", "repo": "widgets", "filePath": "README.md", "filepath": "x"}`,
			`INVALID_ARGUMENT: there is no parameter "filepath"`, ""},
		{"Start_Line for startLine", "read_file", `{"path": "README.md", "Start_Line": 2}`,
			`INVALID_ARGUMENT: there is no parameter "Start_Line"; did you mean "startLine"?`, ""},
		{"StartLine for start_line", "get_file_content", `{"owner": "acme", "repo": "widgets", "filePath": "README.md", "StartLine": 2}`,
			`INVALID_ARGUMENT: there is no parameter "StartLine"; did you mean "start_line"?`, ""},
		{"an alias is not suggested", "read_file", `{"path": "README.md", "filePth": "x"}`,
			`INVALID_ARGUMENT: there is no parameter "filePth"`, ""},
		{"start for startLine: a prefix", "read_file", `{"path": "README.md", "start": 2}`,
			`INVALID_ARGUMENT: there is no parameter "start"; did you mean "startLine"?`, ""},
		{"repository for repo", "read_file", `{"path": "README.md", "repository": "widgets"}`,
			`INVALID_ARGUMENT: there is no parameter "repository"; did you mean "repo"?`, ""},
		{"rev for ref: one edit", "read_file", `{"path": "README.md", "rev": "main"}`,
			`INVALID_ARGUMENT: there is no parameter "rev"; did you mean "ref"?`, ""},
		{"maxResult for maxResults", "search_code", `{"query": "x", "maxResult": 3}`,
			`INVALID_ARGUMENT: there is no parameter "maxResult"; did you mean "maxResults"?`, ""},
		{"contxtLines for contextLines: a typo", "get_diff", `{"base": "main", "contxtLines": 1}`,
			`INVALID_ARGUMENT: there is no parameter "contxtLines"; did you mean "contextLines"?`, ""},
		{"nothing close", "read_file", `{"path": "README.md", "bogus": 1}`,
			`INVALID_ARGUMENT: there is no parameter "bogus"`, ""},
		{"nothing close, list_repositories", "list_repositories", `{"owner": "acme"}`,
			`INVALID_ARGUMENT: there is no parameter "owner"`, ""},
		{"a name already given is not suggested", "read_file", `{"path": "README.md", "filepath": "x"}`,
			`INVALID_ARGUMENT: there is no parameter "filepath"`, ""},
		{"several, each its own", "read_file", `{"sourcePath": "README.md", "start": 1, "zzz": 0}`,
			`INVALID_ARGUMENT: there are no parameters "sourcePath", "start", "zzz"; did you mean "path" for "sourcePath", "startLine" for "start"?`, pathRequired},
		{"with other problems", "read_file", `{"path": null, "startLine": "0", "endline": 1}`,
			`INVALID_ARGUMENT: there is no parameter "endline"; did you mean "endLine"?`, "; path must be a string, not null; startLine must be at least 1 (got 0)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantUnknown(t, h, c.tool, c.args, c.before, c.after) })
	}
	// The whole message, once, with the list as the schema has it.
	in, _, err := readFileTool.schemas()
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, h, errorCase{"filepath", "read_file", `{"path": "README.md", "filepath": "x", "Start_Line": 1}`,
		`INVALID_ARGUMENT: there are no parameters "Start_Line", "filepath"; did you mean "startLine" for "Start_Line"? (the parameters are ` +
			strings.Join(argcheck.PropertyNames(in), ", ") + `)`})
}
