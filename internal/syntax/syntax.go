package syntax

import (
	"cmp"
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"time"
)

// Symbol is one definition in a file.
type Symbol struct {
	Name string
	// Kind is one of function, method, class, interface, type, module,
	// macro, constant: the grammars' tags vocabulary.
	Kind string
	// Container is the name of the innermost other symbol whose text holds
	// this one's; "" at top level. A Go method's is its receiver type's
	// name, a Rust method's its impl's type, a C++ A::f's A.
	Container string
	// StartLine and EndLine are the whole definition (a function with its
	// body), 1-based, both included, without a preceding doc comment.
	StartLine, EndLine int
	// Line and Column are where the name is: 1-based, the column in bytes.
	Line, Column int
}

// Ref is one identifier of the name asked for, in code.
type Ref struct {
	Line, Column int  // 1-based; the column in bytes
	Call         bool // the identifier is called there
	Definition   bool // it is a symbol's name where it is defined
}

// File is what a parse tells of a file.
type File struct {
	Language string
	Symbols  []Symbol // ordered by StartLine, then Line, Column
	// Errors counts the ERROR and MISSING nodes of the tree: a syntax
	// error is reported, never hidden.
	Errors     int
	ErrorLines []int // the first maxErrorLines lines holding one, ascending
}

var (
	// ErrUnsupported: LanguageOf does not know the path, or this build
	// does not parse its language.
	ErrUnsupported = errors.New("syntax: language not supported")
	// ErrTooLarge: the file is over MaxFileBytes; it was not parsed.
	ErrTooLarge = errors.New("syntax: file over the size cap")
	// ErrTimeout: the parse, a query or a walk ran out of ParseTimeout.
	ErrTimeout = errors.New("syntax: parse timed out")
)

// MaxFileBytes caps the files parsed; set once, before any call.
var MaxFileBytes = 1 << 20

// ParseTimeout bounds one call of Outline or Identifiers: the parse, the
// queries and the walks together. Set once, before any call.
var ParseTimeout = 2 * time.Second

const maxErrorLines = 10

// extensions maps a lower-cased extension to its language; .h is C.
var extensions = map[string]string{
	".go": "go",
	".c":  "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp",
	".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp",
	".py": "python", ".pyi": "python",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
	".tsx":  "tsx",
	".java": "java",
	".rs":   "rust",
}

// ParserName names the parser of this build: "tree-sitter" with cgo,
// "go/parser" without.
func ParserName() string { return parserName }

// Languages lists the languages this build parses, sorted.
func Languages() []string { return slices.Clone(languages) }

// LanguageOf tells a path's language by its extension, if this build
// parses it.
func LanguageOf(p string) (string, bool) {
	lang, ok := extensions[strings.ToLower(path.Ext(p))]
	if !ok || !slices.Contains(languages, lang) {
		return "", false
	}
	return lang, true
}

// Outline parses src as path's language and lists its symbols.
func Outline(ctx context.Context, path string, src []byte) (*File, error) {
	lang, err := check(ctx, path, src)
	if err != nil {
		return nil, err
	}
	f, _, err := analyze(ctx, lang, src, "")
	return f, err
}

// Identifiers are the identifiers named name in code: never in a comment
// or a string literal (nor a char literal, a template string's text, a
// regex literal), ordered by position. Their File says Errors too, and
// holds the Symbols, for what encloses each.
func Identifiers(ctx context.Context, path string, src []byte, name string) ([]Ref, *File, error) {
	lang, err := check(ctx, path, src)
	if err != nil {
		return nil, nil, err
	}
	if name == "" {
		f, _, err := analyze(ctx, lang, src, "")
		return nil, f, err
	}
	f, refs, err := analyze(ctx, lang, src, name)
	if err != nil {
		return nil, nil, err
	}
	return refs, f, nil
}

func check(ctx context.Context, path string, src []byte) (string, error) {
	lang, ok := LanguageOf(path)
	if !ok {
		return "", ErrUnsupported
	}
	if len(src) > MaxFileBytes {
		return "", ErrTooLarge
	}
	return lang, ctx.Err()
}

// deadline is the end of one call's time: ParseTimeout, or ctx's
// deadline when sooner.
func deadline(ctx context.Context) time.Time {
	d := time.Now().Add(ParseTimeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		d = cd
	}
	return d
}

// timedOut is the error of a call whose time ran out: the caller's own
// when its context ended or its deadline passed (the parser's clock may
// see that before the context's timer does), else ErrTimeout.
func timedOut(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return ErrTimeout
}

// sym is a Symbol with the byte range that nests it.
type sym struct {
	Symbol
	start, end int
	fixed      bool // the language set Container (a receiver's type)
}

// finish orders syms and names each one's container: the innermost other
// symbol whose byte range holds it and is larger. Ranges of a tree nest or are
// disjoint, so a stack sweep over (start, -end) order finds it.
func finish(syms []sym) []Symbol {
	slices.SortStableFunc(syms, func(a, b sym) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	var open []*sym
	for i := range syms {
		s := &syms[i]
		// Equal ranges are names of one spec (var a, b = 1, 2): siblings.
		for len(open) > 0 && (open[len(open)-1].end < s.end || open[len(open)-1].start == s.start && open[len(open)-1].end == s.end) {
			open = open[:len(open)-1]
		}
		if !s.fixed && len(open) > 0 {
			s.Container = open[len(open)-1].Name
		}
		open = append(open, s)
	}
	out := make([]Symbol, len(syms))
	for i := range syms {
		out[i] = syms[i].Symbol
	}
	slices.SortStableFunc(out, func(a, b Symbol) int {
		return cmp.Or(cmp.Compare(a.StartLine, b.StartLine), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return out
}

// addErrorLine keeps the maxErrorLines smallest distinct lines, ascending.
func addErrorLine(lines []int, line int) []int {
	i, found := slices.BinarySearch(lines, line)
	if found || i >= maxErrorLines {
		return lines
	}
	lines = slices.Insert(lines, i, line)
	if len(lines) > maxErrorLines {
		lines = lines[:maxErrorLines]
	}
	return lines
}
