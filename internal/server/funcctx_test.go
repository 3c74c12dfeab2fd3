package server

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// funcctxRepo is a base and a head that change: a line in the middle of a
// long Go function (with short functions before and after it), a line
// removed from another Go function, a line of a Python function after a
// nested def (where git's heuristic starts at the nested def), a line of
// a C function, and a line of a Markdown file (no parser: git's -W).
func funcctxRepo(t *testing.T) (r *testrepo.Repo, base, head string) {
	r = testrepo.New(t)
	long := func(changed bool) string {
		var b strings.Builder
		b.WriteString("package p\n\nfunc before() int {\n\treturn 1\n}\n\nfunc long() int {\n\tx := 0\n")
		for i := range 50 { // lines 9..58
			if changed && i == 25 {
				fmt.Fprintf(&b, "\tx -= %d\n", i)
				continue
			}
			fmt.Fprintf(&b, "\tx += %d\n", i)
		}
		b.WriteString("\treturn x\n}\n\nfunc after() int {\n\treturn 2\n}\n")
		return b.String()
	}
	shrink := func(changed bool) string {
		var b strings.Builder
		b.WriteString("package p\n\n// shrink is long.\nfunc shrink() int {\n\ty := 0\n")
		for i := range 30 {
			if changed && i == 15 {
				continue
			}
			fmt.Fprintf(&b, "\ty += %d\n", i)
		}
		b.WriteString("\treturn y\n}\n\nvar z = 1\n")
		return b.String()
	}
	nested := func(changed bool) string {
		var b strings.Builder
		b.WriteString("import os\n\n\ndef outer(a):\n    x = 1\n\n    def inner(b):\n        return b\n\n")
		for i := range 12 {
			if changed && i == 11 {
				fmt.Fprintf(&b, "    y%d = %d\n", i, i+100)
				continue
			}
			fmt.Fprintf(&b, "    y%d = %d\n", i, i)
		}
		b.WriteString("    return x\n\n\ndef other():\n    pass\n")
		return b.String()
	}
	cfile := func(changed bool) string {
		var b strings.Builder
		b.WriteString("#include <stdio.h>\n\nstatic int helper(int a)\n{\n\treturn a + 1;\n}\n\nint main(void)\n{\n\tint x = 0;\n")
		for i := range 20 {
			if changed && i == 10 {
				b.WriteString("\tx = helper(x);\n")
				continue
			}
			fmt.Fprintf(&b, "\tx += %d;\n", i)
		}
		b.WriteString("\treturn x;\n}\n")
		return b.String()
	}
	markdown := func(changed bool) string {
		var b strings.Builder
		b.WriteString("# Title\n\nintro\n\n## Section one\n\n")
		for i := range 12 {
			if changed && i == 8 {
				b.WriteString("changed text\n")
				continue
			}
			fmt.Fprintf(&b, "text %d\n", i)
		}
		b.WriteString("\n## Section two\n\nmore\n")
		return b.String()
	}
	files := map[string]func(bool) string{"long.go": long, "shrink.go": shrink, "nested.py": nested, "prog.c": cfile, "notes.md": markdown}
	for p, f := range files {
		r.Write(p, f(false))
	}
	base = r.Commit("base")
	for p, f := range files {
		r.Write(p, f(true))
	}
	head = r.Commit("head")
	return r, base, head
}

// sectionOf is the section of path in patch.
func sectionOf(t *testing.T, patch, path string) string {
	t.Helper()
	for _, sec := range strings.SplitAfter(patch, "\ndiff --git ") {
		if !strings.HasPrefix(sec, "diff --git ") {
			sec = "diff --git " + sec
		}
		sec = strings.TrimSuffix(sec, "diff --git ")
		if strings.HasPrefix(sec, "diff --git a/"+path+" ") {
			return sec
		}
	}
	t.Fatalf("no section of %s in:\n%s", path, patch)
	return ""
}

// shownLines are the old and new line numbers a section's hunks show, as
// their @@ lines count them.
func shownLines(t *testing.T, section string) (old, new []int) {
	t.Helper()
	o, n := 0, 0
	for _, l := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(l, "@@ -"):
			f := strings.Fields(l)
			o, _ = strconv.Atoi(strings.Split(f[1][1:], ",")[0])
			n, _ = strconv.Atoi(strings.Split(f[2][1:], ",")[0])
		case o == 0 && n == 0:
		case strings.HasPrefix(l, " "):
			old, new = append(old, o), append(new, n)
			o, n = o+1, n+1
		case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
			old, o = append(old, o), o+1
		case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
			new, n = append(new, n), n+1
		}
	}
	return old, new
}

func linesFromTo(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// git's own --function-context of path, with the driver the server's
// table gives it: the oracle of a file the parser does not read.
func gitFunctionContext(t *testing.T, r *testrepo.Repo, base, head, path string) string {
	attrs := filepath.Join(t.TempDir(), "attributes")
	var b strings.Builder
	for _, e := range gitexec.DiffDriverTable {
		b.WriteString(e[0] + " diff=" + e[1] + "\n")
	}
	if err := os.WriteFile(attrs, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return r.Git("-c", "core.attributesFile="+attrs, "diff", "-M", "-W", base, head, "--", path)
}

// functionContext shows each changed function whole, and nothing else
// but each change's context: by the parser's ranges where it reads the
// file (a Python function cut by git's heuristic at a nested def is
// whole), by git's --function-context elsewhere; the patch applies.
func TestFunctionContextShowsWholeFunctions(t *testing.T) {
	r, base, head := funcctxRepo(t)
	h := serve(t, r, withTextOnly())
	text := h.ok("get_diff", args("base", base, "head", head, "functionContext", true))
	patch := patchOf(text)
	treeSitter := syntax.ParserName() == "tree-sitter"
	// long.go: long() is lines 7–60; the change at 34. Nothing of
	// before() or after().
	old, new := shownLines(t, sectionOf(t, patch, "long.go"))
	if want := linesFromTo(7, 60); !slices.Equal(new, want) || !slices.Equal(old, want) {
		t.Errorf("long.go shows old %v new %v; want long(), lines 7–60", old, new)
	}
	// shrink.go: line 21 of the old shrink() (4–37) removed; not its
	// doc comment, nor the var after it.
	if old, new := shownLines(t, sectionOf(t, patch, "shrink.go")); !slices.Equal(old, linesFromTo(4, 37)) || !slices.Equal(new, linesFromTo(4, 36)) {
		t.Errorf("shrink.go shows old %v new %v; want shrink(), old lines 4–37", old, new)
	}
	if treeSitter {
		// nested.py: outer() is lines 4–22, the change at 21; git's -W
		// starts at the nested def.
		if _, new := shownLines(t, sectionOf(t, patch, "nested.py")); !slices.Equal(new, linesFromTo(4, 24)) {
			t.Errorf("nested.py shows new %v; want outer() and the change's context, lines 4–24", new)
		}
		if heuristic := gitFunctionContext(t, r, base, head, "nested.py"); strings.Contains(heuristic, "\n def outer(a):\n") {
			t.Errorf("git's heuristic shows outer() whole; the test wants a case it cuts:\n%s", heuristic)
		}
		// prog.c: main() is lines 8–32, the change at 20.
		if _, new := shownLines(t, sectionOf(t, patch, "prog.c")); !slices.Equal(new, linesFromTo(8, 32)) {
			t.Errorf("prog.c shows new %v; want main(), lines 8–32", new)
		}
		if !strings.Contains(text, "by tree-sitter's ranges in 4 files (c, go, python)") {
			t.Errorf("the note does not say which files the parser widened:\n%s", text)
		}
	}
	// notes.md: git's own --function-context, byte for byte.
	if got, want := sectionOf(t, patch, "notes.md"), gitFunctionContext(t, r, base, head, "notes.md"); got != want {
		t.Errorf("notes.md is not git's --function-context:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(text, "by git's --function-context heuristic in ") || !regexp.MustCompile(`notes\.md[^;]* \(no parser for its language in this build\)`).MatchString(text) {
		t.Errorf("the note does not say which file git's heuristic widened:\n%s", text)
	}
	// The widened patch applies to the base.
	file := filepath.Join(t.TempDir(), "widened.patch")
	if err := os.WriteFile(file, []byte(patch), 0o600); err != nil {
		t.Fatal(err)
	}
	r.Git("checkout", "-q", base)
	if out, err := r.TryGit("apply", "--check", file); err != nil {
		t.Fatalf("git apply --check of the widened patch: %v\n%s", err, out)
	}
	r.Git("checkout", "-q", head)
}

// Every diff tool widens alike (get_commit after its commit, a pull
// request whole or by file_path), in parts that join to the whole, with
// line numbers too; collapseRepeated with it is refused.
func TestFunctionContextInEveryToolAndPart(t *testing.T) {
	r, base, head := funcctxRepo(t)
	r.Git("update-ref", "refs/pull/7/head", head)
	r.Git("update-ref", "refs/heads/main", base)
	whole := patchOf(serve(t, r, withTextOnly()).ok("get_diff", args("base", base, "head", head, "functionContext", true)))
	h := serve(t, r, withMaxBytes(2500), withTextOnly())
	for _, c := range []struct {
		tool string
		a    map[string]any
	}{
		{"get_diff", args("base", base, "head", head, "functionContext", true)},
		{"get_diff", args("base", base, "head", head, "functionContext", true, "lineNumbers", true)},
		{"get_commit", args("ref", head, "functionContext", true)},
		{"get_pull_request_diff", args("index", 7, "functionContext", true)},
	} {
		res := drainResults(t, h, c.tool, c.a)
		if len(res) < 2 {
			t.Fatalf("%s: %d parts; the test wants several", c.tool, len(res))
		}
		var parts [][]byte
		for i, p := range res {
			text := textOf(p)
			if c.tool == "get_commit" && i == 0 {
				_, text, _ = strings.Cut(text, "\nPatch against ")
			}
			if !strings.Contains(text, "[note: functionContext: this part's hunks are widened to whole functions by ") {
				t.Fatalf("%s part %d does not say how it is widened:\n%s", c.tool, i, text)
			}
			part := []byte(patchOf(text))
			if c.a["lineNumbers"] == true {
				var err error
				if part, err = diff.UnnumberLines(part); err != nil {
					t.Fatal(err)
				}
			}
			parts = append(parts, part)
		}
		joined, err := diff.Join(parts...)
		if err != nil || string(joined) != whole {
			t.Fatalf("%s %v: the parts joined are not the widened diff (%v):\n%s\nwant:\n%s", c.tool, c.a, err, joined, whole)
		}
	}
	// With --structured, each file of a part is listed (the harness checks
	// every reply against the output schema).
	structured := serve(t, r).call("get_diff", args("base", base, "head", head, "functionContext", true))
	if structured.IsError || !strings.Contains(fmt.Sprint(structured.StructuredContent), "long.go") {
		t.Fatalf("--structured: %s", textOf(structured))
	}
	one := patchOf(h.ok("get_pull_request_diff", args("index", 7, "functionContext", true, "file_path", "long.go")))
	if one != sectionOf(t, whole, "long.go") {
		t.Errorf("file_path long.go is not its widened section:\n%s", one)
	}
	msg := h.fails("get_diff", args("base", base, "head", head, "functionContext", true, "collapseRepeated", true), "INVALID_ARGUMENT")
	if !strings.Contains(msg, "leave one out") {
		t.Errorf("the refusal does not say what to do: %s", msg)
	}
}

// A diff longer than functionContext makes at once is TOO_LARGE, saying
// what to do instead.
func TestFunctionContextTooLarge(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	base := r.Commit("base")
	var b strings.Builder
	for i := range maxWidenedPatch / 20 {
		fmt.Fprintf(&b, "line %d of many\n", i)
	}
	r.Write("big.txt", b.String())
	head := r.Commit("head")
	h := serve(t, r, withTextOnly())
	msg := h.fails("get_diff", args("base", base, "head", head, "functionContext", true), "TOO_LARGE")
	if !strings.Contains(msg, "leave functionContext out") || !strings.Contains(msg, "paths") {
		t.Fatalf("the error does not say what to do: %s", msg)
	}
}

// A repository's own diff attribute at the commit wins over the server's
// table: git's --function-context of a file the parser does not read is
// what git gives in a checkout of the commit, whose .gitattributes git
// reads there (the oracle), and not the table's.
func TestFunctionContextRepositoryDriverWins(t *testing.T) {
	r := testrepo.New(t)
	body := func(changed bool) string {
		var b strings.Builder
		b.WriteString("import os\n\ndef outer(a):\n    x = 1\n    def inner(b):\n        return b\n")
		for i := range 10 {
			if changed && i == 8 {
				b.WriteString("    w = 100\n")
				continue
			}
			fmt.Fprintf(&b, "    w%d = %d\n", i, i)
		}
		b.WriteString("    return x\n")
		return b.String()
	}
	const name = "odd [1]* name.inc"
	r.Write(".gitattributes", "*.inc diff=python\n")
	r.Write(name, body(false))
	base := r.Commit("base")
	r.Write(name, body(true))
	head := r.Commit("head")
	want := r.Git("diff", "-M", "-W", base, head, "--", name) // the work tree's .gitattributes: the commit's
	bare := r.CloneBare(filepath.Join(t.TempDir(), "bare.git"))
	plain := bare.Git("diff", "-M", "-W", base, head, "--", name) // no attributes read
	if want == plain {
		t.Fatalf("the python driver and git's default give the same patch; the test wants them apart:\n%s", want)
	}
	r.Write(".gitattributes", "*.inc diff=cpp\n") // the work tree's, not the commit's: not read
	r.Git("add", ".gitattributes")                // nor the index's
	h := serve(t, bare, withTextOnly())
	if got := patchOf(h.ok("get_diff", args("base", base, "head", head, "functionContext", true))); got != want {
		t.Fatalf("bare: not git's --function-context with the repository's driver:\n%s\nwant:\n%s", got, want)
	}
	h = serve(t, r, withTextOnly())
	text := h.ok("get_diff", args("base", base, "head", head, "functionContext", true))
	if got := patchOf(text); got != want {
		t.Fatalf("not git's --function-context with the repository's driver:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(text, "with the repository's diff=python)") {
		t.Fatalf("the note does not say the repository's driver was used:\n%s", text)
	}
}

// An outline with syntax errors (a macro the grammar does not know) is
// taken where no error is in a function a change brings; else git's
// heuristic widens the file, and the note says why.
func TestFunctionContextSyntaxErrors(t *testing.T) {
	if syntax.ParserName() != "tree-sitter" {
		t.Skip("C is read by tree-sitter only")
	}
	r := testrepo.New(t)
	src := func(f, g string) string {
		return "#include <stdio.h>\n\ndefine_commit_slab(commit_depth, int *);\n\nstatic int f(int a)\n{\n\treturn " + f + ";\n}\n\nint g(int b)\n{\n\tint x = b;\n\tfor_each_thing(x) {\n\t\tx++;\n\t}\n\treturn x +;\n}\n\nint h(void)\n{\n\treturn " + g + ";\n}\n"
	}
	r.Write("f.c", src("a", "0"))
	r.Write("g.c", src("a", "0"))
	base := r.Commit("base")
	r.Write("f.c", src("a + 1", "0")) // in f(), lines 5–8; the errors are at 3 and 16
	r.Write("g.c", strings.Replace(src("a", "0"), "int x = b;", "int x = b + 1;", 1))
	head := r.Commit("head")
	text := serve(t, r, withTextOnly()).ok("get_diff", args("base", base, "head", head, "functionContext", true))
	patch := patchOf(text)
	if _, new := shownLines(t, sectionOf(t, patch, "f.c")); !slices.Equal(new, linesFromTo(4, 10)) {
		t.Errorf("f.c shows %v; want f() (5–8) and the change's context, lines 4–10", new)
	}
	if got, want := sectionOf(t, patch, "g.c"), gitFunctionContext(t, r, base, head, "g.c"); got != want {
		t.Errorf("g.c is not git's heuristic:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(text, "by tree-sitter's ranges in 1 file (c); by git's --function-context heuristic in 1 file: g.c (syntax errors near its changes)") {
		t.Errorf("the note does not say which file went which way:\n%s", text)
	}
}
