package paging

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// A cursor says where a partial reply stopped, in a string the agent hands
// back (the "cursor" argument of the call in next). It is self-contained:
// the server keeps nothing between calls, so a restarted server, or another
// replica, continues it when it has the same key. It pins the commits the
// first part was made for, so a branch that moves between two parts cannot
// shift or mix them, and it is bound to the tool, to the call's other
// arguments and to the repository. It is signed with the server's secret
// key, so no one else can make one: a cursor that is damaged, edited, made
// for other arguments or another repository, or signed with another key is
// INVALID_ARGUMENT, and what it pins is checked (CheckPins) before use.
type Cursor struct {
	Tool string `json:"t"`
	// Args is the digest of the call's other arguments (ArgsDigest).
	Args string `json:"a"`
	// Key is the id of the key that signed it (Key.id), which tells
	// a cursor of another key from an edited one.
	Key string `json:"k"`
	// Repo is the digest of the repository it was made for (repoDigest).
	Repo string `json:"r"`
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
	// Inside a file (Line > 0): which of the file's parts the next is,
	// and the size of the file's patch, when known (SplitPos).
	Split      int   `json:"sp,omitempty"`
	SplitBytes int64 `json:"sb,omitempty"`
	// get_commit's parts before its patch: the next parent to list, and
	// the byte offset where the message goes on (0: none).
	Parent  int `json:"p,omitempty"`
	Message int `json:"m,omitempty"`
}

// CursorKeyBytes is the size of a cursor key: the command makes keys of
// this size and takes none shorter.
const CursorKeyBytes = 32

// Key signs cursors. The secret never leaves the server; its id,
// a few bytes of a hash of it, is told in every cursor.
type Key struct {
	secret []byte
	id     string
}

const (
	cursorMACLen   = 12
	cursorKeyIDLen = 4
	repoDigestLen  = 6
)

// NewKey is the key of secret; an empty secret is a random key of
// this server alone (its cursors die with it).
func NewKey(secret []byte) Key {
	if len(secret) == 0 {
		secret = make([]byte, CursorKeyBytes)
		rand.Read(secret) // never fails (crypto/rand)
	}
	if len(secret) < CursorKeyBytes {
		panic(fmt.Sprintf("server: a cursor key of %d bytes, want at least %d", len(secret), CursorKeyBytes))
	}
	sum := sha256.Sum256(append([]byte("mcp-repo-tools cursor key id\x00"), secret...))
	return Key{secret: bytes.Clone(secret), id: base64.RawURLEncoding.EncodeToString(sum[:cursorKeyIDLen])}
}

// repoDigest names the repository a cursor is made for: the served name,
// as resolved (also when the call left owner and repo out).
func repoDigest(fullName string) string {
	sum := sha256.Sum256([]byte("mcp-repo-tools cursor repository\x00" + fullName))
	return base64.RawURLEncoding.EncodeToString(sum[:repoDigestLen])
}

// Encode signs c, made for the repository named fullName.
func (k Key) Encode(c Cursor, fullName string) string {
	c.Key, c.Repo = k.id, repoDigest(fullName)
	payload, err := json.Marshal(c)
	if err != nil {
		panic(err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(k.mac(payload))
}

func (k Key) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, k.secret)
	m.Write(payload)
	return m.Sum(nil)[:cursorMACLen]
}

func ErrCursor(why string) error {
	return errcode.New(errcode.InvalidArgument, "cursor %s: pass the cursor exactly as the previous reply gave it, with the same other arguments, or leave it out to start from the beginning", why)
}

// Decode reads the cursor s that tool was given with arguments whose
// digest is args. The repository and the pins are checked where the
// repository is known (CheckPins, MadeFor).
func (k Key) Decode(tool, s, args string) (Cursor, error) {
	body, mac, ok := strings.Cut(s, ".")
	// Strict: the last character of a payload whose length is not a
	// multiple of 3 bytes has bits that encode nothing; without Strict an
	// edit of those bits would decode to the same payload and pass.
	enc := base64.RawURLEncoding.Strict()
	payload, err1 := enc.DecodeString(body)
	sum, err2 := enc.DecodeString(mac)
	var c Cursor
	if !ok || err1 != nil || err2 != nil || json.Unmarshal(payload, &c) != nil {
		return Cursor{}, ErrCursor("is damaged or was edited")
	}
	if c.Key != k.id && c.Key != "" && len(sum) == cursorMACLen { // no key id: no cursor the server made
		return Cursor{}, errcode.New(errcode.InvalidArgument, "cursor was signed with another key: the server's cursor key changed since (a restart with a new key, or a replica with another key); leave cursor out and call again to start over")
	}
	if !hmac.Equal(sum, k.mac(payload)) {
		return Cursor{}, ErrCursor("is damaged or was edited")
	}
	if c.Tool != tool {
		return Cursor{}, ErrCursor("was made for " + c.Tool + ", not " + tool)
	}
	if c.Args != args {
		return Cursor{}, ErrCursor("was made for a call with other arguments")
	}
	if c.File < 0 || c.Section < 0 || c.Line < 0 || c.Files < 0 || c.Bytes < 0 || c.Parent < 0 || c.Message < 0 {
		return Cursor{}, ErrCursor("is damaged or was edited")
	}
	return c, nil
}

// MadeFor refuses a cursor made for another repository than fullName's.
func (c *Cursor) MadeFor(fullName string) error {
	if c.Repo != repoDigest(fullName) {
		return errcode.New(errcode.InvalidArgument, "cursor was made for another repository, not %s: leave it out to start from the beginning", fullName)
	}
	return nil
}

// CheckPins checks what cursor c pins before any of it is used: that c was
// made for r, that it pins n ids, and that each is a commit of r (a tree,
// say, would list what the deny list hides under other names). It returns
// the commits.
func CheckPins(ctx context.Context, r *repo.Repository, c *Cursor, n int) ([]string, error) {
	if err := c.MadeFor(r.FullName()); err != nil {
		return nil, err
	}
	if len(c.Commits) != n {
		return nil, ErrCursor("is damaged or was edited")
	}
	for _, id := range c.Commits {
		if !git.IsObjectID(id) {
			return nil, ErrCursor("is damaged or was edited")
		}
		obj, err := r.Git.Info(ctx, id)
		switch {
		case errors.Is(err, git.ErrMissing):
			return nil, errcode.New(errcode.NotFound, "commit %s, which this cursor was made for, is no longer in %s; leave cursor out to start again from the beginning", git.Short(id), r.FullName())
		case err != nil:
			return nil, err
		case obj.Type != "commit" || obj.OID != id:
			return nil, ErrCursor(fmt.Sprintf("pins %s, which is a %s, not a commit", git.Short(id), obj.Type))
		}
	}
	return c.Commits, nil
}

// ArgsDigest is the digest of a tool's input value without the arguments
// named in skip (the cursor itself, and those next changes, like page):
// what a cursor is bound to.
func ArgsDigest(in any, skip ...string) string {
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
