package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// A cursor says where a partial reply stopped, in a string the agent hands
// back (the "cursor" argument of the call in next). It is self-contained:
// the server keeps nothing between calls, so a restarted server, or another
// replica, continues it. It pins the commits the first part was made for,
// so a branch that moves between two parts cannot shift or mix them, and
// it is bound to the tool and to the call's other arguments. A cursor that
// is damaged, edited, or made for other arguments is INVALID_ARGUMENT.
type cursor struct {
	Tool string `json:"t"`
	// Args is the digest of the call's other arguments (argsDigest).
	Args string `json:"a"`
	// Commits are the commits pinned, in an order each tool fixes.
	Commits []string `json:"c,omitempty"`
	// Where the next part starts: a file (a change's index in git's order),
	// a section of it (a type change has two), a line of that section's
	// body; or an offset in a list.
	File    int   `json:"f,omitempty"`
	Section int   `json:"s,omitempty"`
	Line    int64 `json:"l,omitempty"`
	// Totals measured for the first part, so later parts need not measure
	// them again: files and patch bytes.
	Files int   `json:"n,omitempty"`
	Bytes int64 `json:"b,omitempty"`
	// get_commit's parts before its patch: the next parent to list, and
	// the byte offset where the message goes on (0: none).
	Parent  int `json:"p,omitempty"`
	Message int `json:"m,omitempty"`
}

// cursorKey only makes an edited cursor detectable; it is not a secret:
// a cursor carries nothing the arguments could not say.
var cursorKey = []byte("mcp-repo-tools cursor v1")

const cursorMACLen = 12

func (c cursor) encode() string {
	payload, err := json.Marshal(c)
	if err != nil {
		panic(err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(cursorMAC(payload))
}

func cursorMAC(payload []byte) []byte {
	m := hmac.New(sha256.New, cursorKey)
	m.Write(payload)
	return m.Sum(nil)[:cursorMACLen]
}

// decodeCursor reads the cursor s that tool was given with arguments whose
// digest is args.
func decodeCursor(tool, s, args string) (cursor, error) {
	bad := func(why string) (cursor, error) {
		return cursor{}, errcode.New(errcode.InvalidArgument, "cursor %s: pass the cursor exactly as the previous reply gave it, with the same other arguments, or leave it out to start from the beginning", why)
	}
	body, mac, ok := strings.Cut(s, ".")
	// Strict: the last character of a payload whose length is not a
	// multiple of 3 bytes has bits that encode nothing; without Strict an
	// edit of those bits would decode to the same payload and pass.
	enc := base64.RawURLEncoding.Strict()
	payload, err1 := enc.DecodeString(body)
	sum, err2 := enc.DecodeString(mac)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(sum, cursorMAC(payload)) {
		return bad("is damaged or was edited")
	}
	var c cursor
	if err := json.Unmarshal(payload, &c); err != nil {
		return bad("is damaged or was edited")
	}
	if c.Tool != tool {
		return bad("was made for " + c.Tool + ", not " + tool)
	}
	if c.Args != args {
		return bad("was made for a call with other arguments")
	}
	if c.File < 0 || c.Section < 0 || c.Line < 0 || c.Files < 0 || c.Bytes < 0 || c.Parent < 0 || c.Message < 0 {
		return bad("is damaged or was edited")
	}
	return c, nil
}

// argsDigest is the digest of a tool's input value without the arguments
// named in skip (the cursor itself, and those next changes, like page):
// what a cursor is bound to.
func argsDigest(in any, skip ...string) string {
	data, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic(err)
	}
	for _, k := range skip {
		delete(m, k)
	}
	canon, _ := json.Marshal(m) // encoding/json sorts map keys
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}
