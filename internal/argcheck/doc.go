// Package argcheck checks a tool call's arguments against the tool's input
// schema before the handler sees them, and says what is wrong in plain
// words: names (with the other spellings agents send, aliases.go, and the
// closest name for a mistake, suggest.go), types, ranges and enums
// (check.go, describe.go), and the defaults and ranges a schema is given
// (tune.go). It knows nothing of tools: the server hands it a schema and
// the arguments.
package argcheck
