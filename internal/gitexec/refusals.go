package gitexec

import (
	"errors"
	"strings"
)

// ErrNotFetched marks an object a partial clone does not have: git would
// fetch it from the promisor remote, which the server never lets it do.
var ErrNotFetched = errors.New("an object is missing from this partial clone, and the server does not fetch missing objects")

// ErrSandboxRefused marks git failing on a file the sandbox kept from it:
// one the repository's config or files name outside its store. The error
// holds no path: git's own words would quote the host's.
var ErrSandboxRefused = errors.New("the sandbox refused git a file that the repository's config or files name outside its store")

// Refusal reads a failed git process's last words: ErrNotFetched,
// ErrSandboxRefused, or nil when they say neither.
func (r *Repo) Refusal(stderr string) error {
	switch {
	// A partial clone's lazy fetch: refused the transport ("could not
	// fetch <id> from promisor remote") or, first, the config write
	// (the sandbox: "could not set 'remote.<name>.partialclonefilter'").
	case strings.Contains(stderr, "from promisor remote"), strings.Contains(stderr, ".partialclonefilter' to "):
		return ErrNotFetched
	case r.env.sandbox != nil && strings.Contains(stderr, "Permission denied"):
		return ErrSandboxRefused
	}
	return nil
}
