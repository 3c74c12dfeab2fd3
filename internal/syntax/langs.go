//go:build cgo

package syntax

import (
	"embed"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

const parserName = "tree-sitter"

var languages = []string{"c", "cpp", "go", "java", "javascript", "python", "rust", "tsx", "typescript"}

// The grammars' own tags.scm, copied (queries/<lang>.scm), and ours
// (queries/extra/<lang>.scm).
//
//go:embed queries/*.scm queries/extra/*.scm
var queryFiles embed.FS

// grammar is one language: its parser, its queries and the rules that
// turn their captures into symbols.
type grammar struct {
	ptr     func() unsafe.Pointer
	queries []string // files under queries/, concatenated in this order
	// idents are the leaf kinds that are identifiers in code.
	idents []string
	// rule widens, filters and names one definition (rules.go); false
	// drops it.
	rule func(c *candidate, src []byte) bool
	// expand turns one match into a definition per name, when a pattern
	// can capture only one of a node's names.
	expand func(c candidate) []candidate
	// macros: the preprocessor's bodies are opaque tokens to the grammar,
	// but code to a reader (identRefs looks inside them).
	macros bool

	once     sync.Once
	lang     *ts.Language
	identSet map[string]bool
	// outline runs the definition patterns; refs those and the call
	// references. Compiled once, read-only after, shared by the cursors
	// of concurrent calls (TestConcurrentCalls under -race); they live
	// as long as the process.
	outline, refs *ts.Query
	err           error
}

var (
	cIdents  = []string{"identifier", "field_identifier", "type_identifier", "statement_identifier"}
	jsIdents = []string{"identifier", "property_identifier", "shorthand_property_identifier",
		"shorthand_property_identifier_pattern", "private_property_identifier", "statement_identifier"}
)

var grammars = map[string]*grammar{
	"go": {
		ptr: tsgo.Language, queries: []string{"go.scm", "extra/go.scm"}, rule: goRule, expand: goNames,
		// true, false, nil and iota are identifiers to go/scanner: the
		// builds agree.
		idents: []string{"identifier", "field_identifier", "type_identifier", "package_identifier",
			"label_name", "blank_identifier", "true", "false", "nil", "iota"},
	},
	"c": {
		ptr: tsc.Language, queries: []string{"c.scm", "extra/c.scm"}, rule: cRule,
		idents: cIdents, macros: true,
	},
	"cpp": {
		ptr: tscpp.Language, queries: []string{"cpp.scm", "extra/cpp.scm"}, rule: cppRule,
		idents: append([]string{"namespace_identifier"}, cIdents...), macros: true,
	},
	"python": {
		ptr: tspy.Language, queries: []string{"python.scm"}, rule: pythonRule,
		idents: []string{"identifier"},
	},
	"javascript": {
		ptr: tsjs.Language, queries: []string{"javascript.scm", "extra/javascript.scm"},
		idents: jsIdents,
	},
	// TypeScript's tags.scm adds to JavaScript's, whose grammar it extends.
	"typescript": {
		ptr:     tsts.LanguageTypescript,
		queries: []string{"javascript.scm", "typescript.scm", "extra/typescript.scm"},
		idents:  append([]string{"type_identifier"}, jsIdents...),
	},
	"tsx": {
		ptr:     tsts.LanguageTSX,
		queries: []string{"javascript.scm", "typescript.scm", "extra/typescript.scm"},
		idents:  append([]string{"type_identifier"}, jsIdents...),
	},
	"java": {
		ptr: tsjava.Language, queries: []string{"java.scm", "extra/java.scm"},
		idents: []string{"identifier", "type_identifier"},
	},
	"rust": {
		ptr: tsrust.Language, queries: []string{"rust.scm", "extra/rust.scm"}, rule: rustRule,
		idents: []string{"identifier", "field_identifier", "type_identifier", "shorthand_field_identifier"},
	},
}

// load compiles g's queries, once.
func (g *grammar) load() error {
	g.once.Do(func() {
		g.lang = ts.NewLanguage(g.ptr())
		g.identSet = map[string]bool{}
		for _, k := range g.idents {
			g.identSet[k] = true
		}
		var src strings.Builder
		for _, name := range g.queries {
			b, err := queryFiles.ReadFile("queries/" + name)
			if err != nil {
				g.err = err
				return
			}
			src.Write(b)
			src.WriteByte('\n')
		}
		if g.outline, g.err = compile(g.lang, src.String(), false); g.err != nil {
			return
		}
		g.refs, g.err = compile(g.lang, src.String(), true)
	})
	return g.err
}

// compile keeps the patterns that define a symbol, and with calls those
// that reference a call; the rest (type and class references, the doc
// comments) cost time for nothing here.
func compile(lang *ts.Language, src string, calls bool) (*ts.Query, error) {
	q, qerr := ts.NewQuery(lang, src)
	if qerr != nil {
		return nil, fmt.Errorf("syntax: query: %s", qerr.Error())
	}
	names := q.CaptureNames()
	for p := range q.PatternCount() {
		quant := q.CaptureQuantifiers(p)
		keep := false
		for i, n := range names {
			if quant[i] != ts.CaptureQuantifierZero {
				keep = keep || strings.HasPrefix(n, "definition.") || calls && n == "reference.call"
			}
		}
		if !keep {
			q.DisablePattern(p)
		}
	}
	if _, ok := q.CaptureIndexForName("doc"); ok {
		q.DisableCapture("doc")
	}
	return q, nil
}
