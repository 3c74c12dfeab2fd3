package git

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

// InitBare creates an empty bare repository at dir (absolute), for a mirror.
func InitBare(ctx context.Context, env *Env, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("git init --bare: %w", err)
	}
	r := Open(env, dir, "")
	defer r.Close()
	return r.run.RunWriting(ctx, gitexec.Command("init", "--bare", "--quiet").WithoutWorkTree().Writing(""))
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
	c := gitexec.Command("fetch", "--prune", "--quiet", "--no-write-fetch-head", "--no-auto-gc", "--no-recurse-submodules").
		Config("http.followRedirects=false").Config("fetch.recurseSubmodules=false").
		Paths(remote).Paths(refspecs...). // after "--": the remote and refspecs, never options
		Writing(u.Scheme, env...)
	if err := r.run.RunWriting(ctx, c); err != nil {
		return fmt.Errorf("git fetch from %s: %w", u.Host, err)
	}
	return nil
}

// SetHead points the mirror's HEAD at a branch.
func (r *Repo) SetHead(ctx context.Context, branch string) error {
	return r.run.RunWriting(ctx, gitexec.Command("symbolic-ref", "HEAD").Rev("refs/heads/"+branch).Writing(""))
}
