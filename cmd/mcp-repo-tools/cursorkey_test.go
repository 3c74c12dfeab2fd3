package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The cursor key kept in the cache directory is made on first start, mode
// 0600 in a directory of mode 0700, and read again on the next.
func TestCursorKeyKeptInCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "mcp-repo-tools", "cursor.key")
	key, err := cachedCursorKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(key) != 32 {
		t.Fatalf("a key of %d bytes", len(key))
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		t.Errorf("the key file has mode %04o, want 0600", perm)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the key's directory: %v, mode %04o, want 0700", err, st.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	if got := strings.TrimSpace(string(data)); got != hex.EncodeToString(key) {
		t.Errorf("the file holds %q, not the key as hex", got)
	}
	again, err := cachedCursorKey(path)
	if err != nil || !bytes.Equal(again, key) {
		t.Fatalf("read again: %x, %v; want %x", again, err, key)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".cursor.key.*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// Servers started at the same moment on one machine agree on one key:
// goroutines making it at once all get the key that is then in the file.
func TestCursorKeyMadeAtOnce(t *testing.T) {
	for try := range 20 {
		path := filepath.Join(t.TempDir(), "mcp-repo-tools", "cursor.key")
		keys := make([][]byte, 8)
		var wg sync.WaitGroup
		for i := range keys {
			wg.Go(func() {
				k, err := cachedCursorKey(path)
				if err != nil {
					t.Error(err)
				}
				keys[i] = k
			})
		}
		wg.Wait()
		kept, err := readCursorKey(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if !bytes.Equal(k, kept) {
				t.Fatalf("try %d: goroutine %d got key %x, the file holds %x", try, i, k, kept)
			}
		}
	}
}

// cursorOf is the cursor of the next call in call --json's output.
func cursorOf(t *testing.T, stdout string) string {
	t.Helper()
	var res struct {
		Meta map[string]struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("call --json: %v\n%s", err, stdout)
	}
	c, _ := res.Meta["mcp-repo-tools/next"].Arguments["cursor"].(string)
	if c == "" {
		t.Fatalf("no cursor in the next call: %s", stdout)
	}
	return c
}

// A cursor one call printed continues in the next: processes started at
// once with an empty cache directory make one key between them, and every
// cursor they print is taken by a call after them.
func TestCursorKeyAcrossCalls(t *testing.T) {
	r := project(t)
	env := []string{"XDG_CACHE_HOME=" + t.TempDir()}
	cursors := make([]string, 4)
	var wg sync.WaitGroup
	for i := range cursors {
		wg.Go(func() {
			stdout, stderr, code := runBinary(t, r.Dir, env, "call", "--json", "list_files", "recursive=true", "limit=1")
			if code != 0 {
				t.Errorf("call: code %d, %s", code, stderr)
				return
			}
			cursors[i] = cursorOf(t, stdout)
		})
	}
	wg.Wait()
	for _, c := range cursors {
		stdout, stderr, code := runBinary(t, r.Dir, env, "call", "list_files", "recursive=true", "limit=1", "offset=1", "cursor="+c)
		if code != 0 || !strings.Contains(stdout, "sub/dir/file.txt") {
			t.Fatalf("the next call: code %d, %s%s", code, stdout, stderr)
		}
	}
	// Another cache directory is another key: the cursor is refused with
	// the key-changed message.
	other := []string{"XDG_CACHE_HOME=" + t.TempDir()}
	_, stderr, code := runBinary(t, r.Dir, other, "call", "list_files", "recursive=true", "limit=1", "offset=1", "cursor="+cursors[0])
	if code != 1 || !strings.HasPrefix(stderr, "INVALID_ARGUMENT: ") || !strings.Contains(stderr, "key changed") {
		t.Fatalf("a cursor of another key: code %d, %s", code, stderr)
	}
}

// --cursor-key-file (or MCP_REPO_TOOLS_CURSOR_KEY_FILE) signs with the key
// in the file: two calls with cache directories of their own continue each
// other's cursors.
func TestCursorKeyFile(t *testing.T) {
	r := project(t)
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte(strings.Repeat("ab", 40)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := []string{"XDG_CACHE_HOME=" + t.TempDir()}
	stdout, stderr, code := runBinary(t, r.Dir, first, "call", "--cursor-key-file", file, "--json", "list_files", "recursive=true", "limit=1")
	if code != 0 {
		t.Fatalf("call: code %d, %s", code, stderr)
	}
	cur := cursorOf(t, stdout)
	second := []string{"XDG_CACHE_HOME=" + t.TempDir(), "MCP_REPO_TOOLS_CURSOR_KEY_FILE=" + file}
	stdout, stderr, code = runBinary(t, r.Dir, second, "call", "list_files", "recursive=true", "limit=1", "offset=1", "cursor="+cur)
	if code != 0 || !strings.Contains(stdout, "sub/dir/file.txt") {
		t.Fatalf("the next call with the same key file: code %d, %s%s", code, stdout, stderr)
	}
}

// A bad --cursor-key-file refuses to start, saying what is wrong with it.
func TestCursorKeyFileBad(t *testing.T) {
	r := project(t)
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct{ name, file, want string }{
		{"missing", filepath.Join(dir, "none"), "no such file"},
		{"directory", dir, "not a regular file"},
		{"empty", write("empty", "", 0o600), "hex digits"},
		{"short", write("short", strings.Repeat("ab", 31)+"\n", 0o600), "at least 32 random bytes"},
		{"not hex", write("nothex", strings.Repeat("zz", 32)+"\n", 0o600), "hex digits"},
		{"world-readable", write("open", strings.Repeat("ab", 32)+"\n", 0o644), "other users"},
		{"too large", write("large", strings.Repeat("ab", 4000), 0o600), "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runBinary(t, r.Dir, nil, "call", "--cursor-key-file", c.file, "list_files")
			if code == 0 || !strings.Contains(stderr, "--cursor-key-file "+c.file) || !strings.Contains(stderr, c.want) {
				t.Fatalf("code %d, stderr %q; want a refusal naming the flag and %q", code, stderr, c.want)
			}
			_, stderr, code = runBinary(t, r.Dir, []string{"MCP_REPO_TOOLS_CURSOR_KEY_FILE=" + c.file}, "serve")
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Fatalf("serve from the environment: code %d, stderr %q", code, stderr)
			}
		})
	}
}

// A cache directory that cannot be written leaves a key of the process
// alone, with a warning that cursors do not survive a restart; a bad key
// file in the cache refuses to start.
func TestCursorKeyCacheNotWritable(t *testing.T) {
	r := project(t)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBinary(t, r.Dir, []string{"XDG_CACHE_HOME=" + notDir}, "call", "list_files")
	if code != 0 || !strings.Contains(stdout, "main.go") || !strings.Contains(stderr, "do not survive a restart") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	cache := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cache, "mcp-repo-tools"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "mcp-repo-tools", "cursor.key"), []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runBinary(t, r.Dir, []string{"XDG_CACHE_HOME=" + cache}, "call", "list_files")
	if code == 0 || !strings.Contains(stderr, "cursor.key") || !strings.Contains(stderr, "remove the file") {
		t.Fatalf("a bad key in the cache: code %d, stderr %q", code, stderr)
	}
}
