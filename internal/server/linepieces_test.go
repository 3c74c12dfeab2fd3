package server

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// longLineFile is a file of 40 lines whose 21st is 35,000 bytes of
// characters of 1 to 4 bytes ("[" among them), committed in r.
func longLineFile(t *testing.T) (r *testrepo.Repo, content, long, commit string) {
	r = testrepo.New(t)
	lines := strings.SplitAfter(numberedLines(40), "\n")
	long = strings.Repeat("é€😀x[", 35_000/11)
	lines[20] = long + "\n"
	content = strings.Join(lines, "")
	r.Write("a.txt", content)
	commit = r.Commit("a long line")
	return r, content, long, commit
}

// joinLineParts puts the lines of the parts of read_file, read_job_log or
// get_file_content back together by the joining rule (docs/contracts.md):
// each part's lines after its header line (skip 1; get_file_content has
// none) up to its next call, a marker line dropped, and the piece after a
// marker that ends "; goes on in the next part]" joined to the next
// piece without its line feed.
func joinLineParts(t *testing.T, parts []string, skip int) string {
	t.Helper()
	var b strings.Builder
	open := false // the last piece goes on
	for i, part := range parts {
		lines := strings.SplitAfter(part, "\n")[skip:]
		joinNext := false
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "[partial reply]"), l == "":
			case strings.HasPrefix(l, text.PieceOpener):
				if strings.Contains(l, text.PieceFrom) != open {
					t.Fatalf("part %d: marker %q does not follow the part before", i, l)
				}
				joinNext = strings.HasSuffix(l, text.PieceMore)
				open = joinNext
			case joinNext:
				b.WriteString(strings.TrimSuffix(l, "\n"))
				joinNext = false
			default:
				b.WriteString(l)
			}
		}
	}
	return b.String()
}

// withinClient fails when res is over what the client named takes whole.
func withinClient(t *testing.T, client string, i int, res *mcp.CallToolResult) {
	t.Helper()
	for _, r := range clientRules {
		if r.name == client {
			if cut := r.cuts(res, 0); cut != "" {
				t.Fatalf("part %d: %s", i, cut)
			}
			return
		}
	}
	if n := len(wireJSON(res.Content, false)); n > 8000 {
		t.Fatalf("part %d: %d bytes of content, over 8,000", i, n)
	}
}

// A line of 35,000 bytes, of characters of 1 to 4 bytes, comes in pieces
// in read_file at 8,000 bytes: no reply is over, none fails, no character
// is split, and the replies joined are git's file, the line included.
func TestReadFileLongLineComesInPieces(t *testing.T) {
	r, _, long, commit := longLineFile(t)
	want := r.Git("show", commit+":a.txt")
	for _, client := range []string{"an-unknown-client", "Visual Studio Code", "codex-mcp-client"} {
		t.Run(client, func(t *testing.T) {
			h := serveAs(t, r, client, nil)
			var parts []string
			pieces := 0
			for i, res := range drainResults(t, h, "read_file", args("path", "a.txt", "ref", commit)) {
				withinClient(t, client, i, res)
				p := textOf(res)
				if !utf8.ValidString(p) || strings.Contains(p, "\uFFFD") {
					t.Fatalf("part %d splits a character", i)
				}
				pieces += strings.Count(p, "\n"+text.PieceOpener)
				parts = append(parts, p)
			}
			if pieces < 3 {
				t.Fatalf("%d pieces in %d parts", pieces, len(parts))
			}
			if got := joinLineParts(t, parts, 1); got != want {
				t.Fatalf("%d parts joined differ from git's file (%d bytes, want %d)", len(parts), len(got), len(want))
			}
			t.Logf("%d parts, %d pieces of a %d-byte line", len(parts), pieces, len(long))
		})
	}
}
