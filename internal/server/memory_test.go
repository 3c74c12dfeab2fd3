package server

import (
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Reading a slice of a large file streams it: what is allocated follows
// what is returned, not the file's size.
func TestLargeFileSliceMemoryStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB file")
	}
	r := testrepo.New(t)
	line := strings.Repeat("0123456789", 9) + "\n" // 91 bytes
	r.Write("huge.txt", strings.Repeat(line, 40<<20/len(line)))
	r.Commit("huge")
	h := serve(t, r)
	const size = 40 << 20

	calls := []struct {
		name string
		args map[string]any
	}{
		{"get_file_content", fileArgs("huge.txt", "start_line", 10, "end_line", 20)},
		{"read_file", args("path", "huge.txt", "ref", "main", "startLine", 10, "endLine", 20)},
		{"read_file", args("path", "huge.txt", "startLine", 10, "endLine", 20)}, // work tree
		{"get_file_content", fileArgs("huge.txt")},                              // TOO_LARGE, after counting lines
	}
	for _, c := range calls {
		h.call(c.name, c.args) // warm the cat-file reader
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := h.call(c.name, c.args)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes allocated", c.name, alloc)
		if alloc > size/10 {
			t.Errorf("%s(%v) allocated %d bytes for a %d-byte file", c.name, c.args, alloc, size)
		}
		if c.args["end_line"] != nil && textOf(res) != strings.Repeat(line, 11)[:11*len(line)-1] {
			t.Errorf("%s: wrong slice", c.name)
		}
	}
}
