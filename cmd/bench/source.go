package main

import (
	"bytes"
	"strconv"
)

// words feed identifiers, comments and strings: source-like text, so git's
// diff heuristics and compression see something close to a real code base
// (repeated keywords, varied identifiers, indentation).
var words = []string{
	"account", "active", "address", "agent", "alias", "append", "apply", "archive", "batch", "bind",
	"block", "bucket", "buffer", "build", "cache", "cancel", "channel", "check", "chunk", "client",
	"close", "commit", "config", "connect", "context", "count", "cursor", "decode", "delete", "delta",
	"digest", "encode", "entry", "event", "export", "fetch", "field", "filter", "flush", "format",
	"frame", "handle", "header", "index", "input", "install", "item", "job", "key", "label",
	"layer", "limit", "list", "load", "lock", "match", "merge", "message", "metric", "mode",
	"module", "node", "offset", "option", "order", "output", "owner", "packet", "page", "parse",
	"patch", "path", "peer", "plan", "policy", "pool", "prefix", "probe", "queue", "range",
	"reader", "record", "region", "render", "report", "request", "reset", "resolve", "result", "retry",
	"route", "rule", "scan", "schema", "scope", "segment", "select", "session", "shard", "signal",
	"size", "slice", "source", "span", "state", "status", "store", "stream", "table", "target",
	"task", "template", "token", "trace", "update", "user", "value", "version", "window", "worker",
}

var types = []string{"int", "string", "error", "bool", "[]byte", "*Config", "map[string]int", "[]string", "time.Duration", "*Client"}

// ident is a camelCase identifier of one to three words.
func ident(r *rng, exported bool) string {
	var b []byte
	n := 1 + r.intn(3)
	for i := 0; i < n; i++ {
		w := pick(r, words)
		if i > 0 || exported {
			b = append(b, w[0]-'a'+'A')
			b = append(b, w[1:]...)
		} else {
			b = append(b, w...)
		}
	}
	return string(b)
}

// phrase is a few lower-case words, for comments and strings.
func phrase(r *rng, n int) string {
	var b []byte
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, pick(r, words)...)
	}
	return string(b)
}

// stmt is one line of a function body at the given indentation.
func stmt(r *rng, indent int) string {
	tabs := string(bytes.Repeat([]byte{'\t'}, indent))
	switch r.intn(9) {
	case 0:
		return tabs + ident(r, false) + " := " + ident(r, true) + "(" + ident(r, false) + ", " + strconv.Itoa(r.intn(4096)) + ")"
	case 1:
		return tabs + "// " + ident(r, true) + " " + phrase(r, 3+r.intn(8)) + "."
	case 2:
		return tabs + ident(r, false) + "." + ident(r, true) + " = append(" + ident(r, false) + "." + ident(r, true) + ", " + ident(r, false) + ")"
	case 3:
		return tabs + "log.Printf(\"" + phrase(r, 2+r.intn(4)) + " %d: %v\", " + ident(r, false) + ", err)"
	case 4:
		return tabs + "return " + ident(r, false) + ", nil"
	case 5:
		return tabs + ident(r, false) + " += len(" + ident(r, false) + ")"
	case 6:
		return tabs + "defer " + ident(r, false) + ".Close()"
	case 7:
		return tabs + "var " + ident(r, false) + " " + pick(r, types)
	default:
		return tabs + ident(r, false) + ", err := " + ident(r, false) + "." + ident(r, true) + "(ctx, " + strconv.Quote(phrase(r, 2)) + ")"
	}
}

// writeBlock appends one statement or a small nested block.
func writeBlock(b *bytes.Buffer, r *rng, indent int) {
	tabs := string(bytes.Repeat([]byte{'\t'}, indent))
	switch r.intn(6) {
	case 0:
		b.WriteString(tabs + "if err != nil {\n")
		b.WriteString(tabs + "\treturn nil, fmt.Errorf(\"" + phrase(r, 2) + ": %w\", err)\n")
		b.WriteString(tabs + "}\n")
	case 1:
		b.WriteString(tabs + "for _, " + ident(r, false) + " := range " + ident(r, false) + " {\n")
		for n := 1 + r.intn(3); n > 0; n-- {
			b.WriteString(stmt(r, indent+1) + "\n")
		}
		b.WriteString(tabs + "}\n")
	default:
		b.WriteString(stmt(r, indent) + "\n")
	}
}

// writeSource appends Go-like source until b has grown by at least size
// bytes: a package clause and imports, then commented functions.
func writeSource(b *bytes.Buffer, r *rng, size int, pkg string) {
	start := b.Len()
	b.WriteString("package " + pkg + "\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"log\"\n)\n")
	for b.Len()-start < size {
		name := ident(r, r.intn(2) == 0)
		b.WriteString("\n// " + name + " " + phrase(r, 4+r.intn(10)) + ".\n")
		b.WriteString("func " + name + "(ctx context.Context, " + ident(r, false) + " " + pick(r, types) + ") (" + pick(r, types) + ", error) {\n")
		for n := 2 + r.intn(12); n > 0; n-- {
			writeBlock(b, r, 1)
		}
		b.WriteString("\treturn nil, nil\n}\n")
	}
}

// source returns a file of about size bytes regenerated from its seed.
func source(seed uint64, size int, pkg string) []byte {
	var b bytes.Buffer
	b.Grow(size + 512)
	writeSource(&b, newRNG(seed), size, pkg)
	return b.Bytes()
}

// hugeLine appends the n-th line of the huge file: a line number then words,
// length between 45 and 75 bytes (about 60 on average) including the newline.
func hugeLine(dst []byte, r *rng, n int) []byte {
	want := 45 + r.intn(31)
	start := len(dst)
	dst = strconv.AppendInt(dst, int64(n), 10)
	for len(dst)-start < want-1 {
		dst = append(dst, ' ')
		dst = append(dst, pick(r, words)...)
	}
	dst = dst[:start+want-1]
	return append(dst, '\n')
}
