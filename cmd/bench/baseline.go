package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildBaseline builds the server as it was at rev (--baseline), to be
// measured beside the working tree's in the same run. The source is a
// detached work tree of rev under cache, removed afterwards; the binary is
// kept under cache/bin by the commit rev resolves to, so a second run
// against the same commit reuses it.
func buildBaseline(cache, rev string, logf logFunc) (bin, commit string, err error) {
	root, err := moduleRoot()
	if err != nil {
		return "", "", err
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}").Output()
	if err != nil {
		return "", "", fmt.Errorf("--baseline %s: not a commit of %s: %w", rev, root, err)
	}
	commit = strings.TrimSpace(string(out))
	binDir := filepath.Join(cache, "bin")
	bin = filepath.Join(binDir, "mcp-repo-tools-"+commit)
	if _, err := os.Stat(bin); err == nil {
		logf("reusing the baseline's server binary %s (%s)", bin, rev)
		return bin, commit, nil
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp(cache, "baseline-src-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	git := func(args ...string) error {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := git("worktree", "add", "--detach", "--quiet", src, commit); err != nil {
		return "", "", err
	}
	defer func() {
		_ = git("worktree", "remove", "--force", src)
		_ = git("worktree", "prune")
	}()
	logf("building the baseline's server at %s (%.12s): go build -o %s ./cmd/mcp-repo-tools", rev, commit, bin)
	// Built under another name and renamed: an interrupted build leaves
	// no binary that a later run would take for the baseline.
	if err := goBuild(src, bin+".tmp"); err != nil {
		return "", "", fmt.Errorf("the baseline (%s): %w", rev, err)
	}
	return bin, commit, os.Rename(bin+".tmp", bin)
}
