package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
)

// InitBare creates an empty bare repository at dir (absolute), for a mirror.
func InitBare(ctx context.Context, env *Env, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("git init --bare: %w", err)
	}
	r := Open(env, dir, "")
	defer r.Close()
	return r.runWriting(ctx, "", []string{"init", "--bare", "--quiet"}, nil, "")
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
	args := []string{"-c", "http.followRedirects=false", "-c", "fetch.recurseSubmodules=false",
		"fetch", "--prune", "--quiet", "--no-write-fetch-head", "--no-auto-gc", "--no-recurse-submodules", "--", remote}
	args = append(args, refspecs...)
	env := []string{"GIT_ALLOW_PROTOCOL=" + u.Scheme} // beats every protocol.* setting
	if header != "" {
		env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0="+header)
	}
	if err := r.runWriting(ctx, r.workTreeFor(false), args, env, u.Scheme); err != nil {
		return fmt.Errorf("git fetch from %s: %w", u.Host, err)
	}
	return nil
}

// runWriting runs one of the commands that write a mirror (init, fetch,
// symbolic-ref) to its end. Its sandbox may write the repository's own
// directory and nothing else; network names the protocol it may use ("":
// none). These are bounded by their caller (forge.Mirrors), not by the
// process slots: a few slow fetches must not hold up every read.
func (r *Repo) runWriting(ctx context.Context, workTree string, args, env []string, network string) error {
	cmd := r.command(ctx, workTree, args)
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], env...) // later entries win
	stderr := &capped{max: maxStderr}
	cmd.Stderr, cmd.Stdout = stderr, io.Discard
	if err := r.env.startIn(cmd, []grant{{r.gitDir, accessWrite}}, network != ""); err != nil {
		return fmt.Errorf("starting git: %w", err)
	}
	r.env.capMemory(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// SetHead points the mirror's HEAD at a branch.
func (r *Repo) SetHead(ctx context.Context, branch string) error {
	return r.runWriting(ctx, r.workTreeFor(false), []string{"symbolic-ref", "HEAD", "refs/heads/" + branch}, nil, "")
}
