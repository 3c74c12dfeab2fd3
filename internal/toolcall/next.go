package toolcall

import (
	"encoding/json"
	"reflect"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// leanNext makes a reply's next call of the same tool what the caller
// would write: the arguments it gave (an alias as its name) and those the
// tool moved on (a cursor, a start line), without the defaults the tool
// filled in ("contextLines":3, "limit":500; the one served repository's
// owner and repo), which the next call gets again by leaving them out. A maxBytes the server changed (raised to the
// least, or more than the client is sent) goes on as the server used it,
// or not at all when that is the client's whole budget, so that the note
// saying so comes once and not on every part. A cursor is not bound to
// maxBytes (paging.ArgsDigest), so either way it still fits.
func leanNext(next *paging.Call, tool string, args json.RawMessage, schema argcheck.Schema, in any, b narrowed) {
	if next == nil || next.Tool != tool {
		return
	}
	given, err := argcheck.DecodeObject(args)
	if err != nil || argcheck.ApplyAliases(schema.Aliases, given) != nil {
		return
	}
	decoded := paging.Continue(tool, in).Arguments
	for k, v := range next.Arguments {
		if _, ok := given[k]; !ok && (sameJSON(v, decoded[k]) || filledIn[k]) {
			delete(next.Arguments, k)
		}
	}
	if b.asked > 0 {
		delete(next.Arguments, "maxBytes")
		if b.used < b.client {
			next.Arguments["maxBytes"] = b.used
		}
	}
}

// filledIn are the arguments a tool fills in when the caller leaves them
// out (the one repository served) and that no part moves on.
var filledIn = map[string]bool{"owner": true, "repo": true}

// narrowed is what became of a call's maxBytes: asked for (0: not), used,
// and the client's budget.
type narrowed struct{ asked, used, client int }

// sameJSON: a and b are the same JSON value.
func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var u, v any
	return json.Unmarshal(x, &u) == nil && json.Unmarshal(y, &v) == nil && reflect.DeepEqual(u, v)
}
