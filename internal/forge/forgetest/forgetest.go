// Package forgetest is a fake Forgejo/Gitea for tests: its API answers the
// version and repository queries, and it serves git over HTTP with git
// http-backend, as a forge does. It can be made to fail on demand, and to
// echo every request back in its errors, as a careless forge or proxy might.
package forgetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Forge is the fake: repository acme/widgets with branches main and topic
// and pull request 1, and any repository added with AddRepo.
type Forge struct {
	URL      string
	Repo     *testrepo.Repo // the repository it serves (push to Bare to change it)
	Bare     string         // the served bare repository
	Down     atomic.Bool    // answer 503 to everything
	Fetches  atomic.Int32   // info/refs requests: one per fetch
	AuthSeen atomic.Value   // Authorization header of the last git request
	// EchoAPI, when set to an HTTP status, makes every API request but
	// /version fail with that status and a message quoting the whole
	// request: method, URL, headers (the token with them) and body.
	EchoAPI atomic.Int32
	// EchoGit makes every git request fail with a protocol error quoting
	// the whole request, which git prints on its stderr.
	EchoGit atomic.Bool
	// API answers the requests the fake does not know (set it before use).
	API http.HandlerFunc
	// Listed are more repositories ("owner/name") that /repos/search lists
	// but nothing serves (set it before use).
	Listed []string

	root     string
	mu       sync.Mutex
	apiCalls map[string]int // by path
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
	f := &Forge{Repo: r, root: t.TempDir(), apiCalls: map[string]int{}}
	f.Bare = f.AddRepo("acme", "widgets")

	backend := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"}, Env: []string{
		"GIT_PROJECT_ROOT=" + f.root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if f.Down.Load() {
			http.Error(w, `{"message":"down"}`, http.StatusServiceUnavailable)
			return
		}
		if strings.HasPrefix(req.URL.Path, "/api/") {
			f.mu.Lock()
			f.apiCalls[req.URL.Path]++
			f.mu.Unlock()
			if status := int(f.EchoAPI.Load()); status != 0 && req.URL.Path != "/api/v1/version" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_ = json.NewEncoder(w).Encode(map[string]string{"message": echo(req)})
				return
			}
		}
		owner, name, isRepo := f.repoPath(req.URL.Path)
		switch {
		case req.URL.Path == "/api/v1/version":
			_, _ = io.WriteString(w, `{"version":"1.26.0"}`)
		case isRepo:
			fmt.Fprintf(w, `{"full_name":"%s/%s","clone_url":"%s/git/%s/%s.git","default_branch":"main"}`, owner, name, f.URL, owner, name)
		case req.URL.Path == "/api/v1/repos/search":
			f.search(w, req)
		case strings.HasPrefix(req.URL.Path, "/git/"):
			if strings.HasSuffix(req.URL.Path, "/info/refs") {
				f.Fetches.Add(1)
			}
			f.AuthSeen.Store(req.Header.Get("Authorization"))
			if f.EchoGit.Load() {
				// A smart-HTTP answer whose first packet is an error:
				// git prints it as "remote error: ...".
				w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
				_, _ = io.WriteString(w, pkt("# service=git-upload-pack\n")+"0000"+pkt("ERR "+echo(req)+"\n"))
				return
			}
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

// AddRepo serves a bare copy of Repo as owner/name and returns its path.
func (f *Forge) AddRepo(owner, name string) string {
	bare := filepath.Join(f.root, owner, name+".git")
	f.Repo.CloneBare(bare)
	// The bare clone has no refs/pull: push them as a forge keeps them.
	f.Repo.Git("push", "-q", bare, "refs/pull/*:refs/pull/*")
	return bare
}

// repoPath recognizes /api/v1/repos/OWNER/NAME of a served repository.
func (f *Forge) repoPath(p string) (owner, name string, ok bool) {
	rest, ok := strings.CutPrefix(p, "/api/v1/repos/")
	if !ok {
		return "", "", false
	}
	owner, name, ok = strings.Cut(rest, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", false
	}
	if fi, err := os.Stat(filepath.Join(f.root, owner, name+".git")); err != nil || !fi.IsDir() {
		return "", "", false
	}
	return owner, name, true
}

// search answers /repos/search from the served repositories, paged as
// Gitea pages (limit at most 50) with X-Total-Count.
func (f *Forge) search(w http.ResponseWriter, req *http.Request) {
	var all []string
	owners, _ := os.ReadDir(f.root)
	for _, o := range owners {
		repos, _ := os.ReadDir(filepath.Join(f.root, o.Name()))
		for _, r := range repos {
			if name, ok := strings.CutSuffix(r.Name(), ".git"); ok {
				all = append(all, o.Name()+"/"+name)
			}
		}
	}
	all = append(all, f.Listed...)
	sort.Strings(all)
	page, limit := 1, 50
	_, _ = fmt.Sscan(req.URL.Query().Get("page"), &page) // absent or bad: the defaults
	_, _ = fmt.Sscan(req.URL.Query().Get("limit"), &limit)
	page, limit = max(page, 1), min(max(limit, 1), 50)
	from := min((page-1)*limit, len(all))
	type entry struct {
		Name  string `json:"name"`
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
		DefaultBranch string `json:"default_branch"`
	}
	data := []entry{}
	for _, full := range all[from:min(from+limit, len(all))] {
		var e entry
		e.Owner.Login, e.Name, _ = strings.Cut(full, "/")
		e.DefaultBranch = "main"
		data = append(data, e)
	}
	w.Header().Set("X-Total-Count", fmt.Sprint(len(all)))
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "data": data})
}

// APICalls is how many API requests were made for path (such as
// "/api/v1/repos/search"), version queries included.
func (f *Forge) APICalls(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.apiCalls[path]
}

// echo quotes a request whole.
func echo(req *http.Request) string {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 4096))
	var h []string
	for k, v := range req.Header {
		h = append(h, k+": "+strings.Join(v, ", "))
	}
	sort.Strings(h)
	return fmt.Sprintf("you sent %s %s (host %s) with headers [%s] and body %q", req.Method, req.URL.String(), req.Host, strings.Join(h, "; "), body)
}

// pkt is one pkt-line.
func pkt(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }
