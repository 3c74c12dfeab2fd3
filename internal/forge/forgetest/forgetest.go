// Package forgetest is a fake Forgejo/Gitea for tests: its API answers the
// version and repository queries, and it serves git over HTTP with git
// http-backend, as a forge does. It can be made to fail on demand.
package forgetest

import (
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Forge is the fake: repository acme/widgets with branches main and topic
// and pull request 1.
type Forge struct {
	URL      string
	Repo     *testrepo.Repo // the repository it serves (push to Bare to change it)
	Bare     string         // the served bare repository
	Down     atomic.Bool    // answer 503 to everything
	Fetches  atomic.Int32   // info/refs requests: one per fetch
	AuthSeen atomic.Value   // Authorization header of the last git request
	// API answers the requests the fake does not know (set it before use).
	API http.HandlerFunc
}

// New starts a fake forge for the test.
func New(t *testing.T) *Forge {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	r := testrepo.New(t)
	r.Write("README.md", "hello\n")
	r.Commit("one")
	r.Git("checkout", "-q", "-b", "topic")
	r.Write("topic.txt", "topic\n")
	r.Git("update-ref", "refs/pull/1/head", r.Commit("topic"))
	r.Git("checkout", "-q", "main")
	root := t.TempDir()
	bare := filepath.Join(root, "acme", "widgets.git")
	r.CloneBare(bare)
	// The bare clone has no refs/pull: push them as a forge keeps them.
	r.Git("push", "-q", bare, "refs/pull/*:refs/pull/*")

	f := &Forge{Repo: r, Bare: bare}
	backend := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"}, Env: []string{
		"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if f.Down.Load() {
			http.Error(w, `{"message":"down"}`, http.StatusServiceUnavailable)
			return
		}
		switch {
		case req.URL.Path == "/api/v1/version":
			io.WriteString(w, `{"version":"1.26.0"}`)
		case req.URL.Path == "/api/v1/repos/acme/widgets":
			io.WriteString(w, `{"full_name":"acme/widgets","clone_url":"`+f.URL+`/git/acme/widgets.git","default_branch":"main"}`)
		case strings.HasPrefix(req.URL.Path, "/git/"):
			if strings.HasSuffix(req.URL.Path, "/info/refs") {
				f.Fetches.Add(1)
			}
			f.AuthSeen.Store(req.Header.Get("Authorization"))
			http.StripPrefix("/git", backend).ServeHTTP(w, req)
		case f.API != nil:
			f.API(w, req)
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}
