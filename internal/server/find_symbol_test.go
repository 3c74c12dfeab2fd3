package server

import (
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

const symbolsCaller = `package shop

// Total is named in this comment, and "Total" in a string below: neither
// is a reference.
func Report(c *Cart, p Pricer) string {
	s := "Total"
	return s + fmt.Sprint(Total(c, p))
}

var totalFn = Total
`

// find_symbol's definitions and references are the parser's, at a ref
// without a checkout: a name in a comment or a string is no reference,
// and git grep -w (the oracle of where the word is) finds more lines.
func TestFindSymbolDefinitionsAndReferences(t *testing.T) {
	r := testrepo.New(t)
	r.Write("shop/cart.go", symbolsGo)
	r.Write("shop/report.go", symbolsCaller)
	r.Write("notes.md", "Total is documented here.\n")
	at := r.Commit("shop")
	r.Write("shop/report.go", "package shop\n")
	r.Commit("emptied")
	h := serve(t, r, withStructured())

	var defs findSymbolOut
	txt := h.structured("find_symbol", args("name", "Total", "ref", at), &defs)
	if defs.Total != 1 || len(defs.Matches) != 1 || defs.Matches[0].Path != "shop/cart.go" || defs.Matches[0].StartLine != 17 || defs.Matches[0].EndLine != 23 || defs.Status != "complete" {
		t.Fatalf("definitions of Total: %+v\n%s", defs, txt)
	}
	if !strings.Contains(txt, "17–23 function Total\n") || !strings.Contains(txt, "notes.md") {
		t.Errorf("the text lacks the definition's line or the file not parsed:\n%s", txt)
	}

	var refs findSymbolOut
	txt = h.structured("find_symbol", args("name", "Total", "ref", at, "mode", "references"), &refs)
	var got []string
	for _, m := range refs.Matches {
		got = append(got, fmt.Sprintf("%s:%d:%d %s in %s", m.Path, m.Line, m.Column, m.Kind, m.Enclosing))
	}
	want := []string{"shop/cart.go:17:6 definition in ", "shop/report.go:7:24 call in Report", "shop/report.go:10:15 reference in totalFn"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || refs.Total != 3 || refs.Files != 2 {
		t.Fatalf("references of Total:\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), txt)
	}
	grep := strings.Count(r.Git("grep", "-w", "-n", "Total", at, "--", "shop"), "\n")
	if grep <= len(refs.Matches) {
		t.Errorf("git grep -w finds %d lines, the parser %d references: the comment and the string should be more", grep, len(refs.Matches))
	}
	if !strings.Contains(txt, "7:24 call in Report: \treturn s + fmt.Sprint(Total(c, p))\n") {
		t.Errorf("a reference's line is not shown:\n%s", txt)
	}

	// A method by its container's name; its signature.
	txt = h.ok("find_symbol", args("name", "Cart.Add", "ref", at, "include", "signature"))
	if !strings.Contains(txt, "9–11 method Cart.Add\n  9: func (c *Cart) Add(item string) {\n") {
		t.Errorf("Cart.Add's signature:\n%s", txt)
	}
	// Nothing is never ambiguous: the word is there, but defines nothing.
	txt = h.ok("find_symbol", args("name", "items", "ref", at, "kinds", []string{"function"}))
	if !strings.Contains(txt, "0 definitions") || !strings.Contains(txt, "git grep -w finds the word in 1 file, none defining it") {
		t.Errorf("no definition, said:\n%s", txt)
	}
	for _, bad := range []map[string]any{
		args("name", "a b"), args("name", "1x"), args("name", "Total", "mode", "callers"),
		args("name", "Cart.Add", "mode", "references"), args("name", "Total", "include", "body", "mode", "references"),
		args("name", "Total", "kinds", []string{"lambda"}),
	} {
		h.fails("find_symbol", bad, "INVALID_ARGUMENT")
	}
	h.fails("find_symbol", args("name", "Total", "paths", []string{"../x"}), "PATH_DENIED")
}

// include=body gives a definition's whole text, in parts at a small
// budget, each going on where the last stopped, joined exactly.
func TestFindSymbolBodyInParts(t *testing.T) {
	r := testrepo.New(t)
	var b strings.Builder
	b.WriteString("package big\n\nfunc Long() int {\n\tn := 0\n")
	for i := range 400 {
		fmt.Fprintf(&b, "\tn += %d // a line of the long function's body\n", i)
	}
	b.WriteString("\treturn n\n}\n\nfunc Short() {}\n")
	r.Write("big/long.go", b.String())
	r.Commit("long")
	h := serve(t, r, withMaxBytes(4096), withStructured())
	var body strings.Builder
	call := args("name", "Long", "include", "body")
	parts := 0
	for ; call != nil; parts++ {
		if parts > 100 {
			t.Fatal("no end")
		}
		res := h.call("find_symbol", call)
		var out findSymbolOut
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil || len(out.Matches) != 1 {
			t.Fatalf("part %d: %v %+v\n%s", parts, err, out.Matches, textOf(res))
		}
		body.WriteString(out.Matches[0].Text + "\n")
		call = nil
		if n := nextOf(t, res); n != nil {
			call = n.Arguments
		}
	}
	if parts < 3 {
		t.Errorf("%d parts: the body should not fit one reply of 4096 bytes", parts)
	}
	lines := strings.Split(b.String(), "\n")
	if want := strings.Join(lines[2:406], "\n") + "\n"; body.String() != want {
		t.Fatalf("the parts join to\n%q\nwant\n%q", body.String(), want)
	}
}

// get_pull_request_symbols: the symbols whose lines meet a changed line,
// on each side, and the references at head the pull request did not
// change.
func TestPullRequestSymbols(t *testing.T) {
	if syntax.ParserName() != "tree-sitter" {
		t.Skip("C needs tree-sitter")
	}
	r := testrepo.New(t)
	r.Write("lib.c", "int kept(int a) {\n\treturn a;\n}\n\nint changed(int a) {\n\treturn a + 1;\n}\n\nint removed(void) {\n\treturn 0;\n}\n")
	r.Write("use.c", "int use1(void) {\n\treturn changed(1);\n}\n\nint use2(void) {\n\treturn changed(2) + removed();\n}\n")
	r.Write("main.c", "int main(void) {\n\treturn kept(0) + changed(0);\n}\n")
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("lib.c", "int kept(int a) {\n\treturn a;\n}\n\nint changed(int a, int b) {\n\treturn a + b;\n}\n\nint added(void) {\n\treturn 2;\n}\n")
	r.Write("use.c", "int use1(void) {\n\treturn changed(1, 0);\n}\n\nint use2(void) {\n\treturn changed(2) + removed();\n}\n")
	r.Commit("feature")
	r.Git("update-ref", "refs/pull/3/head", "feature")
	r.Git("checkout", "-q", "main")
	if err := os.WriteFile(filepath.Join(r.Dir, "untracked.c"), []byte("int x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := serve(t, r, withStructured())
	var out pullSymbolsOut
	txt := h.structured("get_pull_request_symbols", args("index", 3), &out)
	var got []string
	for _, c := range out.Symbols {
		line := fmt.Sprintf("%s %s %s", c.Path, c.Change, c.Name)
		if c.References != nil {
			line += fmt.Sprintf(" refs %d", *c.References)
			for _, m := range c.NotUpdated {
				line += fmt.Sprintf(" %s:%d", m.Path, m.Line)
			}
		}
		got = append(got, line)
	}
	want := []string{
		"lib.c changed changed refs 3 main.c:2 use.c:6",
		"lib.c removed removed refs 1 use.c:6",
		"lib.c added added",
		"use.c changed use1 refs 0", // its call of changed() is its line
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("symbols:\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), txt)
	}
	if !strings.Contains(txt, "changed function changed: base 5–7, head 5–7; 2 of its 3 references at head on lines not changed\n  main.c:2:") {
		t.Errorf("text:\n%s", txt)
	}
}

// References are every identifier of the name in code, and nothing else:
// on this module's own Go files, against go/scanner (which skips comments
// and literals) as the independent oracle; drained at a small budget,
// the parts hold each reference once, in order.
func TestFindSymbolReferencesMatchGoScanner(t *testing.T) {
	r := testrepo.New(t)
	files, err := filepath.Glob("../text/*.go")
	if err != nil || len(files) < 10 {
		t.Fatalf("this module's internal/text: %v %d", err, len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r.Write("text/"+filepath.Base(f), string(src))
	}
	r.Commit("internal/text")
	h := serve(t, r, withMaxBytes(4096), withStructured())
	for _, name := range []string{"Count", "Name", "skeleton", "IsHidden"} {
		var want []string
		for _, f := range files {
			src, _ := os.ReadFile(f)
			fset := token.NewFileSet()
			tf := fset.AddFile(f, -1, len(src))
			var sc scanner.Scanner
			sc.Init(tf, src, nil, 0)
			for {
				pos, tok, lit := sc.Scan()
				if tok == token.EOF {
					break
				}
				if tok == token.IDENT && lit == name {
					p := fset.Position(pos)
					want = append(want, fmt.Sprintf("text/%s:%d:%d", filepath.Base(f), p.Line, p.Column))
				}
			}
		}
		var got []string
		call := args("name", name, "mode", "references")
		for parts := 0; call != nil; parts++ {
			if parts > 200 {
				t.Fatal("no end")
			}
			res := h.call("find_symbol", call)
			var out findSymbolOut
			data, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(data, &out); err != nil || res.IsError {
				t.Fatalf("%s: %v %s", name, err, textOf(res))
			}
			if out.Total != len(want) {
				t.Fatalf("%s: total %d, go/scanner finds %d", name, out.Total, len(want))
			}
			for _, m := range out.Matches {
				got = append(got, fmt.Sprintf("%s:%d:%d", m.Path, m.Line, m.Column))
			}
			call = nil
			if n := nextOf(t, res); n != nil {
				call = n.Arguments
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("references of %s:\n%s\nwant (go/scanner)\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
