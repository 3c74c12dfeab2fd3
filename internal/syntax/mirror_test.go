//go:build cgo

package syntax

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The mirrors of the large repositories, where this machine has
// them (CI does not: it compares this module's own files instead).
const (
	prometheusMirror = "/work/.mirror/prometheus+prometheus/repo"
	gitMirror        = "/work/.mirror/git+git/repo"
)

// blobs reads paths at HEAD of a bare repository, through one git
// cat-file --batch.
func blobs(t *testing.T, repo string, paths []string) map[string][]byte {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", repo, "cat-file", "--batch")
	var in bytes.Buffer
	for _, p := range paths {
		fmt.Fprintf(&in, "HEAD:%s\n", p)
	}
	cmd.Stdin = &in
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	files := map[string][]byte{}
	for _, p := range paths {
		header, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 {
			t.Fatalf("%s: %q", p, header)
		}
		n, _ := strconv.Atoi(fields[2])
		data := make([]byte, n+1)
		if _, err := io.ReadFull(r, data); err != nil {
			t.Fatal(err)
		}
		files[p] = data[:n]
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return files
}

// lsTree lists HEAD's files of repo that match re.
func lsTree(t *testing.T, repo string, re *regexp.Regexp) []string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", repo, "ls-tree", "-r", "--name-only", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if re.MatchString(p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// goCorpus is up to n .go files spread over prometheus, or this module's
// own when the mirror is absent.
func goCorpus(t *testing.T, n int) (string, map[string][]byte) {
	if _, err := os.Stat(prometheusMirror); err == nil {
		paths := lsTree(t, prometheusMirror, regexp.MustCompile(`\.go$`))
		var pick []string
		for i := range min(n, len(paths)) {
			pick = append(pick, paths[i*len(paths)/min(n, len(paths))])
		}
		return "prometheus", blobs(t, prometheusMirror, pick)
	}
	out, err := exec.Command("git", "-C", "../..", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("no prometheus mirror, and git ls-files: %v", err)
	}
	files := map[string][]byte{}
	for _, p := range strings.Fields(string(out)) {
		data, err := os.ReadFile(filepath.Join("../..", p))
		if err == nil && len(files) < n {
			files[p] = data
		}
	}
	return "this module", files
}

// The "outlines and definitions equal an independent parser's":
// tree-sitter's Go against go/parser's, file by file, and the identifiers
// of each file's first symbols.
func TestGoOutlineMatchesGoParser(t *testing.T) {
	where, files := goCorpus(t, 400)
	ctx := context.Background()
	var compared, skipped, symbols, mismatches, names, refs, refMismatches int
	for _, p := range slices.Sorted(maps.Keys(files)) {
		src := files[p]
		got, err := Outline(ctx, p, src)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		want, _, _ := goAnalyze(ctx, src, "")
		if got.Errors > 0 || want.Errors > 0 {
			skipped++ // the parsers recover from errors differently
			continue
		}
		compared++
		symbols += len(want.Symbols)
		if g, w := symbolStrings(got.Symbols), symbolStrings(want.Symbols); !slices.Equal(g, w) {
			mismatches++
			t.Errorf("%s:\n tree-sitter %q\n  go/parser %q", p, diffOnly(g, w), diffOnly(w, g))
		}
		ask := []string{"err"}
		for _, s := range want.Symbols {
			if len(ask) < 3 && !slices.Contains(ask, s.Name) {
				ask = append(ask, s.Name)
			}
		}
		for _, name := range ask {
			names++
			gr, _, err := Identifiers(ctx, p, src, name)
			if err != nil {
				t.Fatal(err)
			}
			_, wr, _ := goAnalyze(ctx, src, name)
			refs += len(wr)
			if g, w := refStrings(gr), refStrings(wr); !slices.Equal(g, w) {
				refMismatches++
				t.Errorf("%s, identifiers %q:\n tree-sitter %q\n  go/parser %q", p, name, diffOnly(g, w), diffOnly(w, g))
			}
		}
	}
	t.Logf("%s: %d files compared (%d symbols, %d outline mismatches), %d skipped for syntax errors; %d names' identifiers compared (%d refs, %d mismatches)",
		where, compared, symbols, mismatches, skipped, names, refs, refMismatches)
	if compared < 50 {
		t.Errorf("only %d files compared", compared)
	}
}

// diffOnly is what a holds and b does not.
func diffOnly(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// braceEnd is the line of the brace closing the first '{' from line on,
// braces in comments, strings and chars aside: a reader's check of where
// a C function ends.
func braceEnd(src []byte, line int) int {
	i, l := 0, 1
	for ; l < line && i < len(src); i++ {
		if src[i] == '\n' {
			l++
		}
	}
	depth := 0
	for ; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\n':
			l++
		case c == '"' || c == '\'':
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			for i += 2; i+1 < len(src) && (src[i] != '*' || src[i+1] != '/'); i++ {
				if src[i] == '\n' {
					l++
				}
			}
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return l
			}
		}
	}
	return -1
}

// Every cmd_* function of git's builtin/*.c, found at its signature's
// line and ending at its closing brace; every function of those files
// ending where a brace matcher says; nearly every function body in one
// (a macro the grammar cannot know may cost one); and builtin.h's
// prototypes are not definitions.
func TestGitBuiltins(t *testing.T) {
	if _, err := os.Stat(gitMirror); err != nil {
		t.Skip("no git mirror")
	}
	paths := lsTree(t, gitMirror, regexp.MustCompile(`^builtin/[^/]+\.c$|^builtin\.h$`))
	files := blobs(t, gitMirror, paths)
	sig := regexp.MustCompile(`(?m)^int (cmd_[a-z0-9_]+)\(`)
	ctx := context.Background()
	var commands, found, functions, ends, bodies, held, withErrors int
	for _, p := range paths {
		src := files[p]
		f, err := Outline(ctx, p, src)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if f.Errors > 0 {
			withErrors++
		}
		if p == "builtin.h" {
			protos := len(sig.FindAll(src, -1))
			for _, s := range f.Symbols {
				if s.Kind == "function" {
					t.Errorf("builtin.h: a prototype as a definition: %+v", s)
				}
			}
			t.Logf("builtin.h: %d cmd_* prototypes, none a definition", protos)
			continue
		}
		for _, m := range sig.FindAllSubmatchIndex(src, -1) {
			commands++
			name := string(src[m[2]:m[3]])
			line := bytes.Count(src[:m[0]], []byte("\n")) + 1
			want := fmt.Sprintf("function %s  %d-%d", name, line, braceEnd(src, line))
			got := "none" // of the symbols of that name, the one at that line
			for _, s := range f.Symbols {
				if s.Name == name && (got == "none" || s.StartLine == line) {
					got = fmt.Sprintf("%s %s %s %d-%d", s.Kind, s.Name, s.Container, s.StartLine, s.EndLine)
				}
			}
			if got == want {
				found++
			} else {
				t.Errorf("%s: %s, want %s", p, got, want)
			}
		}
		lines := strings.Split(string(src), "\n")
		for i, l := range lines {
			// git's style: a body's brace alone at column 0, below its
			// signature's closing parenthesis.
			if l != "{" || i == 0 || !strings.HasSuffix(strings.TrimSpace(lines[i-1]), ")") {
				continue
			}
			bodies++
			if slices.ContainsFunc(f.Symbols, func(s Symbol) bool { return s.Kind == "function" && s.StartLine <= i && i+1 <= s.EndLine }) {
				held++
			} else {
				t.Logf("%s:%d: a body in no function", p, i+1)
			}
		}
		for _, s := range f.Symbols {
			if s.Kind == "function" {
				functions++
				if e := braceEnd(src, s.StartLine); e == s.EndLine {
					ends++
				} else {
					t.Errorf("%s: %s %d-%d; the braces end at %d", p, s.Name, s.StartLine, s.EndLine, e)
				}
			}
		}
	}
	t.Logf("git builtin/*.c: %d of %d cmd_* functions exact; %d of %d functions end at their closing brace; %d of %d bodies at column 0 in a function; %d of %d files with syntax errors (git's macros: UNUSED, NORETURN, for_each_*)",
		found, commands, ends, functions, held, bodies, withErrors, len(paths)-1)
	if commands < 100 || held < bodies*99/100 {
		t.Errorf("only %d cmd_* functions, %d of %d bodies in a function", commands, held, bodies)
	}
}
