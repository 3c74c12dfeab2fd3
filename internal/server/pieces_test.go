package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// vfsdataRepo is a repository whose one commit changes a generated Go file
// shaped like prometheus' web/ui/static/vendor/generated/assets/bundled/vfsdata/assets_vfsdata.go (pull request 4679): the
// modification times of its entries change, between long lines of escaped
// bytes, some longer than an 8,000-byte reply.
func vfsdataRepo(t *testing.T) (r *testrepo.Repo, base, head string) {
	rng := rand.New(rand.NewPCG(4679, 1))
	sizes := make([]int, 200)
	for i := range sizes {
		sizes[i] = 300 + rng.IntN(14000)
	}
	sizes[7] = 35023
	file := func(year int) string {
		var b strings.Builder
		b.WriteString("package ui\n\nvar Assets = map[string]*fileInfo{\n")
		for i, n := range sizes {
			fmt.Fprintf(&b, "\t\"/static/file%d.js\": &vfsgen۰CompressedFileInfo{\n", i)
			fmt.Fprintf(&b, "\t\tname: \"file%d.js\",\n", i)
			fmt.Fprintf(&b, "\t\tmodTime: time.Date(%d, 8, 7, 1, 31, %d, 0, time.UTC),\n", year, i)
			fmt.Fprintf(&b, "\t\tuncompressedSize: %d,\n\n", n*3)
			b.WriteString("\t\tcompressedContent: []byte(\"")
			for ; n > 0; n -= 4 {
				fmt.Fprintf(&b, "\\x%02x", rng.IntN(256))
			}
			b.WriteString("\"),\n\t},\n")
		}
		b.WriteString("}\n")
		return b.String()
	}
	r = testrepo.New(t)
	r.Write("web/ui/static/vendor/generated/assets/bundled/vfsdata/assets_vfsdata.go", file(2017))
	base = r.Commit("base")
	r.Write("web/ui/static/vendor/generated/assets/bundled/vfsdata/assets_vfsdata.go", file(2018))
	head = r.Commit("head")
	return r, base, head
}

// A part never fails to cut: prometheus' pull request 4679 drained as a
// client of 8,000 bytes made the server's own cut fail ("the tool failed
// to cut it into parts"), and every part after it was out of reach.
func TestPartNeverFailsToCut(t *testing.T) {
	r, base, head := vfsdataRepo(t)
	for _, client := range []string{"an-unknown-client", "Visual Studio Code", "codex-mcp-client"} {
		t.Run(client, func(t *testing.T) {
			h := serveAs(t, r, client, nil)
			parts := drain(t, h, "get_diff", args("base", base, "head", head))
			checkJoinedText(t, parts, r.Git("diff", "-M", base, head))
		})
	}
}

// checkJoinedText: the parts joined (diff.Join, which joins the pieces of
// a line) are git's patch byte for byte.
func checkJoinedText(t *testing.T, parts []string, want string) {
	t.Helper()
	bs := make([][]byte, len(parts))
	for i, p := range parts {
		bs[i] = []byte(p)
	}
	joined, err := diff.Join(bs...)
	if err != nil {
		t.Fatal(err)
	}
	if string(joined) != want {
		t.Fatalf("%d parts joined differ from git's patch (%d bytes, want %d)", len(parts), len(joined), len(want))
	}
}

// A line of 35,000 bytes, of characters of 1 to 4 bytes, comes in pieces
// at 8,000 bytes: no reply is over, none fails, no character is split, and
// the pieces joined are git's line.
func TestLongLineComesInPieces(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", numberedLines(40))
	base := r.Commit("base")
	lines := strings.SplitAfter(numberedLines(40), "\n")
	long := strings.Repeat("é€😀x[", 35_000/11)
	lines[20] = long + "\n"
	r.Git("checkout", "-q", "-b", "long")
	r.Write("a.txt", strings.Join(lines, ""))
	head := r.Commit("head")
	r.Git("update-ref", "refs/pull/3/head", head)
	r.Git("checkout", "-q", "main")
	want := r.Git("diff", "-M", base, head)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{{"get_diff", args("base", base, "head", head)}, {"get_pull_request_diff", prArgs(3)}} {
		t.Run(call.tool, func(t *testing.T) {
			h := serveAs(t, r, "an-unknown-client", nil)
			parts := drain(t, h, call.tool, call.args)
			if len(parts) < 4 {
				t.Fatalf("%d parts", len(parts))
			}
			for i, p := range parts {
				if !utf8.ValidString(p) || strings.Contains(p, "\uFFFD") {
					t.Fatalf("part %d splits a character", i)
				}
			}
			checkJoinedText(t, parts, want)
		})
	}
}
