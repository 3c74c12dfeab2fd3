package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

const symbolsGo = `package shop

// Cart holds items.
type Cart struct {
	items []string
}

// Add adds one.
func (c *Cart) Add(item string) {
	c.items = append(c.items, item)
}

type Pricer interface {
	Price(item string) int
}

func Total(c *Cart, p Pricer) int {
	n := 0
	for _, it := range c.items {
		n += p.Price(it)
	}
	return n
}
`

// list_symbols gives a file's outline at any commit, without a checkout:
// here an older commit's blob, which the work tree no longer holds.
func TestListSymbolsAtAnOlderCommit(t *testing.T) {
	r := testrepo.New(t)
	r.Write("shop/cart.go", symbolsGo)
	old := r.Commit("cart")
	r.Write("shop/cart.go", "package shop\n")
	r.Commit("emptied")
	h := serve(t, r, withStructured())
	var out listSymbolsOut
	text := h.structured("list_symbols", args("path", "shop/cart.go", "ref", old), &out)
	want := []symbolEntry{
		{"Cart", "class", "", 4, 6},
		{"Add", "method", "Cart", 9, 11},
		{"Pricer", "interface", "", 13, 15},
		{"Total", "function", "", 17, 23},
	}
	got := slices.DeleteFunc(slices.Clone(out.Symbols), func(e symbolEntry) bool { return e.Kind == "method" && e.Container == "Pricer" })
	if !slices.Equal(got, want) || out.Status != "complete" || out.Language != "go" || out.Total != len(out.Symbols) {
		t.Fatalf("outline %+v (status %s, total %d), want %+v\n%s", out.Symbols, out.Status, out.Total, want, text)
	}
	for _, line := range []string{"9–11 method Cart.Add\n", "17–23 function Total\n", "syntactic: names and lines, no types"} {
		if !strings.Contains(text, line) {
			t.Errorf("the text lacks %q:\n%s", line, text)
		}
	}
	if got := h.ok("list_symbols", args("path", "shop/cart.go")); !strings.Contains(got, "0 symbols") {
		t.Errorf("at HEAD the file holds no symbol:\n%s", got)
	}
}

// What an outline cannot be is said, never an empty list that could mean
// "no symbol": a language no parser reads, a file over the cap, a binary;
// a secret path and a bad kind are errors.
func TestListSymbolsSaysWhyNot(t *testing.T) {
	r := testrepo.New(t)
	r.Write("Makefile", "all:\n\techo hi\n")
	r.Write("big.go", "package big\n"+strings.Repeat("// filler line of a large file\n", syntax.MaxFileBytes/30))
	r.Write("bin.go", "package x\x00\x01\x02")
	r.Write(".env", "SECRET=1\n")
	r.Write("broken.go", "package p\n\nfunc ok() {}\n\nfunc broken( {\n")
	r.Commit("files")
	h := serve(t, r, withStructured())
	for path, status := range map[string]string{"Makefile": "unsupported", "big.go": "tooLarge", "bin.go": "binary"} {
		var out listSymbolsOut
		text := h.structured("list_symbols", args("path", path), &out)
		if out.Status != status || len(out.Symbols) != 0 || !strings.Contains(text, "not parsed") {
			t.Errorf("%s: status %q, want %q:\n%s", path, out.Status, status, text)
		}
	}
	if got := h.ok("list_symbols", args("path", "Makefile")); !strings.Contains(got, strings.Join(syntax.Languages(), ", ")) {
		t.Errorf("an unsupported language does not say which are read:\n%s", got)
	}
	var out listSymbolsOut
	text := h.structured("list_symbols", args("path", "broken.go"), &out)
	if out.ParseErrors == 0 || !strings.Contains(text, "syntax error") || !slices.ContainsFunc(out.Symbols, func(e symbolEntry) bool { return e.Name == "ok" }) {
		t.Errorf("a syntax error is not reported, or hides the symbols before it: %+v\n%s", out, text)
	}
	h.fails("list_symbols", args("path", ".env"), "PATH_DENIED")
	h.fails("list_symbols", args("path", "Makefile", "kinds", []string{"func"}), "INVALID_ARGUMENT")
	h.fails("list_symbols", args("path", "nope.go"), "NOT_FOUND")
}

// A long outline comes in parts whose symbols, put together, are the
// whole outline, in order; kinds selects.
func TestListSymbolsInParts(t *testing.T) {
	r := testrepo.New(t)
	var b strings.Builder
	b.WriteString("package many\n")
	for i := range 400 {
		fmt.Fprintf(&b, "\nfunc function%03d() {}\n\ntype type%03d struct{}\n", i, i)
	}
	r.Write("many.go", b.String())
	r.Commit("many")
	h := serve(t, r, withMaxBytes(4096), withStructured())
	var names []string
	for _, res := range drainResults(t, h, "list_symbols", args("path", "many.go", "kinds", []string{"function"})) {
		var out listSymbolsOut
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		if out.Total != 400 {
			t.Fatalf("total %d, want 400", out.Total)
		}
		for _, e := range out.Symbols {
			names = append(names, e.Name)
		}
	}
	if len(names) != 400 || names[0] != "function000" || names[399] != "function399" || !slices.IsSorted(names) {
		t.Fatalf("the parts hold %d functions: %v…", len(names), names[:min(5, len(names))])
	}
}
