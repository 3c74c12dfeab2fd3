package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"strings"
)

// InitBare creates an empty bare repository at dir (absolute), for a mirror.
func InitBare(ctx context.Context, env *Env, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "init", "--bare", "--quiet", dir)
	cmd.Env, cmd.Dir = env.vars, env.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git init --bare: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Fetch updates the repository from remote (an http or https URL) with the
// given refspecs, pruning refs gone there. header, if not empty, is an HTTP
// header (such as "Authorization: token X") sent with every request; it
// reaches git through the environment only: never the command line, a URL
// or a config file. Only the remote's own protocol is allowed and redirects
// are not followed, so the header goes nowhere else.
func (r *Repo) Fetch(ctx context.Context, remote, header string, refspecs ...string) error {
	u, err := url.Parse(remote)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil {
		return errors.New("git fetch: the remote must be an http(s) URL without credentials")
	}
	args := []string{"-c", "protocol.allow=never", "-c", "protocol." + u.Scheme + ".allow=always",
		"-c", "http.followRedirects=false", "-c", "fetch.recurseSubmodules=false",
		"fetch", "--prune", "--quiet", "--no-write-fetch-head", "--no-auto-gc", "--", remote}
	args = append(args, refspecs...)
	// Fetches are bounded by their caller (forge.Mirrors), not by the
	// process slots: a few slow fetches must not hold up every read.
	cmd := r.command(ctx, false, args)
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0="+header)
	if header == "" {
		cmd.Env = cmd.Env[:len(cmd.Env)-3]
	}
	stderr := &capped{max: maxStderr}
	cmd.Stderr, cmd.Stdout = stderr, io.Discard
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting git fetch: %w", err)
	}
	r.env.capMemory(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fetch from %s: %v: %s", u.Host, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// SetHead points the repository's HEAD at a branch.
func (r *Repo) SetHead(ctx context.Context, branch string) error {
	_, err := r.Output(ctx, "symbolic-ref", "HEAD", "refs/heads/"+branch)
	return err
}
