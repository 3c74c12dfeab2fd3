// Package archtest holds the rules of the code's layout, checked over the
// source: which package may start a process, how arguments reach a git
// command line, how large a package or a file may grow.
package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The limits of docs/architecture.md, "Packages".
const (
	maxPackageLines = 5000
	maxFileLines    = 500
)

// Over the limits, on purpose: the tools themselves.
var largePackages = map[string]bool{"internal/server": true}

// sourceFile is a non-test Go file of the module.
type sourceFile struct {
	rel  string // slash-separated, from the module root
	path string
}

// sources lists the non-test Go files below the module's dirs (testdata,
// hidden and vendored directories aside).
func sources(t *testing.T, dirs ...string) []sourceFile {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	var files []sourceFile
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if n := d.Name(); strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "vendor" {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				rel, _ := filepath.Rel(root, path)
				files = append(files, sourceFile{rel: filepath.ToSlash(rel), path: path})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 50 {
		t.Fatalf("only %d Go files under %q: the walk missed the module", len(files), dirs)
	}
	return files
}

// Nothing under internal/ but the runner (internal/gitexec) imports
// os/exec: a reviewer reads that package to know every process the server
// can start and everything it sets. The test helpers that build
// repositories and a fake forge with the git CLI are the exception; the
// server links neither.
func TestOnlyGitexecImportsOsExec(t *testing.T) {
	allowed := func(rel string) bool {
		for _, dir := range []string{"internal/gitexec/", "internal/testrepo/", "internal/forge/forgetest/"} {
			if strings.HasPrefix(rel, dir) && !strings.Contains(rel[len(dir):], "/") {
				return true
			}
		}
		return false
	}
	fset := token.NewFileSet()
	for _, f := range sources(t, "internal") {
		parsed, err := parser.ParseFile(fset, f.path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "os/exec" && !allowed(f.rel) {
				t.Errorf("%s imports os/exec: only internal/gitexec starts a process", f.rel)
			}
		}
	}
}

// Trusted arguments are string constants: outside gitexec.IntArg, no
// non-test code under internal/ converts a computed string to
// gitexec.Arg, so a value from outside can reach a command line only
// through the builder's methods, which put it where git cannot read it as
// an option.
func TestArgsAreConstants(t *testing.T) {
	fset := token.NewFileSet()
	for _, f := range sources(t, "internal") {
		parsed, err := parser.ParseFile(fset, f.path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		inRunner := strings.HasPrefix(f.rel, "internal/gitexec/")
		for _, decl := range parsed.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && inRunner && fn.Name.Name == "IntArg" {
				continue // a number the runner formats
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				isArg := false
				switch fun := ast.Unparen(call.Fun).(type) {
				case *ast.Ident:
					isArg = inRunner && fun.Name == "Arg"
				case *ast.SelectorExpr:
					x, ok := fun.X.(*ast.Ident)
					isArg = ok && x.Name == "gitexec" && fun.Sel.Name == "Arg"
				}
				if _, lit := ast.Unparen(call.Args[0]).(*ast.BasicLit); isArg && !lit {
					t.Errorf("%s: a computed value converted to gitexec.Arg", fset.Position(call.Pos()))
				}
				return true
			})
		}
	}
}

// No package under internal/ but internal/server (the tools themselves)
// is over maxPackageLines non-test lines, and no non-test file under
// internal/ or cmd/ over maxFileLines: a package is one job, read in a
// sitting.
func TestSizes(t *testing.T) {
	packages := map[string]int{}
	for _, f := range sources(t, "internal", "cmd") {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		n := strings.Count(string(data), "\n")
		if n > maxFileLines {
			t.Errorf("%s: %d lines, over %d", f.rel, n, maxFileLines)
		}
		if strings.HasPrefix(f.rel, "internal/") {
			packages[filepath.ToSlash(filepath.Dir(f.rel))] += n
		}
	}
	for pkg, n := range packages {
		if n > maxPackageLines && !largePackages[pkg] {
			t.Errorf("%s: %d non-test lines, over %d", pkg, n, maxPackageLines)
		}
	}
}
