//go:build unix

package server

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// The read path through the whole server (in-memory transport): what one
// small slice of a file costs, sequentially.
func BenchmarkReadPath(b *testing.B) {
	h := serve(b, benchRepo(b))
	b.Run("read_file at a ref", func(b *testing.B) {
		benchCall(b, h.cs, "read_file", args("path", "pkg/file.go", "ref", "main", "startLine", 200, "endLine", 299))
	})
	b.Run("get_file_content", func(b *testing.B) {
		benchCall(b, h.cs, "get_file_content", fileArgs("pkg/file.go", "ref", "main", "start_line", 200, "end_line", 299))
	})
	b.Run("list_repositories (the floor)", func(b *testing.B) {
		benchCall(b, h.cs, "list_repositories", args())
	})
}

func benchCall(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any) {
	b.ReportAllocs()
	cpu := processCPU(b)
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time the process has used, user and system: on a
// shared machine a steadier measure of work than the time a call takes.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// What a reply of about 60 KB costs: the handler alone, and the whole
// round trip through the go-sdk on both ends (in-memory transport). The
// difference is the SDK's encoding and decoding of the result: most of
// what a diff part costs once it is cut ahead (BENCHMARKS.md, paging).
func BenchmarkLargeReply(b *testing.B) {
	r := testrepo.New(b)
	r.Write("big.go", strings.Repeat("\tfmt.Println(\"a line of source code of a typical length\", i)\n", 1000))
	r.Commit("big")
	h := serve(b, r, withTextOnly())
	in := readFileIn{Path: "big.go", Ref: "main", StartLine: 1, EndLine: 1000}
	b.Run("handler", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rep, err := h.server.readFile(context.Background(), in)
			if err != nil {
				b.Fatal(err)
			}
			h.server.calls.ResultSize(h.server.calls.Result(rep.Wire()))
		}
	})
	b.Run("round trip", func(b *testing.B) {
		benchCall(b, h.cs, "read_file", args("path", in.Path, "ref", in.Ref, "startLine", 1, "endLine", 1000))
	})
}

// The handler alone, without MCP: what is ours of the read path.
func BenchmarkReadFileHandler(b *testing.B) {
	s := serve(b, benchRepo(b)).server
	in := readFileIn{Path: "pkg/file.go", Ref: "main", StartLine: 200, EndLine: 299}
	b.ReportAllocs()
	for b.Loop() {
		rep, err := s.readFile(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		s.calls.ResultSize(s.calls.Result(rep.Wire()))
	}
}

// benchRepo has pkg/file.go, 600 lines of typical source.
func benchRepo(b *testing.B) *testrepo.Repo {
	r := testrepo.New(b)
	r.Write("pkg/file.go", strings.Repeat("\tfmt.Println(\"a line of source code of a typical length\", i)\n", 600))
	r.Commit("file")
	return r
}

// A later part of a large diff, cut from the patch cache: what a part
// costs beside git's diff.
func BenchmarkDiffPartFromCache(b *testing.B) {
	r := testrepo.New(b)
	var old, edited strings.Builder
	for i := range 40000 {
		line := fmt.Sprintf("\tvalue%d := compute(%d) // a line of source code of a typical length\n", i, i)
		old.WriteString(line)
		if i%3 == 0 {
			line = "\t// changed\n" + line
		}
		edited.WriteString(line)
	}
	r.Write("big.go", old.String())
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("big.go", edited.String())
	r.Commit("feature")
	h := serve(b, r, withTextOnly())
	res := h.call("get_diff", args("base", "main", "head", "feature"))
	next := res.Meta[paging.MetaKeyNext].(map[string]any)["arguments"].(map[string]any)
	benchCall(b, h.cs, "get_diff", next)
	if h.server.diffs.Hits() < int64(b.N) {
		b.Fatalf("%d parts cut from the cache of %d", h.server.diffs.Hits(), b.N)
	}
}
