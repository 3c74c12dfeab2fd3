//go:build unix

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

var goodKey = strings.Repeat("ab", 32) + "\n"

// TestCachedCursorKeyRules: review 3, findings 02 and 03. The key kept in
// the cache was accepted group-readable, owned by another user, through a
// symlink or in a directory open to others, so a user who shares the cache
// could plant a key they know; a FIFO there hung the start. Each is
// refused now, naming the rule, and a FIFO without blocking.
func TestCachedCursorKeyRules(t *testing.T) {
	setup := func(t *testing.T, dirMode os.FileMode) (string, string) {
		dir := filepath.Join(t.TempDir(), "mcp-repo-tools")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, dirMode); err != nil {
			t.Fatal(err)
		}
		return dir, filepath.Join(dir, "cursor.key")
	}
	write := func(t *testing.T, path string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte(goodKey), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		make  func(t *testing.T) string
		wants string
	}{
		{"group-readable key", func(t *testing.T) string {
			_, p := setup(t, 0o700)
			write(t, p, 0o640)
			return p
		}, "no group or other bits"},
		{"group-writable key", func(t *testing.T) string {
			_, p := setup(t, 0o700)
			write(t, p, 0o660)
			return p
		}, "no group or other bits"},
		{"symlinked key", func(t *testing.T) string {
			_, p := setup(t, 0o700)
			planted := filepath.Join(t.TempDir(), "planted")
			write(t, planted, 0o600)
			if err := os.Symlink(planted, p); err != nil {
				t.Fatal(err)
			}
			return p
		}, "must be the file itself"},
		{"directory open to all (the image's 1777)", func(t *testing.T) string {
			_, p := setup(t, 0o1777)
			write(t, p, 0o600)
			return p
		}, "no group or other bits (chmod 700"},
		{"group-readable directory, no key yet", func(t *testing.T) string {
			_, p := setup(t, 0o750)
			return p
		}, "chmod 700"},
		{"symlinked directory", func(t *testing.T) string {
			real, _ := setup(t, 0o700)
			write(t, filepath.Join(real, "cursor.key"), 0o600)
			link := filepath.Join(t.TempDir(), "mcp-repo-tools")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(link, "cursor.key")
		}, "is a symlink"},
		{"FIFO", func(t *testing.T) string {
			_, p := setup(t, 0o700)
			if err := unix.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}, "a FIFO, not a regular file"},
	}
	if os.Geteuid() == 0 {
		cases = append(cases, struct {
			name  string
			make  func(t *testing.T) string
			wants string
		}{"key of another user", func(t *testing.T) string {
			_, p := setup(t, 0o700)
			write(t, p, 0o600)
			if err := os.Chown(p, 4242, 4242); err != nil {
				t.Fatal(err)
			}
			return p
		}, "owned by uid 4242"}, struct {
			name  string
			make  func(t *testing.T) string
			wants string
		}{"directory of another user", func(t *testing.T) string {
			dir, p := setup(t, 0o700)
			if err := os.Chown(dir, 4242, 4242); err != nil {
				t.Fatal(err)
			}
			return p
		}, "owned by uid 4242"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.make(t)
			key, err := cachedCursorKey(path)
			var cannot *cannotWrite
			if err == nil || !strings.Contains(err.Error(), c.wants) || errors.As(err, &cannot) {
				t.Fatalf("key %x, err %v; want a refusal that stops the start, saying %q", key, err, c.wants)
			}
		})
	}
}

// TestCursorKeyFileRules: --cursor-key-file may be a symlink (a mounted
// secret) and group-readable (the operator's choice), but what it leads to
// must be a regular file of the server's user or root that no one else may
// write; a FIFO or a device is refused without blocking.
func TestCursorKeyFileRules(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(goodKey), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file("target", 0o640), link); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{file("own", 0o600), file("group-readable", 0o640), file("read-only", 0o400), link} {
		if _, err := readCursorKey(ok); err != nil {
			t.Errorf("%s: %v", filepath.Base(ok), err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{
		file("group-writable", 0o660): "no one but its owner may write",
		file("other-writable", 0o602): "no one but its owner may write",
		file("other-readable", 0o604): "other users may read it",
		fifo:                          "a FIFO, not a regular file",
		fifoLink:                      "a FIFO, not a regular file",
		"/dev/null":                   "a device, not a regular file",
	}
	if os.Geteuid() == 0 {
		other := file("other-owner", 0o600)
		if err := os.Chown(other, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		bad[other] = "owned by uid 4242: a --cursor-key-file must be owned by the server's user"
	}
	for path, want := range bad {
		if _, err := readCursorKey(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", filepath.Base(path), err, want)
		}
	}
}
