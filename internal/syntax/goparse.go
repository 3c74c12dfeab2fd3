package syntax

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"time"
)

// goAnalyze is Go through the standard library: the parser of a build
// without cgo, and in every build the tests' independent oracle of
// tree-sitter's Go. Its choices are the tree-sitter rules' (rules.go):
// functions, methods (Container: the receiver's type), every type spec
// (an interface type is an interface, a struct a class, the rest a type),
// and the package's own consts and vars as constants; no blank names.
func goAnalyze(ctx context.Context, src []byte, name string) (*File, []Ref, error) {
	end := deadline(ctx)
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution|parser.AllErrors)
	f := &File{Language: "go"}
	var list scanner.ErrorList
	switch {
	case errors.As(err, &list):
		f.Errors = len(list)
		for _, e := range list {
			f.ErrorLines = addErrorLine(f.ErrorLines, e.Pos.Line)
		}
	case err != nil:
		f.Errors, f.ErrorLines = 1, []int{1}
	}
	if file == nil {
		return f, nil, nil
	}
	f.Symbols = finish(goSymbols(fset, file))
	if time.Now().After(end) {
		return nil, nil, timedOut(ctx)
	}
	if name == "" {
		return f, nil, nil
	}
	return f, goRefs(fset, file, src, name, f.Symbols), nil
}

// goSymbols lists file's symbols; positions ignore //line directives.
func goSymbols(fset *token.FileSet, file *ast.File) []sym {
	at := func(p token.Pos) token.Position { return fset.PositionFor(p, false) }
	mk := func(name *ast.Ident, kind string, from, to token.Pos) sym {
		s, e, n := at(from), at(to), at(name.Pos())
		return sym{Symbol: Symbol{
			Name: name.Name, Kind: kind,
			StartLine: s.Line, EndLine: e.Line, Line: n.Line, Column: n.Column,
		}, start: s.Offset, end: e.Offset}
	}
	var syms []sym
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && (g.Tok == token.CONST || g.Tok == token.VAR) {
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, n := range vs.Names {
					if n.Name != "_" {
						syms = append(syms, mk(n, "constant", vs.Pos(), vs.End()))
					}
				}
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Name.Name == "_" {
				break
			}
			s := mk(n.Name, "function", n.Pos(), n.End())
			if n.Recv != nil && len(n.Recv.List) > 0 {
				s.Kind = "method"
				if r := receiverName(n.Recv.List[0].Type); r != "" {
					s.Container, s.fixed = r, true
				}
			}
			syms = append(syms, s)
		case *ast.TypeSpec:
			if n.Name.Name == "_" {
				break
			}
			kind := "type"
			if !n.Assign.IsValid() {
				switch n.Type.(type) {
				case *ast.InterfaceType:
					kind = "interface"
				case *ast.StructType:
					kind = "class"
				}
			}
			syms = append(syms, mk(n.Name, kind, n.Pos(), n.End()))
		}
		return true
	})
	return syms
}

// receiverName is the type's name of a receiver: T of *T, T[K], (T).
func receiverName(x ast.Expr) string {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.ParenExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// goRefs scans the tokens, which skip comments and literals, for name;
// the syntax tree tells calls, the symbols definitions.
func goRefs(fset *token.FileSet, file *ast.File, src []byte, name string, syms []Symbol) []Ref {
	calls := map[int]bool{} // offsets
	ast.Inspect(file, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if p := calledName(c.Fun); p.IsValid() {
				calls[fset.PositionFor(p, false).Offset] = true
			}
		}
		return true
	})
	defs := map[[2]int]bool{}
	for _, s := range syms {
		defs[[2]int{s.Line, s.Column}] = true
	}
	// A file of its own, so token positions map to the offsets of src.
	sfset := token.NewFileSet()
	tf := sfset.AddFile("", -1, len(src))
	var sc scanner.Scanner
	sc.Init(tf, src, nil, 0)
	var refs []Ref
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.IDENT || lit != name {
			continue
		}
		p := sfset.PositionFor(pos, false)
		if p.Offset == fset.PositionFor(file.Name.Pos(), false).Offset {
			continue // the file's own package ("package main"), no reference
		}
		refs = append(refs, Ref{
			Line: p.Line, Column: p.Column,
			Call:       calls[p.Offset],
			Definition: defs[[2]int{p.Line, p.Column}],
		})
	}
	return refs
}

// calledName is the position of the identifier a call names: f, x.f,
// (f), f[T], as tree-sitter's tags query for Go captures it.
func calledName(fun ast.Expr) token.Pos {
	for {
		switch e := fun.(type) {
		case *ast.ParenExpr:
			fun = e.X
		case *ast.IndexExpr:
			fun = e.X
		case *ast.IndexListExpr:
			fun = e.X
		case *ast.Ident:
			return e.Pos()
		case *ast.SelectorExpr:
			return e.Sel.Pos()
		default:
			return token.NoPos
		}
	}
}
