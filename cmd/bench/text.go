package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server is measured as clients get it by default: text only, no
// structured content. The checks read the text, as a model would.

// metaKeyNext is where a partial reply's result carries the call that
// returns the next part (internal/paging/next.go, MetaKeyNext).
const metaKeyNext = "mcp-repo-tools/next"

// metaKeyMaxChars is where a tool declares, in tools/list, the most
// characters its result can have (Claude Code's key).
const metaKeyMaxChars = "anthropic/maxResultSizeChars"

// nextCall is the complete call that continues a partial reply.
type nextCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// nextOf is the next call a result carries in _meta, or nil at the end.
func nextOf(res *mcp.CallToolResult) (*nextCall, error) {
	raw, ok := res.Meta[metaKeyNext]
	if !ok {
		return nil, nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var n nextCall
	if err := json.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("_meta %q: %w", metaKeyNext, err)
	}
	if n.Tool == "" || n.Arguments == nil {
		return nil, fmt.Errorf("_meta %q has no tool or no arguments: %s", metaKeyNext, data)
	}
	return &n, nil
}

// patchOf is the patch in a diff part's text: after the header line (a
// whole pull request diff that fits has none), before the bracketed notes
// and the next call (internal/server/paging_test.go reads parts the same
// way).
func patchOf(text string) string {
	if !strings.HasPrefix(text, "diff --git ") {
		_, text, _ = strings.Cut(text, "\n")
	}
	lines := strings.SplitAfter(text, "\n")
	end := len(lines)
	for end > 0 && (strings.HasPrefix(lines[end-1], "[") || lines[end-1] == "") {
		end--
	}
	return strings.Join(lines[:end], "")
}

// sections splits a patch at its "diff --git" lines.
func sections(patch string) []string {
	var out []string
	for patch != "" {
		end := strings.Index(patch[1:], "\ndiff --git ")
		if end < 0 {
			out = append(out, patch)
			break
		}
		out = append(out, patch[:end+2])
		patch = patch[end+2:]
	}
	return out
}

// diffHeader is get_diff's first line: "owner/repo: diff B..H from their
// merge base M: N files changed[; this part: ...]".
var diffHeader = regexp.MustCompile(`^\S+: diff ([0-9a-f]+)\.\.([0-9a-f]+)(?: from their merge base ([0-9a-f]+))?: (\d+) files? changed`)

// checkDiffText: a get_diff reply names the merge base and counts every
// file git lists, and holds a patch.
func checkDiffText(fx *fixture, text string) error {
	m := diffHeader.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("no get_diff header line: %.120q", text)
	}
	if n, _ := strconv.Atoi(m[4]); n != len(fx.changes) {
		return fmt.Errorf("%d files changed, git lists %d", n, len(fx.changes))
	}
	if m[3] == "" || !strings.HasPrefix(fx.mergeBase, m[3]) {
		return fmt.Errorf("merge base %q, git says %s", m[3], fx.mergeBase)
	}
	if !strings.Contains(text, "\ndiff --git ") {
		return fmt.Errorf("no patch in the reply")
	}
	return nil
}

// readHeader is read_file's first line: "path (where): lines a–b of N".
var readHeader = regexp.MustCompile(`^(.*) \((?:commit [0-9a-f]+|work tree)\): lines (\d+)–(\d+) of (\d+)\n`)

// readText parses a read_file reply: its lines a..b of total, and the
// lines as the text renders them (each ended by "\n").
func readText(res *mcp.CallToolResult) (start, end, total int, body string, err error) {
	text := resultText(res)
	m := readHeader.FindStringSubmatch(text)
	if m == nil {
		return 0, 0, 0, "", fmt.Errorf("no read_file header line: %.120q", text)
	}
	start, _ = strconv.Atoi(m[2])
	end, _ = strconv.Atoi(m[3])
	total, _ = strconv.Atoi(m[4])
	next, err := nextOf(res)
	if err != nil {
		return 0, 0, 0, "", err
	}
	if next != nil {
		return 0, 0, 0, "", fmt.Errorf("read_file: lines %d–%d of %d is a partial reply", start, end, total)
	}
	return start, end, total, text[len(m[0]):], nil
}

// asRendered is lines joined with "\n" as read_file's text shows them:
// the last line ended too.
func asRendered(lines string) string {
	if lines != "" && !strings.HasSuffix(lines, "\n") {
		return lines + "\n"
	}
	return lines
}

// listedFile is one line of list_changed_files' text:
// "modified +12 -3 path (from old) [test]".
type listedFile struct {
	status, counts, path, oldPath string
}

var listedLine = regexp.MustCompile(`^(\S+)\s+(\S+(?: -\d+)?)\s+(.+?)(?: \(from (.+)\))?(?: \[test\])?$`)

// changedFilesText parses list_changed_files' text: the total from the
// header line, and the listed files.
func changedFilesText(text string) (total int, files []listedFile, err error) {
	header, rest, _ := strings.Cut(text, "\n")
	m := regexp.MustCompile(`: (\d+) files? changed`).FindStringSubmatch(header)
	if m == nil {
		return 0, nil, fmt.Errorf("no list_changed_files header line: %.120q", header)
	}
	total, _ = strconv.Atoi(m[1])
	for _, line := range strings.Split(strings.TrimSuffix(rest, "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "[") {
			continue
		}
		f := listedLine.FindStringSubmatch(line)
		if f == nil {
			return 0, nil, fmt.Errorf("unexpected listing line %q", line)
		}
		files = append(files, listedFile{status: f[1], counts: f[2], path: f[3], oldPath: f[4]})
	}
	return total, files, nil
}

// searchHeader is search_code's first line: `... in WHERE: N matches`, or
// of a part, `matches K–M shown; more follow` or `matches K–M of M`.
var searchHeader = regexp.MustCompile(`: (?:(\d+) match(?:es)?|matches (\d+)–(\d+) (shown; more follow|of \d+))\n`)

// searchText is how many matches a search_code reply shows and whether
// more follow.
func searchText(text string) (n int, more bool, err error) {
	header, _, _ := strings.Cut(text, "\n")
	m := searchHeader.FindStringSubmatch(header + "\n")
	if m == nil {
		return 0, false, fmt.Errorf("no search_code header line: %.120q", header)
	}
	if m[1] != "" {
		n, _ = strconv.Atoi(m[1])
		return n, false, nil
	}
	first, _ := strconv.Atoi(m[2])
	last, _ := strconv.Atoi(m[3])
	return last - first + 1, strings.HasPrefix(m[4], "shown"), nil
}
