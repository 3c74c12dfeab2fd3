package paging

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
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
	Tool string
	// Args is the digest of the call's other arguments (ArgsDigest).
	Args string
	// Key is the id of the key that signed it (Key.id), which tells
	// a cursor of another key from an edited one.
	Key string
	// Repo is the digest of the repository it was made for (repoDigest).
	Repo string
	// Commits are the commits pinned, in an order each tool fixes.
	Commits []string
	// Where the next part starts: a file (a change's index in git's order),
	// a section of it (a type change has two), a line of that section's
	// body; or an offset in a list.
	File    int
	Section int
	Line    int64
	// Totals measured for the first part, so later parts need not measure
	// them again: files and patch bytes.
	Files int
	Bytes int64
	// Inside a file (Line > 0): which of the file's parts the next is,
	// and the size of the file's patch, when known (SplitPos).
	Split      int
	SplitBytes int64
	// Inside a line that comes in pieces: the bytes of it given already,
	// and its size (diff.Pos).
	Byte, LineBytes int64
	// get_commit's parts before its patch: the next parent to list, and
	// the byte offset where the message goes on (0: none).
	Parent  int
	Message int
	// Part is the number of the part the cursor asks for, and Parts how
	// many the whole reply takes, as the first part counted them by the
	// pager's own cut (0: not counted).
	Part, Parts int
	// Folded: a diff folded by collapseRepeated, the byte offset in its
	// patterns and sites where the next part goes on (their length once
	// they are all shown: the rest goes on from File and the fields after
	// it); 0 in a diff not folded.
	Folded int
}

// CursorKeyBytes is the size of a cursor key: the command makes keys of
// this size and takes none shorter.
const CursorKeyBytes = 32

// Key signs cursors. The secret never leaves the server; its id,
// a few bytes of a hash of it, is told in every cursor.
type Key struct {
	secret []byte
	id     string
	// tools are the names a cursor made for another tool is told by.
	tools []string
}

const (
	cursorMACLen   = 10
	cursorKeyIDLen = 3
	repoDigestLen  = 4
	argsDigestLen  = 8
	// cursorVersion starts a cursor's bytes: a cursor of another layout
	// is refused as damaged.
	cursorVersion = 5
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

// Naming is k telling a cursor made for another of tools by its name.
func (k Key) Naming(tools []string) Key {
	k.tools = tools
	return k
}

// repoDigest names the repository a cursor is made for: the served name,
// as resolved (also when the call left owner and repo out).
func repoDigest(fullName string) string {
	sum := sha256.Sum256([]byte("mcp-repo-tools cursor repository\x00" + fullName))
	return base64.RawURLEncoding.EncodeToString(sum[:repoDigestLen])
}

// tag is a byte of a hash of a tool's name: which tool a cursor was made
// for, found among the server's tools (Key.Naming) before its signature is
// checked.
func tag(s string) byte {
	sum := sha256.Sum256([]byte(s))
	return sum[0]
}

// argsBytes is the digest of the arguments (ArgsDigest) as a cursor carries
// it; any other text, as tests give, is hashed to as many bytes.
func argsBytes(args string) []byte {
	if b, err := base64.RawURLEncoding.DecodeString(args); err == nil && len(b) == argsDigestLen {
		return b
	}
	sum := sha256.Sum256([]byte(args))
	return sum[:argsDigestLen]
}

// A cursor is written in bytes, not JSON, so that it is short (at most 160
// characters with three commits): a model copies it into every next call,
// and every part carries it twice. Its layout: the version, the key's id,
// a byte of the tool's name (the names are the server's), the arguments'
// digest, the repository's digest, the commits (an id as its bytes), the
// positions as unsigned varints, then the signature over all of that and
// the tool's name.

// Encode signs c, made for the repository named fullName.
func (k Key) Encode(c Cursor, fullName string) string {
	id, _ := base64.RawURLEncoding.DecodeString(k.id)
	repo, _ := base64.RawURLEncoding.DecodeString(repoDigest(fullName))
	b := []byte{cursorVersion}
	b = append(b, id...)
	b = append(b, tag(c.Tool))
	b = append(b, argsBytes(c.Args)...)
	b = append(b, repo...)
	b = append(b, byte(len(c.Commits)))
	for i, commit := range c.Commits {
		if j := slices.Index(c.Commits[:i], commit); j >= 0 {
			b = append(b, commitSame, byte(j)) // a merge base that is the base
			continue
		}
		b = appendCommit(b, commit)
	}
	for _, v := range []int64{int64(c.File), int64(c.Section), c.Line, int64(c.Files), c.Bytes, int64(c.Split), c.SplitBytes, int64(c.Parent), int64(c.Message), c.Byte, c.LineBytes, int64(c.Part), int64(c.Parts), int64(c.Folded)} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	b = append(b, k.mac(b, c.Tool)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// CursorMaxLen is the longest cursor with three commit ids (SHA-1) and
// positions of any size; CursorProbe stands in for a cursor not yet made
// where a reply's room is reckoned (a repository of SHA-256 ids has longer
// ones, and the reply is fitted again).
const CursorMaxLen = 160

var CursorProbe = strings.Repeat("x", CursorMaxLen)

// A commit in a cursor is a byte and its bytes: an object id as its 20 or
// 32 bytes, the byte its length; any other text as it is, after
// commitText and its length; one pinned before, commitSame and its index.
const (
	commitText = 0
	commitSame = 1
)

func appendCommit(b []byte, commit string) []byte {
	if raw, err := hex.DecodeString(commit); err == nil && git.IsObjectID(commit) {
		return append(append(b, byte(len(raw))), raw...)
	}
	if len(commit) > 255 {
		panic("paging: a cursor's commit of more than 255 bytes")
	}
	return append(append(b, commitText, byte(len(commit))), commit...)
}

// readCommit reads a commit appendCommit wrote at the start of b, and
// what follows it.
func readCommit(b []byte) (commit string, rest []byte, ok bool) {
	switch {
	case len(b) >= 21 && b[0] == 20, len(b) >= 33 && b[0] == 32:
		n := int(b[0])
		return hex.EncodeToString(b[1 : 1+n]), b[1+n:], true
	case len(b) >= 2 && b[0] == commitText && len(b) >= 2+int(b[1]):
		return string(b[2 : 2+int(b[1])]), b[2+int(b[1]):], true
	}
	return "", nil, false
}

func (k Key) mac(payload []byte, tool string) []byte {
	m := hmac.New(sha256.New, k.secret)
	m.Write(payload)
	m.Write([]byte("\x00" + tool))
	return m.Sum(nil)[:cursorMACLen]
}

func ErrCursor(why string) error {
	return errcode.New(errcode.InvalidArgument, "cursor %s: pass the cursor exactly as the previous reply gave it, with the same other arguments, or leave it out to start from the beginning", why)
}

// Decode reads the cursor s that tool was given with arguments whose
// digest is args. The repository and the pins are checked where the
// repository is known (CheckPins, MadeFor).
func (k Key) Decode(tool, s, args string) (Cursor, error) {
	c, err := k.Open(s, tool)
	switch {
	case err != nil:
		return Cursor{}, err
	case c.Tool != tool:
		return Cursor{}, ErrCursor("was made for " + c.Tool + ", not " + tool)
	case !bytes.Equal(argsBytes(c.Args), argsBytes(args)):
		return Cursor{}, ErrCursor("was made for a call with other arguments")
	}
	return c, nil
}

// Open reads a cursor this key signed, for whichever of the server's tools
// (or tool) it was made.
func (k Key) Open(s, tool string) (Cursor, error) {
	damaged := ErrCursor("is damaged or was edited")
	// Strict: the last character of a cursor whose length is not a
	// multiple of 3 bytes has bits that encode nothing; without Strict an
	// edit of those bits would decode to the same bytes and pass.
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	const head = 1 + cursorKeyIDLen + 1 + argsDigestLen + repoDigestLen + 1
	if err != nil || len(b) < head+cursorMACLen || b[0] != cursorVersion {
		return Cursor{}, damaged
	}
	payload, sum := b[:len(b)-cursorMACLen], b[len(b)-cursorMACLen:]
	at := 1
	field := func(n int) []byte { at += n; return payload[at-n : at] }
	enc := base64.RawURLEncoding
	c := Cursor{Key: enc.EncodeToString(field(cursorKeyIDLen))}
	toolTag := field(1)[0]
	c.Args = enc.EncodeToString(field(argsDigestLen))
	c.Repo = enc.EncodeToString(field(repoDigestLen))
	if c.Key != k.id {
		return Cursor{}, errcode.New(errcode.InvalidArgument, "cursor was signed with another key: the server's cursor key changed since (a restart with a new key, or a replica with another key); leave cursor out and call again to start over")
	}
	for _, name := range append([]string{tool}, k.tools...) {
		if tag(name) == toolTag && hmac.Equal(sum, k.mac(payload, name)) {
			c.Tool = name
			break
		}
	}
	if c.Tool == "" {
		return Cursor{}, damaged
	}
	rest := payload[head:]
	for n := payload[head-1]; n > 0; n-- {
		if len(rest) >= 2 && rest[0] == commitSame {
			if int(rest[1]) >= len(c.Commits) {
				return Cursor{}, damaged
			}
			c.Commits, rest = append(c.Commits, c.Commits[rest[1]]), rest[2:]
			continue
		}
		commit, more, ok := readCommit(rest)
		if !ok {
			return Cursor{}, damaged
		}
		c.Commits, rest = append(c.Commits, commit), more
	}
	var v [14]int64
	for i := range v {
		u, n := binary.Uvarint(rest)
		if n <= 0 || u > math.MaxInt64 {
			return Cursor{}, damaged
		}
		v[i], rest = int64(u), rest[n:]
	}
	if len(rest) != 0 || v[0] > math.MaxInt32 || v[1] > math.MaxInt32 || v[3] > math.MaxInt32 || v[5] > math.MaxInt32 || v[7] > math.MaxInt32 || v[8] > math.MaxInt32 || v[11] > math.MaxInt32 || v[12] > math.MaxInt32 || v[13] > math.MaxInt32 {
		return Cursor{}, damaged
	}
	c.File, c.Section, c.Line, c.Files, c.Bytes = int(v[0]), int(v[1]), v[2], int(v[3]), v[4]
	c.Split, c.SplitBytes, c.Parent, c.Message = int(v[5]), v[6], int(v[7]), int(v[8])
	c.Byte, c.LineBytes = v[9], v[10]
	c.Part, c.Parts, c.Folded = int(v[11]), int(v[12]), int(v[13])
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
// named in skip (the cursor itself, and those next changes, like page)
// and maxBytes, which sizes parts but moves no position: what a cursor is
// bound to.
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
	delete(m, "maxBytes")
	canon, _ := json.Marshal(m) // encoding/json sorts map keys
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:argsDigestLen])
}
