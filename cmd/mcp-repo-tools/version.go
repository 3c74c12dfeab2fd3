package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/syntax"
)

// The release build (scripts/release) sets these with -ldflags "-X
// main.releaseVersion=... -X main.releaseCommit=... -X main.releaseTree=...":
// the version from git describe --tags --always --dirty, the commit's full
// id, and "clean" or "modified" (git status --porcelain, untracked files
// included). It sets them itself rather than relying on Go's VCS stamping,
// which does not happen in a git worktree or submodule (whose .git is a
// file) and gives pseudo-versions rather than git describe's names. Empty
// in any other build.
var releaseVersion, releaseCommit, releaseTree string

// buildVersion is what the binary knows of the build that made it (see
// versionOf).
func buildVersion() (short, line string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return versionOf(info, buildStamp{releaseVersion, releaseCommit, releaseTree}, parserDetail()+", "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
}

// parserDetail names what list_symbols parses with, and the languages it
// reads: a build without cgo reads only Go (internal/syntax).
func parserDetail() string {
	return "symbols by " + syntax.ParserName() + " (" + strings.Join(syntax.Languages(), " ") + ")"
}

// buildStamp is what the release build set (all empty in another build).
type buildStamp struct{ version, commit, tree string }

// versionOf gives the version alone (short: MCP's serverInfo.version) and
// the line "mcp-repo-tools version" prints:
//
//	mcp-repo-tools v0.1.0 (commit 1a2b3c4d5e6f, clean tree, go1.26.8 linux/amd64)
//
// The version, commit and tree are the release build's; without it, what
// Go recorded: the main module's version (v0.1.0 from go install
// ...@v0.1.0; a tag or pseudo-version, "+dirty" if modified, from a build
// with VCS stamping in a checkout; "(devel)" from go build or go run
// without VCS information) and, when it stamped VCS information, the
// commit and whether the tree was modified. The commit is shown as its
// first 12 hex digits; a detail the build did not record is left out.
func versionOf(info *debug.BuildInfo, release buildStamp, platform string) (short, line string) {
	short, revision, tree := release.version, release.commit, release.tree
	if short == "" && info != nil {
		short = info.Main.Version
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision":
				revision = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				tree = "modified"
			case s.Key == "vcs.modified" && s.Value == "false":
				tree = "clean"
			}
		}
	}
	if short == "" {
		short = "(devel)"
	}
	var details []string
	if revision != "" {
		details = append(details, "commit "+revision[:min(12, len(revision))])
	}
	if tree != "" {
		details = append(details, tree+" tree")
	}
	details = append(details, platform)
	return short, fmt.Sprintf("mcp-repo-tools %s (%s)", short, strings.Join(details, ", "))
}

// shortVersion is the version alone, as serverInfo.version gives it.
func shortVersion() string {
	short, _ := buildVersion()
	return short
}
