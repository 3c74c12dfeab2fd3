package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

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
			drain(t, h, "get_diff", args("base", base, "head", head))
		})
	}
}
