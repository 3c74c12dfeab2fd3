package server

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// nextOf is the next call a result carries in _meta, or nil.
func nextOf(t *testing.T, res *mcp.CallToolResult) *paging.Call {
	t.Helper()
	raw, ok := res.Meta[paging.MetaKeyNext]
	if !ok {
		return nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	var n paging.Call
	if err := json.Unmarshal(data, &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

// drain calls tool and follows the next calls to the end, and returns each
// part's patch: its text without the header line and the bracketed notes
// and next line after it. The text's last line must say the next call.
func drain(t *testing.T, h *harness, tool string, args map[string]any) []string {
	t.Helper()
	var parts []string
	for call, res := range drainResults(t, h, tool, args) {
		text := textOf(res)
		parts = append(parts, patchOf(text))
		next := nextOf(t, res)
		if next == nil {
			if strings.Contains(text, "Next part:") {
				t.Fatalf("part %d says there is a next part but _meta has none", call)
			}
			continue
		}
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		data := paging.PlainJSON(next.Arguments)
		if last := lines[len(lines)-1]; next.Tool != tool || !strings.Contains(last, data) {
			t.Fatalf("part %d: the last line does not say the next call %s: %q", call, data, last)
		}
	}
	return parts
}

// patchOf is the patch in a part's text: after the header line (a whole
// diff that fits has none), before the notes.
func patchOf(text string) string {
	if !strings.HasPrefix(text, "diff --git ") {
		_, text, _ = strings.Cut(text, "\n")
	}
	lines := strings.SplitAfter(text, "\n")
	end := len(lines)
	// A patch has no empty line (an empty context line is " "): one
	// separates the notes toolcall adds.
	for end > 0 && (strings.HasPrefix(lines[end-1], "[") || lines[end-1] == "" || lines[end-1] == "\n") {
		end--
	}
	return strings.Join(lines[:end], "")
}

// checkJoined: the parts, put together, are git's patch byte for byte, and
// it applies.
func checkJoined(t *testing.T, parts []string, want string) {
	t.Helper()
	bs := make([][]byte, len(parts))
	for i, p := range parts {
		bs[i] = []byte(p)
	}
	joined, err := diff.Join(bs...)
	if err != nil {
		t.Fatalf("joining %d parts: %v", len(parts), err)
	}
	if string(joined) != want {
		t.Fatalf("%d parts joined differ from git's patch (%d bytes vs %d)", len(parts), len(joined), len(want))
	}
	f := filepath.Join(t.TempDir(), "joined.patch")
	if err := os.WriteFile(f, joined, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "apply", "--stat", f).CombinedOutput(); err != nil {
		t.Fatalf("git does not read the joined patch: %v\n%s", err, out)
	}
}

// contextLines=0 stays in the next call: left out, it would read back as
// the default 3 and the cursor would not match.
func TestGetDiffNextKeepsContextLinesZero(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", strings.Repeat("line\n", 2000))
	base := r.Commit("base")
	r.Write("a.txt", strings.Repeat("line changed\nline\n", 1000))
	head := r.Commit("head")
	h := serve(t, r, withMaxBytes(16384), withTextOnly())
	parts := drain(t, h, "get_diff", map[string]any{"base": base, "head": head, "contextLines": 0})
	if len(parts) < 2 {
		t.Fatalf("%d parts", len(parts))
	}
	checkJoined(t, parts, r.Git("diff", "-M", "-U0", base, head))
}

// A file too large for git to diff within the memory cap is named, with
// the read_file call that reads it, and the rest of the diff still comes:
// a 216 MB added file made the whole range unreadable.
func TestGetDiffFileTooLargeToDiffIsNamed(t *testing.T) {
	defer func(was int64) { paging.MaxDiffBlob = was }(paging.MaxDiffBlob)
	paging.MaxDiffBlob = 4000
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	base := r.Commit("base")
	r.Write("a.txt", "a\nb\n")
	r.Write("m-huge.txt", strings.Repeat("0123456789abcdef\n", 1000))
	r.Write("z.txt", "z\n")
	head := r.Commit("huge")
	h := serve(t, r, withTextOnly())
	text := h.ok("get_diff", map[string]any{"base": base, "head": head})
	if !strings.Contains(text, "[not diffed: m-huge.txt is 17000 bytes") || !strings.Contains(text, `read_file {"path":"m-huge.txt","ref":"`+head) {
		t.Fatalf("the huge file is not named with a way to read it:\n%s", text)
	}
	checkJoined(t, drain(t, h, "get_diff", map[string]any{"base": base, "head": head}), r.Git("diff", "-M", base, head, "--", "a.txt", "z.txt"))
}
