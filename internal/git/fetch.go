package git

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// InitBare creates an empty bare repository at dir (absolute), for a mirror.
func InitBare(ctx context.Context, env *Env, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("git init --bare: %w", err)
	}
	r := Open(env, dir, "")
	defer r.Close()
	return r.runWriting(ctx, gitCommand("init", "--bare", "--quiet").withoutWorkTree().writing(""))
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
	env := []string{"GIT_ALLOW_PROTOCOL=" + u.Scheme} // beats every protocol.* setting
	if header != "" {
		env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0="+header)
	}
	c := gitCommand("fetch", "--prune", "--quiet", "--no-write-fetch-head", "--no-auto-gc", "--no-recurse-submodules").
		config("http.followRedirects=false").config("fetch.recurseSubmodules=false").
		paths(remote).paths(refspecs...). // after "--": the remote and refspecs, never options
		writing(u.Scheme, env...)
	if err := r.runWriting(ctx, c); err != nil {
		return fmt.Errorf("git fetch from %s: %w", u.Host, err)
	}
	return nil
}

// SetHead points the mirror's HEAD at a branch.
func (r *Repo) SetHead(ctx context.Context, branch string) error {
	return r.runWriting(ctx, gitCommand("symbolic-ref", "HEAD").rev("refs/heads/"+branch).writing(""))
}
