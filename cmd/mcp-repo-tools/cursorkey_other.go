//go:build !unix

package main

import "os"

// openCachedKey: Windows has no owners and modes of the kind the unix
// build checks (docs/security.md, "Not enforced"); the key must still be a
// regular file, checked before and after it is opened.
func openCachedKey(path string) (*os.File, error) { return openOperatorKey(path) }

// openOperatorKey opens a key file that is a regular file.
func openOperatorKey(path string) (*os.File, error) {
	if err := statRegular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path) //nolint:gosec // G304: the operator's own --cursor-key-file
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, broken("not a regular file: a key file is a regular file")
	}
	return f, nil
}
