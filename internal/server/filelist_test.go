package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// A tally of more files than its message can show says once, and exactly,
// how many it left out, with sizes (longer items) or without.
func TestFileTallySaysHowManyAreLeftOut(t *testing.T) {
	for _, withSize := range []bool{false, true} {
		tally := fileTally{room: 600}
		for i := range 1000 {
			tally.add(fmt.Sprintf("f%d", i%10), int64(1)<<60+int64(i), withSize)
		}
		got := tally.String()
		shown := strings.Count(got, ", ") + 1
		want := fmt.Sprintf("; and %d more (list_pull_request_files lists them all)", 1000-shown)
		if strings.Count(got, "more (") != 1 || !strings.HasSuffix(got, want) || len(got) > 600 {
			t.Errorf("sizes %v: %d bytes, %q", withSize, len(got), got)
		}
	}
}

// A list cut in a part's notes (hidden, test, generated files) says how
// many more there are and names no call: those files are in the part, and
// get_diff's or get_commit's reply is not list_pull_request_files'.
func TestFileListInNotesNamesNoCall(t *testing.T) {
	names := make([]string, 200)
	for i := range names {
		names[i] = fmt.Sprintf("src/generated/file_%03d.pb.go", i)
	}
	got := paging.FileList(names, nil, len(names), 300, "")
	shown := strings.Count(got, ", ") + 1
	if want := fmt.Sprintf("; and %d more", len(names)-shown); !strings.HasSuffix(got, want) || strings.Contains(got, "lists them") {
		t.Errorf("%q", got)
	}
}
