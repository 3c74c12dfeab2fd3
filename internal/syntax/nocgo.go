//go:build !cgo

package syntax

import "context"

// Without cgo there is no tree-sitter: Go files go through go/parser.
const parserName = "go/parser"

var languages = []string{"go"}

func analyze(ctx context.Context, _ string, src []byte, name string) (*File, []Ref, error) {
	return goAnalyze(ctx, src, name)
}
