package server

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// ourLineShape is what a line the server writes looks like when it is a
// header, a note or a section's heading: "Key: " (a word or two), "[…",
// "--- word ".
var ourLineShape = regexp.MustCompile(`^([A-Z][A-Za-z]*( [a-z]+)?: |\[|--- [a-z]+ )`)

// TestOpenersAreOurs: the framing rule's openers (text.ReadsAsOurs: the
// bracket lines' shape, text.HeaderKeys, the section headings) cover every
// line of that shape the tools write in every golden reply, so that the
// rule cannot fall behind a new header or note (docs/security.md, review 3,
// item 3). A golden line framed with text.Mark is repository text.
func TestOpenersAreOurs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*", "*.txt"))
	if err != nil || len(files) < 50 {
		t.Fatalf("golden files: %d, %v", len(files), err)
	}
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		body, ok := strings.CutPrefix(string(data)[strings.Index(string(data), "-- text --\n")+1:], "- text --\n")
		if !ok {
			continue
		}
		if i := strings.Index(body, "\n-- structuredContent"); i >= 0 {
			body = body[:i]
		}
		for _, line := range strings.Split(body, "\n") {
			if !ourLineShape.MatchString(line) {
				continue
			}
			seen++
			if !text.ReadsAsOurs(line) {
				t.Errorf("%s: the server's line %q is not one of the framing rule's openers (text.HeaderKeys, the bracket shape)", f, line)
			}
		}
	}
	if seen < 100 {
		t.Errorf("only %d of the server's lines checked", seen)
	}
}
