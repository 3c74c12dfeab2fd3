//go:build cgo

package syntax

import (
	"bytes"
	"context"
	"strings"
	"time"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// chunkBytes is how much of src the parser is handed at a time: the
// bindings copy each chunk into C memory and free the copies only when
// the parse ends, and the lexer asks again from any position it moves
// back to; whole-rest chunks would copy a 1 MiB file once per move.
const chunkBytes = 4 << 10

// checkEvery is how many nodes or matches a walk handles between looks at
// the clock.
const checkEvery = 1024

func analyze(ctx context.Context, lang string, src []byte, name string) (*File, []Ref, error) {
	g := grammars[lang]
	if err := g.load(); err != nil {
		return nil, nil, err
	}
	end := deadline(ctx)
	tree, err := parse(ctx, g, src, end)
	if err != nil {
		return nil, nil, err
	}
	defer tree.Close()
	root := tree.RootNode()
	f := &File{Language: lang}
	if f.Errors, f.ErrorLines, err = syntaxErrors(ctx, root, end); err != nil {
		return nil, nil, err
	}
	q := g.outline
	if name != "" {
		q = g.refs
	}
	syms, calls, err := tags(ctx, g, q, root, src, end)
	if err != nil {
		return nil, nil, err
	}
	f.Symbols = finish(syms)
	if name == "" {
		return f, nil, nil
	}
	refs, err := identRefs(ctx, g, root, src, name, calls, f.Symbols, end)
	if err != nil {
		return nil, nil, err
	}
	return f, refs, nil
}

// parse runs the parser until end. Not ParseCtx: it stores to the
// parser's cancellation flag, a nil pointer unless set, when the context
// ends first (TestParseCtxFlagIsNil); nor a progress callback: the
// bindings keep its options registered forever, a leak per parse. The
// parser's own clock is what is left.
func parse(ctx context.Context, g *grammar, src []byte, end time.Time) (*ts.Tree, error) {
	left := time.Until(end)
	if left <= 0 {
		return nil, timedOut(ctx)
	}
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(g.lang); err != nil {
		return nil, err
	}
	p.SetTimeoutMicros(max(1, uint64(left/time.Microsecond))) //nolint:staticcheck // SA1019: the replacement (a progress callback) leaks in these bindings; see above
	tree := p.ParseWithOptions(func(i int, _ ts.Point) []byte {
		if i >= len(src) {
			return nil
		}
		return src[i:min(i+chunkBytes, len(src))]
	}, nil, nil)
	if tree == nil {
		return nil, timedOut(ctx)
	}
	return tree, nil
}

// syntaxErrors counts the ERROR and MISSING nodes, descending only into
// subtrees that hold one.
func syntaxErrors(ctx context.Context, root *ts.Node, end time.Time) (int, []int, error) {
	if !root.HasError() {
		return 0, nil, nil
	}
	c := root.Walk()
	defer c.Close()
	count, lines := 0, []int(nil)
	for seen := 1; ; seen++ {
		if seen%checkEvery == 0 && time.Now().After(end) {
			return 0, nil, timedOut(ctx)
		}
		n := c.Node()
		if n.IsError() || n.IsMissing() {
			count++
			lines = addErrorLine(lines, int(n.StartPosition().Row)+1)
		}
		if n.HasError() && c.GotoFirstChild() {
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return count, lines, nil
			}
		}
	}
}

// tags runs q over the tree: the rules of g turn its definitions into
// symbols; calls holds the start of each name a call reference captures.
func tags(ctx context.Context, g *grammar, q *ts.Query, root *ts.Node, src []byte, end time.Time) ([]sym, map[uint]bool, error) {
	left := time.Until(end)
	if left <= 0 {
		return nil, nil, timedOut(ctx)
	}
	qc := ts.NewQueryCursor()
	defer qc.Close()
	qc.SetTimeoutMicros(max(1, uint64(left/time.Microsecond)))
	names := q.CaptureNames()
	var cands []candidate
	calls := map[uint]bool{}
	// Matches, not Captures: QueryCaptures.Next mallocs a match it never
	// frees.
	matches := qc.Matches(q, root, src)
	for m := matches.Next(); m != nil; m = matches.Next() {
		var c candidate
		var name *ts.Node
		call := false
		for i := range m.Captures {
			capture := &m.Captures[i]
			switch n := names[capture.Index]; {
			case n == "name":
				name = &capture.Node
			case n == "reference.call":
				call = true
			case strings.HasPrefix(n, "definition."):
				c.kind, c.def = strings.TrimPrefix(n, "definition."), capture.Node
			}
		}
		switch {
		case name == nil:
		case c.kind != "":
			c.pattern, c.name = m.PatternIndex, *name
			if g.expand != nil {
				cands = append(cands, g.expand(c)...)
			} else {
				cands = append(cands, c)
			}
		case call:
			n := innerName(*name)
			calls[n.StartByte()] = true
		}
	}
	// The cursor stops at its time without a word: the clock tells.
	if time.Now().After(end) {
		return nil, nil, timedOut(ctx)
	}
	return symbols(g, cands, src), calls, nil
}

// symbols applies g's rules, then keeps one definition per name: the
// earliest pattern's.
func symbols(g *grammar, cands []candidate, src []byte) []sym {
	best := map[uint]int{} // name's start byte → index in syms
	var syms []sym
	pattern := []uint{}
	for _, c := range cands {
		if g.rule != nil && !g.rule(&c, src) || c.name.StartByte() == c.name.EndByte() {
			continue // dropped by the rule, or a name the parser made up (MISSING)
		}
		at := c.name.StartByte()
		if i, ok := best[at]; ok {
			if pattern[i] <= c.pattern {
				continue
			}
			syms[i] = newSym(c, src)
			pattern[i] = c.pattern
			continue
		}
		best[at] = len(syms)
		syms = append(syms, newSym(c, src))
		pattern = append(pattern, c.pattern)
	}
	return syms
}

func newSym(c candidate, src []byte) sym {
	start, stop, at := c.def.StartPosition(), c.def.EndPosition(), c.name.StartPosition()
	endLine := int(stop.Row) + 1
	if stop.Column == 0 && stop.Row > start.Row {
		endLine-- // the node ends with its line's newline (a #define)
	}
	return sym{
		Symbol: Symbol{
			Name: text(&c.name, src), Kind: c.kind, Container: c.container,
			StartLine: int(start.Row) + 1, EndLine: endLine,
			Line: int(at.Row) + 1, Column: int(at.Column) + 1,
		},
		start: int(c.def.StartByte()), end: int(c.def.EndByte()), fixed: c.fixed,
	}
}

// identRefs finds the occurrences of name in src, then walks down to the
// leaves that hold them, skipping every subtree that holds none: a leaf
// of an identifier kind spanning one exactly is a ref. Comments, strings,
// char and regex literals are leaves of other kinds, so they drop out.
func identRefs(ctx context.Context, g *grammar, root *ts.Node, src []byte, name string, calls map[uint]bool, syms []Symbol, end time.Time) ([]Ref, error) {
	var occ []uint
	for off := 0; ; {
		i := bytes.Index(src[off:], []byte(name))
		if i < 0 {
			break
		}
		occ = append(occ, uint(off+i))
		off += i + 1
	}
	if len(occ) == 0 {
		return nil, nil
	}
	defs := map[[2]int]bool{}
	for _, s := range syms {
		defs[[2]int{s.Line, s.Column}] = true
	}
	var refs []Ref
	var lines *lineIndex
	size := uint(len(name))
	c := root.Walk()
	defer c.Close()
	k := 0 // the first occurrence not yet behind the walk
	for seen := 1; ; seen++ {
		if seen%checkEvery == 0 && time.Now().After(end) {
			return nil, timedOut(ctx)
		}
		n := c.Node()
		start, stop := n.StartByte(), n.EndByte()
		for k < len(occ) && occ[k] < start {
			k++
		}
		if k == len(occ) {
			return refs, nil
		}
		if occ[k]+size <= stop {
			if c.GotoFirstChild() {
				continue
			}
			switch kind := n.Kind(); {
			case g.identSet[kind] && occ[k] == start && start+size == stop && !packageClause(n):
				p := n.StartPosition()
				line, col := int(p.Row)+1, int(p.Column)+1
				refs = append(refs, Ref{Line: line, Column: col, Call: calls[start], Definition: defs[[2]int{line, col}]})
			case g.macros && kind == "preproc_arg":
				for j := k; j < len(occ) && occ[j]+size <= stop; j++ {
					if call, ok := macroIdent(src[start:stop], int(occ[j]-start), int(size)); ok {
						if lines == nil {
							lines = newLineIndex(src)
						}
						line, col := lines.at(int(occ[j]))
						refs = append(refs, Ref{Line: line, Column: col, Call: call})
					}
				}
			}
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return refs, nil
			}
		}
	}
}

// packageClause: n names a Go file's own package ("package main"), which
// no identifier of that name refers to.
func packageClause(n *ts.Node) bool {
	return n.Kind() == "package_identifier" && kindOf(n.Parent()) == "package_clause"
}
