package toolcall

import (
	"reflect"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// Reply is what a handler returns: the text an agent reads, the typed
// value of the same answer for --structured (the tool's output schema is
// made from Out, so the value sent is of the type the schema describes; a
// text-only tool has Out TextOnly), and for a partial reply the call that
// continues it.
type Reply[Out any] struct {
	Text string
	Out  Out
	Next *paging.Call
}

// TextOnly is the Out of a tool without structured output: it sends text
// only and advertises no output schema.
type TextOnly struct{}

// IsTextOnly: Out is TextOnly.
func IsTextOnly[Out any]() bool { return reflect.TypeFor[Out]() == reflect.TypeFor[TextOnly]() }

// Wire is the reply as it is sent and measured (internal/paging): the
// structured value is the one the schema describes, with its next call.
func (r Reply[Out]) Wire() paging.Wire {
	w := paging.Wire{Text: r.Text, Next: r.Next}
	if !IsTextOnly[Out]() {
		out := r.Out
		if n, ok := any(&out).(paging.Nexter); ok {
			n.SetNext(r.Next)
		}
		w.Structured = out
	}
	return w
}
