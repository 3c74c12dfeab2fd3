package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// fmtVerb is a verb of a format string, which a bracket line's literal may
// hold.
var fmtVerb = regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z]`)

// noteShape is the shape of a literal that begins one of the server's
// bracket lines: "[", a lowercase letter or a verb, and a space or a colon
// before any "]" (the shape the framing rule once took for ours whole).
var noteShape = regexp.MustCompile(`^\[[a-z%][^\]]*[ :]`)

// TestEveryBracketLineIsAnOpener reads the source of every package the
// server is built from: each string literal that begins a bracket line
// ("[note: …]", "[left out: …]"; after a newline or not) must read as one
// of ours (text.BracketOpeners) with its verbs filled in, and a line begun
// by "[" and a value must be a hidden-character or framed-line note (text.HiddenNote, text.FramedNote),
// whose words are an opener. So a new note cannot be left out of the
// framing rule, and the rule need not take in more than the server writes
// (issue 38, "Exact payloads").
func TestEveryBracketLineIsAnOpener(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() && (d.Name() == "testrepo" || d.Name() == "archtest") {
			return filepath.SkipDir // test helpers
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			// "[" + value + "]\n": a line the value begins.
			if bin, ok := n.(*ast.BinaryExpr); ok && bin.Op == token.ADD && stringLit(bin.Y) == "]\n" {
				if inner, ok := bin.X.(*ast.BinaryExpr); ok && inner.Op == token.ADD && strings.TrimPrefix(stringLit(inner.X), "\n") == "[" {
					checked++
					call, _ := inner.Y.(*ast.CallExpr)
					if call == nil || !strings.HasSuffix(funcName(call.Fun), "HiddenNote") && !strings.HasSuffix(funcName(call.Fun), "FramedNote") {
						t.Errorf("%s: a bracket line begun by a value the test cannot check", fset.Position(inner.Pos()))
					}
				}
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok {
				return true
			}
			v := strings.TrimPrefix(stringLit(lit), "\n")
			if !noteShape.MatchString(v) {
				return true
			}
			checked++
			line := fmtVerb.ReplaceAllString(v, "1")
			if !text.Plain.ReadsAsOurs(line) {
				t.Errorf("%s: the server's line %q is not one of the framing rule's openers (text.BracketOpeners)", fset.Position(lit.Pos()), v)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !text.Plain.ReadsAsOurs("[" + text.HiddenNote("x", text.ScanText([]byte("\u202e"), 1), text.Hidden{}, false) + "]") {
		t.Error("a hidden-character note does not read as ours")
	}
	if note := text.FramedNoteLine("x", "new", text.Framed{Lines: []int{1}, Count: 1}); !text.Plain.ReadsAsOurs(note) {
		t.Errorf("a framed-line note does not read as ours: %q", note)
	}
	if checked < 30 {
		t.Errorf("only %d of the server's bracket lines checked", checked)
	}
	t.Logf("%d bracket lines checked", checked)
}

// stringLit is the value of a string literal; "" for any other expression.
func stringLit(e ast.Expr) string {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return ""
	}
	v, _ := strconv.Unquote(lit.Value)
	return v
}

// funcName is a called function's name as written: "text.HiddenNote", "f".
func funcName(e ast.Expr) string {
	switch f := e.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return funcName(f.X) + "." + f.Sel.Name
	}
	return ""
}
