package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The README stays a five-minute read.
const readmeMaxBytes = 20_000

// docPages are README.md and every page under docs/, relative to the
// repository root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		pages = append(pages, filepath.Join("docs", filepath.Base(d)))
	}
	return pages
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile("(?m)^#{1,6} +(.+?) *#*$")
	fence     = regexp.MustCompile("(?ms)^```.*?^```")
)

// anchors are the GitHub anchors of a Markdown file's headings: lower case,
// punctuation but '-' and '_' dropped, spaces to '-', a repeat numbered.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range mdHeading.FindAllStringSubmatch(fence.ReplaceAllString(md, ""), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// Every relative link of README.md and docs/ names a file that exists and,
// with a #fragment, a heading of it.
func TestDocLinksResolve(t *testing.T) {
	for _, page := range docPages(t) {
		data, err := os.ReadFile(filepath.Join("../..", page))
		if err != nil {
			t.Fatal(err)
		}
		text := fence.ReplaceAllString(string(data), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			body, err := os.ReadFile(filepath.Join("../..", path))
			if err != nil {
				t.Errorf("%s: link %q: %v", page, target, err)
				continue
			}
			if frag != "" && !anchors(string(body))[frag] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", page, target, path, frag)
			}
		}
	}
}

// README.md stays under readmeMaxBytes.
func TestReadmeIsShort(t *testing.T) {
	fi, err := os.Stat("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > readmeMaxBytes {
		t.Fatalf("README.md is %d bytes, over %d: move the detail to docs/", fi.Size(), readmeMaxBytes)
	}
}

// readmeCommand finds the server's command lines in the README: the binary
// (or go run of it) followed by a command and its arguments.
var readmeCommand = regexp.MustCompile(`(?:mcp-repo-tools|go run \./cmd/mcp-repo-tools) (serve|call|tools)((?: +[^ \n#|` + "`" + `]+)*)`)

// Every flag the README's command lines use is one the command knows, as
// `serve --help` lists them: a renamed flag cannot leave the README stale.
func TestReadmeCommandLinesParse(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ") // continued lines
	found := 0
	for _, m := range readmeCommand.FindAllStringSubmatch(text, -1) {
		var o options
		fs := newFlagSet(m[1], &o, m[1] == "serve")
		if m[1] == "call" || m[1] == "tools" {
			fs.Bool("json", false, "")
		}
		fs.SetOutput(io.Discard)
		found++
		for _, arg := range strings.Fields(m[2]) {
			if !strings.HasPrefix(arg, "--") || arg == "--" {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
			// The Inspector's own options follow the server's command.
			if strings.HasPrefix(name, "method") || strings.HasPrefix(name, "tool-") {
				break
			}
			if fs.Lookup(name) == nil {
				t.Errorf("README.md: %q uses --%s, which %s does not know", strings.TrimSpace(m[0]), name, m[1])
			}
		}
	}
	if found < 5 {
		t.Fatalf("only %d command lines found in README.md", found)
	}
}

// No page keeps a merge's conflict markers (docs/clients.md once did: a
// merge was committed with both sides of two paragraphs in it).
func TestDocsHaveNoConflictMarkers(t *testing.T) {
	marker := regexp.MustCompile(`(?m)^(<{7} |={7}$|>{7} )`)
	for _, page := range docPages(t) {
		data, err := os.ReadFile(filepath.Join("../..", page))
		if err != nil {
			t.Fatal(err)
		}
		if loc := marker.FindIndex(data); loc != nil {
			t.Errorf("%s: a merge's conflict marker at byte %d: %q", page, loc[0], data[loc[0]:loc[1]])
		}
	}
}
