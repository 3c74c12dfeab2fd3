package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// The cursor key signs the cursors of partial replies (server.Config's
// CursorKey): a secret, so that no one else can make a cursor. It is read
// from --cursor-key-file, else kept in the user's cache directory, made
// on first start; replicas on several machines share one by the flag.

// cursorKeyFileMax bounds what is read of a key file: a key is 64 hex
// digits, a few hundred at most.
const cursorKeyFileMax = 4096

// cursorKey is the key to sign cursors with: --cursor-key-file's when
// given; else the one kept in the user's cache directory, made there on
// first start; else, when the cache cannot be written, a key of this
// process alone (with a warning: its cursors do not outlive it).
func cursorKey(file string, log *slog.Logger) ([]byte, error) {
	if file != "" {
		key, err := readCursorKey(file)
		if err != nil {
			return nil, fmt.Errorf("--cursor-key-file %s: %w", file, err)
		}
		return key, nil
	}
	path, err := cachedCursorKeyPath()
	if err == nil {
		var key []byte
		if key, err = cachedCursorKey(path); err == nil {
			return key, nil
		}
		var cannot *cannotWrite
		if !errors.As(err, &cannot) {
			return nil, fmt.Errorf("the cursor key %s: %w (remove the file to make a new key, or give --cursor-key-file)", path, err)
		}
	}
	log.Warn("the cursor key cannot be kept in the cache directory: a key for this process only, so cursors do not survive a restart; give --cursor-key-file to keep one", "error", err)
	return nil, nil // the server makes a random key of its own
}

// cachedCursorKeyPath is where the cursor key is kept when no file is
// given: beside the --forge mirrors' default directory.
func cachedCursorKeyPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", &cannotWrite{err}
	}
	return filepath.Join(dir, "mcp-repo-tools", "cursor.key"), nil
}

// cannotWrite: the cache directory cannot hold a key.
type cannotWrite struct{ err error }

func (e *cannotWrite) Error() string { return e.err.Error() }
func (e *cannotWrite) Unwrap() error { return e.err }

// cachedCursorKey reads the key kept at path, making it first when there is
// none. A new key is written whole to a file of its own, then linked to
// path, which fails when path exists: of servers started at the same moment
// on one machine one makes the key and the others read it.
func cachedCursorKey(path string) ([]byte, error) {
	key, err := readCachedKey(path)
	var unreadable *fs.PathError
	var rule *brokenRule
	switch {
	case err == nil:
		return key, nil
	case errors.Is(err, fs.ErrNotExist):
		// made below
	case errors.As(err, &rule):
		return nil, err
	case errors.As(err, &unreadable):
		return nil, &cannotWrite{err} // not a directory, no permission
	default:
		return nil, err // a file that holds no key
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &cannotWrite{err}
	}
	tmp, err := writeNewKey(dir)
	if err != nil {
		return nil, &cannotWrite{err}
	}
	err = os.Link(tmp, path)
	os.Remove(tmp)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, &cannotWrite{err}
	}
	return readCachedKey(path)
}

// writeNewKey writes a new random key to a new file (mode 0600) in dir
// and returns the file's name.
func writeNewKey(dir string) (string, error) {
	f, err := os.CreateTemp(dir, ".cursor.key.*")
	if err != nil {
		return "", err
	}
	key := make([]byte, paging.CursorKeyBytes)
	rand.Read(key) // never fails (crypto/rand)
	_, err = f.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// readCursorKey reads the operator's key file (--cursor-key-file): it may
// be reached through a symlink (a mounted secret is one), but must be a
// regular file that only the server's user or root controls (see
// openOperatorKey).
func readCursorKey(path string) ([]byte, error) {
	f, err := openOperatorKey(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readKey(f)
}

// readCachedKey reads the key the server keeps in its cache: the file
// itself, the server's own, in a directory of the server's own (see
// openCachedKey).
func readCachedKey(path string) ([]byte, error) {
	f, err := openCachedKey(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readKey(f)
}

// brokenRule is a key file, or its directory, that breaks a rule of what
// a key may be: it stops the start, naming the rule.
type brokenRule struct{ msg string }

func (e *brokenRule) Error() string { return e.msg }

func broken(format string, args ...any) error { return &brokenRule{fmt.Sprintf(format, args...)} }

// readKey reads a key from an opened key file: at least
// paging.CursorKeyBytes bytes as hex digits (64 or more; surrounding
// whitespace, a final newline, is ignored).
func readKey(f *os.File) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, cursorKeyFileMax+1))
	if err != nil {
		return nil, err
	}
	if len(data) > cursorKeyFileMax {
		return nil, fmt.Errorf("larger than %d bytes: a key file holds one key as hex digits", cursorKeyFileMax)
	}
	key, err := hex.DecodeString(string(bytes.TrimSpace(data)))
	if err != nil || len(key) < paging.CursorKeyBytes {
		return nil, fmt.Errorf("does not hold a key: want at least %d random bytes as %d or more hex digits (openssl rand -hex %d makes one)",
			paging.CursorKeyBytes, 2*paging.CursorKeyBytes, paging.CursorKeyBytes)
	}
	return key, nil
}

// statRegular refuses, before it is opened, a key file that is not a
// regular file where path leads (a FIFO would block the open).
func statRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return broken("%s, not a regular file: a key file is a regular file", fileKind(st.Mode()))
	}
	return nil
}

// fileKind names what a non-regular file is, for a refusal.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}
