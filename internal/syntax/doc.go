// Package syntax parses a file's bytes, as git gives them at any ref, into
// symbols (Outline) and the code positions of one identifier
// (Identifiers). It is syntactic only: no type resolution, no build.
//
// It is a boundary of its own, like the runner: the only package that
// imports github.com/tree-sitter/go-tree-sitter and its grammars
// (internal/archtest's TestOnlySyntaxImportsTreeSitter), because their C
// code parses untrusted blobs in the server's process. The walls around
// it: a size cap (MaxFileBytes) checked before any parsing, one deadline
// (ParseTimeout) for the parse, the queries and the walks of a call, every
// Parser, Tree, Query and QueryCursor closed (the bindings' finalizers are
// not to be relied on), and FuzzOutline.
//
// Definitions come from each grammar's own queries/tags.scm, copied byte
// for byte under queries/ (TestQueriesAreTheGrammars holds them equal to
// the module cache's), plus queries of ours under queries/extra/ for what
// the grammars do not tag; what a query cannot say (a C function's whole
// definition, not its declarator; a prototype is not a definition; a Go
// method's receiver) is done in Go, per language, in rules.go.
//
// The bindings' own traps, avoided (each said where): Parser.ParseCtx
// stores through a nil cancellation flag when its context ends first, a
// progress callback stays registered forever, QueryCaptures.Next leaks a
// match per call, and every C allocation went through a Go callback.
//
// Without cgo the package still builds: Go files go through go/parser,
// which the tests also use as the independent oracle of the tree-sitter
// build (TestGoOutlineMatchesGoParser); every other language is
// ErrUnsupported, and ParserName says which parser answered.
package syntax
