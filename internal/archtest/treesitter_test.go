package archtest

import (
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// Nothing but internal/syntax imports go-tree-sitter or a grammar: their
// C code parses untrusted blobs in the server's process, and a reviewer
// reads that one package to know every wall around it (its size cap,
// deadline, closes and fuzz test).
func TestOnlySyntaxImportsTreeSitter(t *testing.T) {
	fset := token.NewFileSet()
	importers := 0
	for _, f := range sources(t, "internal", "cmd") {
		parsed, err := parser.ParseFile(fset, f.path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, "github.com/tree-sitter/") {
				continue
			}
			if dir, file, _ := strings.Cut(f.rel, "/syntax/"); dir != "internal" || strings.Contains(file, "/") {
				t.Errorf("%s imports %s: only internal/syntax parses", f.rel, p)
			} else {
				importers++
			}
		}
	}
	if importers == 0 {
		t.Error("internal/syntax imports no tree-sitter package: the walk missed it")
	}
}
