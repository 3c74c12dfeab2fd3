//go:build !unix

package gitexec

import "os"

// lockHome makes no lock where there is no flock (Windows): homes left by
// a killed server are not swept there (docs/security.md, "Not enforced").
func lockHome(string) (*os.File, error) { return nil, nil }

// leftover: without a lock, no home is known to be left over.
func leftover(string, string, int) bool { return false }
