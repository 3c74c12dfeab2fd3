package paging

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
)

// A cursor comes back as it was made, for the tool, the arguments and the
// repository it was made for, and for nothing else: any edit, another
// tool, other arguments, another key or another repository is refused in
// words that say what to do.
func TestCursorIsBoundAndSigned(t *testing.T) {
	k := NewKey(bytes.Repeat([]byte{1}, CursorKeyBytes)).Naming([]string{"get_diff", "list_files"})
	args, otherArgs := ArgsDigest(map[string]any{"base": "main"}), ArgsDigest(map[string]any{"base": "dev"})
	c := Cursor{Tool: "get_diff", Args: args, Commits: []string{strings.Repeat("a", 40)}, File: 3, Section: 1, Line: 7, Split: 2, SplitBytes: 9000}
	s := k.Encode(c, "acme/widgets")
	got, err := k.Decode("get_diff", s, args)
	if err != nil {
		t.Fatal(err)
	}
	c.Key, c.Repo = got.Key, got.Repo
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("decoded %+v, made %+v", got, c)
	}
	if err := got.MadeFor("acme/widgets"); err != nil {
		t.Fatal(err)
	}
	if err := got.MadeFor("acme/other"); err == nil || !strings.Contains(err.Error(), "another repository") {
		t.Fatalf("another repository: %v", err)
	}
	edited := []byte(s)
	edited[len(edited)/3] ^= 1
	for _, bad := range []struct{ tool, cursor, args, want string }{
		{"list_files", s, args, "was made for get_diff, not list_files"},
		{"get_diff", s, otherArgs, "other arguments"},
		{"get_diff", string(edited), args, "damaged or was edited"},
		{"get_diff", s + "A", args, "damaged or was edited"},
		{"get_diff", "", args, "damaged or was edited"},
	} {
		if _, err := k.Decode(bad.tool, bad.cursor, bad.args); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s %q: %v, want %q", bad.tool, bad.cursor, err, bad.want)
		}
	}
	other := NewKey(bytes.Repeat([]byte{2}, CursorKeyBytes))
	if _, err := other.Decode("get_diff", s, args); err == nil || !strings.Contains(err.Error(), "signed with another key") {
		t.Fatalf("another key: %v", err)
	}
}

// A cursor's arguments are bound whatever their order, and without the
// arguments that change from part to part.
func TestArgsDigestSkipsWhatChanges(t *testing.T) {
	type in struct {
		Base   string `json:"base"`
		Cursor string `json:"cursor,omitempty"`
	}
	if ArgsDigest(in{"main", "x"}, "cursor") != ArgsDigest(in{"main", "y"}, "cursor") {
		t.Fatal("the cursor changed the digest of the other arguments")
	}
	if ArgsDigest(in{"main", ""}, "cursor") == ArgsDigest(in{"dev", ""}, "cursor") {
		t.Fatal("two bases, one digest")
	}
}

// A cursor with three commits and positions of the largest diffs is at most
// CursorMaxLen characters: a model copies it into every next call.
func TestCursorIsShort(t *testing.T) {
	k := NewKey(bytes.Repeat([]byte{1}, CursorKeyBytes))
	id := strings.Repeat("f", 40)
	c := Cursor{Tool: "get_pull_request_diff", Args: ArgsDigest(map[string]any{"index": 7}), Commits: []string{id, id, id},
		// A million files, 16 GiB of patch, 100 million lines in a file
		// (Parent and Message are get_commit's, which pins one commit).
		File: 1 << 20, Section: 1, Line: 1 << 27, Files: 1 << 20, Bytes: 1 << 34, Split: 1 << 20, SplitBytes: 1 << 34}
	s := k.Encode(c, "acme/widgets")
	if len(s) > CursorMaxLen {
		t.Fatalf("a cursor of %d characters, over %d: %s", len(s), CursorMaxLen, s)
	}
	got, err := k.Decode(c.Tool, s, c.Args)
	if err != nil {
		t.Fatal(err)
	}
	c.Key, c.Repo = got.Key, got.Repo
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("decoded %+v, made %+v", got, c)
	}
}

// TestCursorWithoutKeyIDIsDamaged: review 3, section D. A cursor with no
// key id was "signed with another key"; no key of this server's makes one
// (and a cursor of the old JSON layout, with or without one, is no longer
// one), so it is damaged or was edited.
func TestCursorWithoutKeyIDIsDamaged(t *testing.T) {
	k := NewKey(bytes.Repeat([]byte{1}, CursorKeyBytes))
	payload := []byte(`{"t":"get_diff","a":"args"}`)
	enc := base64.RawURLEncoding
	s := enc.EncodeToString(payload) + "." + enc.EncodeToString(bytes.Repeat([]byte{7}, cursorMACLen))
	if _, err := k.Decode("get_diff", s, "args"); err == nil || !strings.Contains(err.Error(), "damaged or was edited") {
		t.Fatalf("a cursor without a key id: %v", err)
	}
}
