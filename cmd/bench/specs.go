package main

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// diffSpec: the first part of a get_diff call. Every timed reply must
// count every file git lists and carry a patch; the first one is compared
// with git: each whole file section byte for byte, and the section a part
// boundary cuts line by line as far as it goes (its hunk headers aside, which
// a cut rewrites; the paging cases check those by joining every part).
func diffSpec(fx *fixture, args map[string]any, gitArgs []string) *spec {
	check := func(res *mcp.CallToolResult) error { return checkDiffText(fx, resultText(res)) }
	oracle := func(res *mcp.CallToolResult) error {
		secs := sections(patchOf(resultText(res)))
		for i, sec := range secs {
			if i >= len(fx.changes) {
				return fmt.Errorf("section %d: git lists %d files", i, len(fx.changes))
			}
			c := fx.changes[i]
			args := append([]string{"diff", "-M", fx.mergeBase, fx.head, "--"}, c.paths()...)
			if i < len(secs)-1 {
				want, err := fx.g.output(fx.dir, args...)
				if err != nil {
					return err
				}
				if sec != string(want) {
					return fmt.Errorf("%s: section differs from git's (%d vs %d bytes)", c.path, len(sec), len(want))
				}
				continue
			}
			if err := fx.g.samePrefix(fx.dir, sec, args...); err != nil {
				return fmt.Errorf("%s: %w", c.path, err)
			}
		}
		return nil
	}
	return &spec{args: args, git: gitArgs, check: check, oracle: oracle}
}

// changedFilesSpec: the first page of list_changed_files over base...head
// (500 files by default) against `git diff --numstat -M` of the whole
// range, which is what an agent would otherwise run.
func changedFilesSpec(fx *fixture) (*spec, error) {
	check := func(res *mcp.CallToolResult) error {
		total, files, err := changedFilesText(resultText(res))
		if err != nil {
			return err
		}
		// The first page: up to limit (500) entries, fewer when the reply
		// limit is reached first.
		if total != len(fx.changes) || len(files) == 0 || len(files) > min(500, len(fx.changes)) {
			return fmt.Errorf("%d of %d files listed, git lists %d", len(files), total, len(fx.changes))
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		if err := check(res); err != nil {
			return err
		}
		_, files, err := changedFilesText(resultText(res))
		if err != nil {
			return err
		}
		counts, err := numstat(fx)
		if err != nil {
			return err
		}
		for i, f := range files {
			c := fx.changes[i]
			old := ""
			if c.oldPath != c.path {
				old = c.oldPath
			}
			if f.path != c.path || f.oldPath != old || f.status != statusName(c.status) || f.counts != counts[i] {
				return fmt.Errorf("file %d is %s %s %s (from %q), git has %c %s %s (from %q)", i, f.status, f.counts, f.path, f.oldPath,
					c.status, counts[i], c.path, old)
			}
		}
		return nil
	}
	return &spec{args: map[string]any{"base": fx.base, "head": fx.head}, git: []string{"diff", "--numstat", "-M", fx.mergeBase, fx.head},
		check: check, oracle: oracle, note: fmt.Sprintf("%d files", len(fx.changes))}, nil
}

// numstat is `git diff --numstat -M` of the range, each file's counts as
// list_changed_files writes them ("+a -d", or "binary").
func numstat(fx *fixture) ([]string, error) {
	out, err := fx.g.output(fx.dir, "diff", "--numstat", "-z", "-M", fx.mergeBase, fx.head)
	if err != nil {
		return nil, err
	}
	toks := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var counts []string
	for i := 0; i < len(toks); i++ {
		f := strings.SplitN(toks[i], "\t", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("bad numstat record %q", toks[i])
		}
		if f[2] == "" { // a rename: old and new paths follow
			i += 2
		}
		if f[0] == "-" {
			counts = append(counts, "binary")
		} else {
			counts = append(counts, "+"+f[0]+" -"+f[1])
		}
	}
	if len(counts) != len(fx.changes) {
		return nil, fmt.Errorf("numstat lists %d files, --raw %d", len(counts), len(fx.changes))
	}
	return counts, nil
}

// prFileSpec: get_pull_request_diff of one file of PR #1; the answer must
// be git's section byte for byte.
func prFileSpec(fx *fixture, c change, gitArgs []string) (*spec, error) {
	header := "diff --git a/" + c.oldPath + " b/" + c.path + "\n"
	check := func(res *mcp.CallToolResult) error {
		if t := resultText(res); !strings.HasPrefix(t, header) {
			return fmt.Errorf("reply does not start with %q: %.80q", header, t)
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		want, err := fx.g.output(fx.dir, gitArgs...)
		if err != nil {
			return err
		}
		if got := resultText(res); got != string(want) {
			return fmt.Errorf("section differs from git's (%d vs %d bytes)", len(got), len(want))
		}
		return nil
	}
	return &spec{args: map[string]any{"owner": benchOwner, "repo": benchRepo, "index": 1, "file_path": c.path},
		git: gitArgs, check: check, oracle: oracle, note: c.path}, nil
}

// sliceCheck checks a read of t's lines start..end: read_file's text
// (header line, then the lines), or get_file_content's text (the lines).
func sliceCheck(tool string, t textFile, start, end int, full bool) func(*mcp.CallToolResult) error {
	want := strings.Join(t.lines[start-1:end], "\n")
	return func(res *mcp.CallToolResult) error {
		if tool == "get_file_content" {
			if got := resultText(res); (full && got != want) || got == "" {
				return fmt.Errorf("get_file_content: %d bytes, want %d", len(got), len(want))
			}
			return nil
		}
		s, e, total, body, err := readText(res)
		if err != nil {
			return err
		}
		if s != start || e != end || total != t.totalLines() {
			return fmt.Errorf("read_file: lines %d–%d of %d, want %d–%d of %d", s, e, total, start, end, t.totalLines())
		}
		if full && body != asRendered(want) {
			return fmt.Errorf("read_file: content differs from git's (%d vs %d bytes)", len(body), len(asRendered(want)))
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
		if resultText(res) == "" {
			return fmt.Errorf("%s: empty reply", tool)
		}
		return nil
	}
	return &spec{calls: calls, argsFor: func(i int) map[string]any { s, e := span(i); return args(t, s, e) },
		args: args(t, s, e), check: nonEmpty, oracle: sliceCheck(tool, t, s, e, true), note: t.path}, nil
}

// hugeDiffSpec: the huge range's diff in one reply, against git diff of
// the whole range. The 216 MB file is larger than a git diff may be given
// (the server's maxDiffBlob): the reply must name it, with its size and the
// read_file call that reads it, and hold every other file's section as git
// prints it.
func hugeDiffSpec(fx *fixture) (*spec, error) {
	size, err := fx.g.output(fx.dir, "cat-file", "-s", fx.head+":"+hugePath)
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("[not diffed: %s is %s bytes, too large for git to diff", hugePath, strings.TrimSpace(string(size)))
	check := func(res *mcp.CallToolResult) error {
		text := resultText(res)
		if err := checkDiffText(fx, text); err != nil {
			return err
		}
		if !strings.Contains(text, note) || !strings.Contains(text, `read_file {"path":"`+hugePath+`"`) {
			return fmt.Errorf("the reply does not name %s as too large to diff, with a read_file call", hugePath)
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		var others []string
		for _, c := range fx.changes {
			if c.path != hugePath {
				others = append(others, c.paths()...)
			}
		}
		want, err := fx.g.output(fx.dir, append([]string{"diff", "-M", fx.mergeBase, fx.head, "--"}, others...)...)
		if err != nil {
			return err
		}
		if got := patchOf(resultText(res)); got != string(want) {
			return fmt.Errorf("the other files' patch differs from git's (%d vs %d bytes)", len(got), len(want))
		}
		return nil
	}
	return &spec{args: map[string]any{"base": fx.base, "head": fx.head}, git: []string{"diff", fx.base, fx.head},
		check: check, oracle: oracle, note: "git diffs the 216 MB file; the server names it"}, nil
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
	wantText := string(want)
	check := func(full bool) func(*mcp.CallToolResult) error {
		return func(res *mcp.CallToolResult) error {
			s, e, total, body, err := readText(res)
			if err != nil {
				return err
			}
			if s != start || e != end || total != hugeLines {
				return fmt.Errorf("lines %d–%d of %d, want %d–%d of %d", s, e, total, start, end, hugeLines)
			}
			if full && body != wantText {
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
		n, _, err := searchText(resultText(res))
		if err != nil {
			return err
		}
		if maxResults > 0 && n != maxResults {
			return fmt.Errorf("%d matches, want %d", n, maxResults)
		}
		return nil
	}
	oracle := func(res *mcp.CallToolResult) error {
		if err := check(res); err != nil || maxResults > 0 {
			return err
		}
		got, more, err := searchText(resultText(res))
		if err != nil {
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
		if got != n && !more {
			return fmt.Errorf("%d matches, git grep finds %d", got, n)
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
		if !strings.Contains(resultText(res), benchRepo) {
			return fmt.Errorf("%s/%s is not listed", benchOwner, benchRepo)
		}
		return nil
	}
	return &spec{calls: calls, argsFor: func(int) map[string]any { return map[string]any{} }, args: map[string]any{}, oracle: check}
}
