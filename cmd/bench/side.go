package main

import (
	"context"
	"path/filepath"
	"strings"
	"unicode"
)

// side is one build of the server on the repository at hand: the
// working tree's, or the baseline's (--baseline).
type side struct {
	s *session
	// sandboxOff is a second server on the same repository with the git
	// sandbox off, for the cases that measure what the sandbox costs.
	sandboxOff *session
	// fresh starts another server on the repository at hand, as the
	// first one was started: each timed drain of a paging case gets its
	// own, so that none is answered from what an earlier one left in the
	// patch cache.
	fresh func() (*session, error)
	// freshLean does the same with leanClient as the client.
	freshLean func() (*leanClient, error)
	// freshAs does the same with the go-sdk client named client (the
	// clients case).
	freshAs func(client string) (*session, error)
}

// startSide starts bin on dir with flags, and its twin with the sandbox
// off when a case needs it; its logs are logDir/<prefix>*.log.
func startSide(ctx context.Context, bin, dir, logDir, prefix string, withSandboxOff bool, flags []string) (*side, error) {
	log := func(name string) string { return filepath.Join(logDir, prefix+name+".log") }
	sd := &side{
		fresh:     func() (*session, error) { return startServer(ctx, bin, dir, log("-fresh"), flags...) },
		freshLean: func() (*leanClient, error) { return startLean(ctx, bin, dir, log("-lean"), flags...) },
		freshAs: func(client string) (*session, error) {
			return startServerAs(ctx, bin, dir, log("-as-"+fileWord(client)), client, flags...)
		},
	}
	var err error
	if sd.s, err = startServer(ctx, bin, dir, log(""), flags...); err != nil {
		return nil, err
	}
	if withSandboxOff {
		if sd.sandboxOff, err = startServer(ctx, bin, dir, log("-sandbox-off"), append(flags, "--sandbox", "off")...); err != nil {
			sd.s.close()
			return nil, err
		}
	}
	return sd, nil
}

// fileWord is s with every byte but letters and digits made '-', to be
// part of a file's name.
func fileWord(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '-'
	}, s)
}

// close stops the side's servers.
func (sd *side) close(logf logFunc, name string) {
	for _, srv := range []*session{sd.s, sd.sandboxOff} {
		if srv == nil {
			continue
		}
		if err := srv.close(); err != nil {
			logf("closing the %s server: %v", name, err)
		}
	}
}
