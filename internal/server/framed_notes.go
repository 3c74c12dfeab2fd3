package server

import (
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// framedNote is the note of the lines of shown that the framing rule
// marked: shown is a text as the reply shows it (a message, a body or a
// description: framed with text.WithHeaders, as histIndent does), whose
// first line is line first of what; "" when none was.
func framedNote(what, shown string, first int) string {
	return text.FramedNoteLine(what, "", text.WithHeaders.FramedLines([]byte(shown), first))
}

// lineAt is the line of s that byte at is on.
func lineAt(s string, at int) int { return strings.Count(s[:at], "\n") + 1 }
