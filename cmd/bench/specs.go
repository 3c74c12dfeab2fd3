package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The parts of the tools' structured results that the checks read.
type diffOut struct {
	MergeBase *string `json:"mergeBase"`
	Files     []struct {
		Path         string  `json:"path"`
		OldPath      *string `json:"oldPath"`
		Status       string  `json:"status"`
		Patch        *string `json:"patch"`
		PatchOmitted *string `json:"patchOmitted"`
	} `json:"files"`
	TotalFiles int `json:"totalFiles"`
}

type readOut struct {
	StartLine  int    `json:"startLine"`
	EndLine    int    `json:"endLine"`
	TotalLines int    `json:"totalLines"`
	Content    string `json:"content"`
	Truncated  bool   `json:"truncated"`
}

type searchOut struct {
	Matches []struct {
		Path string `json:"path"`
		Line int    `json:"line"`
	} `json:"matches"`
	Truncated bool `json:"truncated"`
}

func decode(res *mcp.CallToolResult, v any) error {
	if res.StructuredContent == nil {
		return fmt.Errorf("no structured content")
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// statusName maps git's raw status letter to the tools' name for it.
func statusName(s byte) string {
	switch s {
	case 'A':
		return "added"
	case 'M':
		return "modified"
	case 'D':
		return "deleted"
	case 'R':
		return "renamed"
	case 'C':
		return "copied"
	case 'T':
		return "type_changed"
	}
	return string(s)
}

// diffSpec: a get_diff call. The answer must list every file git lists and
// carry patches; with huge set, that file's patch must be omitted for size
// and every other file's patch present (the ones after it too).
func diffSpec(fx *fixture, args map[string]any, gitArgs []string, huge string) (*spec, error) {
	check := func(res *mcp.CallToolResult) error {
		var out diffOut
		if err := decode(res, &out); err != nil {
			return err
		}
		if out.TotalFiles != len(fx.changes) {
			return fmt.Errorf("totalFiles %d, git lists %d", out.TotalFiles, len(fx.changes))
		}
		if out.MergeBase == nil || *out.MergeBase != fx.mergeBase {
			return fmt.Errorf("mergeBase %v, git says %s", out.MergeBase, fx.mergeBase)
		}
		patches := 0
		for _, f := range out.Files {
			switch {
			case f.Path == huge:
				if f.PatchOmitted == nil || *f.PatchOmitted != "size_limit" {
					return fmt.Errorf("%s: patch not omitted for size (%v)", f.Path, f.PatchOmitted)
				}
			case f.Patch != nil:
				patches++
			case huge != "":
				return fmt.Errorf("%s: patch missing (%v)", f.Path, f.PatchOmitted)
			}
		}
		if patches == 0 {
			return fmt.Errorf("no patch in the reply")
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		var out diffOut
		if err := decode(res, &out); err != nil {
			return err
		}
		for i, f := range out.Files { // in git's order, with git's patches
			c := fx.changes[i]
			if f.Path != c.path || f.Status != statusName(c.status) {
				return fmt.Errorf("file %d is %s %s, git has %c %s", i, f.Status, f.Path, c.status, c.path)
			}
			if f.Patch == nil {
				continue
			}
			paths := []string{c.path}
			if c.oldPath != c.path {
				paths = []string{c.oldPath, c.path}
			}
			want, err := fx.g.output(fx.dir, append([]string{"diff", "-M", fx.mergeBase, fx.head, "--"}, paths...)...)
			if err != nil {
				return err
			}
			if *f.Patch != string(want) {
				return fmt.Errorf("%s: patch differs from git's (%d vs %d bytes)", f.Path, len(*f.Patch), len(want))
			}
		}
		return nil
	}
	return &spec{args: args, git: gitArgs, check: check, oracle: oracle}, nil
}

// changedFilesSpec: list_changed_files over base...head against
// `git diff --numstat -M`.
func changedFilesSpec(fx *fixture) (*spec, error) {
	type out struct {
		Files []struct {
			Path   string `json:"path"`
			Status string `json:"status"`
		} `json:"files"`
		TotalFiles int `json:"totalFiles"`
	}
	check := func(res *mcp.CallToolResult) error {
		var o out
		if err := decode(res, &o); err != nil {
			return err
		}
		// The first page: up to limit (500) entries, fewer when the reply
		// limit is reached first.
		if o.TotalFiles != len(fx.changes) || len(o.Files) == 0 || len(o.Files) > min(500, len(fx.changes)) {
			return fmt.Errorf("%d of %d files listed, git lists %d", len(o.Files), o.TotalFiles, len(fx.changes))
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		var o out
		if err := decode(res, &o); err != nil {
			return err
		}
		for i, f := range o.Files {
			if c := fx.changes[i]; f.Path != c.path || f.Status != statusName(c.status) {
				return fmt.Errorf("file %d is %s %s, git has %c %s", i, f.Status, f.Path, c.status, c.path)
			}
		}
		return nil
	}
	return &spec{args: map[string]any{"base": fx.base, "head": fx.head}, git: []string{"diff", "--numstat", "-M", fx.mergeBase, fx.head},
		check: check, oracle: oracle, note: fmt.Sprintf("%d files", len(fx.changes))}, nil
}

// prFileSpec: get_pull_request_diff of one file of PR #1; the answer must
// be git's section byte for byte.
func prFileSpec(fx *fixture, c change, gitArgs []string) (*spec, error) {
	header := "diff --git a/" + c.oldPath + " b/" + c.path + "\n"
	check := func(res *mcp.CallToolResult) error {
		if t := firstText(res); !strings.HasPrefix(t, header) {
			return fmt.Errorf("reply does not start with %q: %.80q", header, t)
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		want, err := fx.g.output(fx.dir, gitArgs...)
		if err != nil {
			return err
		}
		if got := firstText(res); got != string(want) {
			return fmt.Errorf("section differs from git's (%d vs %d bytes)", len(got), len(want))
		}
		return nil
	}
	return &spec{args: map[string]any{"owner": benchOwner, "repo": benchRepo, "index": 1, "file_path": c.path},
		git: gitArgs, check: check, oracle: oracle, note: c.path}, nil
}

// sliceCheck checks a read of t's lines start..end: read_file's structured
// result, or get_file_content's text.
func sliceCheck(tool string, t textFile, start, end int, full bool) func(*mcp.CallToolResult) error {
	want := strings.Join(t.lines[start-1:end], "\n")
	return func(res *mcp.CallToolResult) error {
		if tool == "get_file_content" {
			if got := firstText(res); (full && got != want) || got == "" {
				return fmt.Errorf("get_file_content: %d bytes, want %d", len(got), len(want))
			}
			return nil
		}
		var o readOut
		if err := decode(res, &o); err != nil {
			return err
		}
		if o.StartLine != start || o.EndLine != end || o.Truncated || o.TotalLines != t.totalLines() {
			return fmt.Errorf("read_file: lines %d–%d of %d (truncated %v), want %d–%d of %d", o.StartLine, o.EndLine, o.TotalLines, o.Truncated, start, end, t.totalLines())
		}
		if full && o.Content != want {
			return fmt.Errorf("read_file: content differs from git's (%d vs %d bytes)", len(o.Content), len(want))
		}
		return nil
	}
}

func readSliceSpec(fx *fixture) (*spec, error) { return sliceSpec(fx, "read_file", readArgs) }

func contentSliceSpec(fx *fixture) (*spec, error) {
	return sliceSpec(fx, "get_file_content", contentArgs)
}

// sliceSpec: a 100-line slice of fx.slice against `git cat-file -p`.
func sliceSpec(fx *fixture, tool string, args func(textFile, int, int) map[string]any) (*spec, error) {
	t := fx.slice
	return &spec{args: args(t, t.start, t.end), git: []string{"cat-file", "-p", t.rev + ":" + t.path},
		check: sliceCheck(tool, t, t.start, t.end, false), oracle: sliceCheck(tool, t, t.start, t.end, true),
		note: fmt.Sprintf("%s, %d lines, lines %d–%d", t.path, t.totalLines(), t.start, t.end)}, nil
}

// throughputSpec: calls sequential 100-line reads of fx.slice, at start
// lines spread over the file.
func throughputSpec(fx *fixture, calls int, args func(textFile, int, int) map[string]any) (*spec, error) {
	t := fx.slice
	n := t.totalLines()
	span := func(i int) (int, int) {
		if n <= 100 {
			return 1, n
		}
		s := 1 + (i*37)%(n-99)
		return s, s + 99
	}
	s, e := span(0)
	tool := "read_file"
	if _, ok := args(t, 1, 1)["filePath"]; ok {
		tool = "get_file_content"
	}
	nonEmpty := func(res *mcp.CallToolResult) error {
		if firstText(res) == "" {
			return fmt.Errorf("%s: empty reply", tool)
		}
		return nil
	}
	return &spec{calls: calls, argsFor: func(i int) map[string]any { s, e := span(i); return args(t, s, e) },
		args: args(t, s, e), check: nonEmpty, oracle: sliceCheck(tool, t, s, e, true), note: t.path}, nil
}

// hugeReadSpec: 100 lines from the middle of the 216 MB file; the expected
// lines are regenerated from the generator's seed.
func hugeReadSpec(fx *fixture) (*spec, error) {
	const start, end = 1_000_000, 1_000_099
	r := newRNG(hugeSeed)
	var want []byte
	for i := 1; i <= end; i++ {
		line := hugeLine(nil, r, i)
		if i >= start {
			want = append(want, line...)
		}
	}
	wantText := strings.TrimSuffix(string(want), "\n")
	check := func(full bool) func(*mcp.CallToolResult) error {
		return func(res *mcp.CallToolResult) error {
			var o readOut
			if err := decode(res, &o); err != nil {
				return err
			}
			if o.StartLine != start || o.EndLine != end || o.TotalLines != hugeLines || o.Truncated {
				return fmt.Errorf("lines %d–%d of %d, want %d–%d of %d", o.StartLine, o.EndLine, o.TotalLines, start, end, hugeLines)
			}
			if full && o.Content != wantText {
				return fmt.Errorf("content differs from the generated lines")
			}
			return nil
		}
	}
	return &spec{args: map[string]any{"path": hugePath, "ref": fx.head, "startLine": start, "endLine": end},
		git: []string{"cat-file", "-p", fx.head + ":" + hugePath}, check: check(false), oracle: check(true)}, nil
}

// searchSpec: search_code at the read ref against `git grep -F -i`. With
// maxResults the answer must hold exactly that many matches; without, as
// many as git finds.
func searchSpec(fx *fixture, query string, maxResults int) (*spec, error) {
	args := map[string]any{"query": query, "ref": fx.slice.rev}
	if maxResults > 0 {
		args["maxResults"] = maxResults
	}
	gitArgs := []string{"grep", "-F", "-i", "-e", query, fx.slice.rev}
	check := func(res *mcp.CallToolResult) error {
		var o searchOut
		if err := decode(res, &o); err != nil {
			return err
		}
		if maxResults > 0 && len(o.Matches) != maxResults {
			return fmt.Errorf("%d matches, want %d", len(o.Matches), maxResults)
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		if err := check(res); err != nil || maxResults > 0 {
			return err
		}
		var o searchOut
		if err := decode(res, &o); err != nil {
			return err
		}
		out, err := fx.g.output(fx.dir, "grep", "-F", "-i", "-c", "-e", query, fx.slice.rev)
		if err != nil && len(out) > 0 {
			return err
		}
		n := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var k int
			if i := strings.LastIndexByte(line, ':'); i >= 0 {
				if _, err := fmt.Sscan(line[i+1:], &k); err != nil {
					return fmt.Errorf("git grep -c: bad count in %q", line)
				}
			}
			n += k
		}
		if len(o.Matches) != n && !o.Truncated {
			return fmt.Errorf("%d matches, git grep finds %d", len(o.Matches), n)
		}
		return nil
	}
	return &spec{args: args, git: gitArgs, noMatchOK: true, check: check, oracle: oracle, note: fmt.Sprintf("query %q", query)}, nil
}

// floorSpec: the cheapest call there is (list_repositories answers from
// memory), for the cost of the MCP round trip itself over stdio on this
// machine: what the throughput of the read tools is to be compared with.
func floorSpec(calls int) *spec {
	check := func(res *mcp.CallToolResult) error {
		if !strings.Contains(firstText(res), benchRepo) {
			return fmt.Errorf("%s/%s is not listed", benchOwner, benchRepo)
		}
		return nil
	}
	return &spec{calls: calls, argsFor: func(int) map[string]any { return map[string]any{} }, args: map[string]any{}, oracle: check}
}
