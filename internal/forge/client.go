// Package forge talks to a Forgejo or Gitea server over its API (v1, which
// both share): pull request diffs and files, file contents, repository
// metadata. Answers are streamed or read with a bound, never buffered whole.
//
// It uses net/http rather than code.gitea.io/sdk/gitea: the SDK returns
// diffs and files as whole byte slices and re-encodes ContentsResponse, where
// the tools need streams and the forge's own JSON unchanged.
package forge

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// Client is an API client for one forge.
type Client struct {
	base    *url.URL // the forge's root URL, ending in "/"
	token   string
	secrets scrubber // every error leaves through it
	http    *http.Client
	repos   listCache // pages of the repository listing

	Kind    string // "Gitea" or "Forgejo"
	Version string // as the forge reports it
}

// testRootCAs replaces the system's roots in tests (nil: the system's).
var testRootCAs *x509.CertPool

// maxJSON bounds a JSON answer read whole (a file listing page, metadata).
const maxJSON = 8 << 20

// New connects to the forge at rawURL and asks which forge it is. A URL
// with credentials is refused (see CheckURL).
func New(ctx context.Context, rawURL, token string) (_ *Client, err error) {
	secrets := newScrubber(token)
	defer secrets.clean(&err)
	if err := CheckURL(rawURL); err != nil {
		return nil, err
	}
	u, err := url.Parse(strings.TrimRight(rawURL, "/") + "/")
	if err != nil {
		return nil, err
	}
	c := &Client{base: u, token: token, secrets: secrets, repos: listCache{ttl: time.Minute}, http: &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
			MaxIdleConnsPerHost:   16,
			TLSClientConfig:       &tls.Config{RootCAs: testRootCAs},
		},
		// Redirects must not carry the token elsewhere: Go keeps
		// Authorization on a redirect to the same host whatever its scheme,
		// so a redirect is followed only to the very same origin.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if !sameOrigin(u, req.URL) {
				return errcode.New(errcode.Unavailable, "the forge redirected to %s, another scheme, host or port than %s: not followed, so the token stays with %s",
					redacted(req.URL), origin(u), origin(u))
			}
			return nil
		},
	}}
	var v struct {
		Version string `json:"version"`
	}
	if err := c.getJSON(ctx, "version", nil, &v); err != nil {
		return nil, err
	}
	c.Version, c.Kind = v.Version, "Gitea"
	// Forgejo reports versions like "7.0.0+gitea-1.22.0".
	if strings.Contains(v.Version, "+gitea-") || strings.Contains(strings.ToLower(v.Version), "forgejo") {
		c.Kind = "Forgejo"
	}
	return c, nil
}

// BaseURL is the forge's root URL.
func (c *Client) BaseURL() string { return c.base.String() }

// api builds an API URL from escaped path segments.
func (c *Client) api(path string, query url.Values) string {
	u := c.base.JoinPath("api/v1")
	u.RawPath = u.Path + "/" + path
	u.Path, _ = url.PathUnescape(u.RawPath)
	if query != nil {
		u.RawQuery = query.Encode()
	}
	return u.String()
}

// repoPath is "repos/OWNER/REPO" with both escaped.
func repoPath(owner, repo string) string {
	return "repos/" + url.PathEscape(owner) + "/" + url.PathEscape(repo)
}

// EscapePath escapes each "/"-separated segment of a repository path,
// keeping the slashes, as forges build their URLs.
func EscapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// get sends a GET and returns the response when its status is 2xx; other
// statuses become coded errors.
func (c *Client) get(ctx context.Context, path string, query url.Values) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.api(path, query), nil)
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "token "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			return nil, cause
		}
		if refused := new(errcode.Error); errors.As(err, &refused) { // CheckRedirect's own words
			return nil, refused
		}
		return nil, errcode.New(errcode.Unavailable, "the forge at %s cannot be reached: %s", c.base.Host, c.secrets.String(err.Error()))
	}
	if resp.StatusCode/100 == 2 {
		resp.Body = scrubbedBody{resp.Body, c.secrets}
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return nil, statusError(resp.StatusCode, path, body, c.secrets)
}

// maxDetail bounds what an error quotes of the forge's own message.
const maxDetail = 300

// statusError turns an HTTP status into the tool's error codes. It quotes
// the forge's message, which may echo the request: scrubbed first, then
// cut (a cut token would no longer be recognized).
func statusError(status int, path string, body []byte, secrets scrubber) error {
	var msg struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &msg) // not JSON: no message to quote
	detail := strings.Join(strings.Fields(secrets.String(msg.Message)), " ")
	if len(detail) > maxDetail {
		detail = strings.ToValidUTF8(detail[:maxDetail], "") + " …"
	}
	if detail == "" {
		detail = http.StatusText(status)
	}
	switch {
	case status == http.StatusNotFound:
		return errcode.New(errcode.NotFound, "the forge has no %s (404: %s)", path, detail)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return errcode.New(errcode.PermissionDenied, "the forge refused %s (%d: %s); check the token (--token, FORGEJO_TOKEN or GITEA_TOKEN)", path, status, detail)
	case status == http.StatusTooManyRequests:
		return errcode.New(errcode.Unavailable, "the forge is rate-limiting requests (429); try again later")
	case status >= 500:
		return errcode.New(errcode.Unavailable, "the forge failed on %s (%d: %s); try again later", path, status, detail)
	default:
		return errcode.New(errcode.InvalidArgument, "the forge rejected %s (%d: %s)", path, status, detail)
	}
}

// scrubbedBody scrubs the errors of a streamed answer.
type scrubbedBody struct {
	io.ReadCloser
	secrets scrubber
}

func (b scrubbedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.secrets.Err(err)
	}
	return n, err
}

// getJSON reads a JSON answer of bounded size into v.
func (c *Client) getJSON(ctx context.Context, path string, query url.Values, v any) error {
	_, err := c.getJSONHeader(ctx, path, query, v)
	return err
}

// getJSONHeader is getJSON that also gives the answer's headers (a page's
// X-Total-Count).
func (c *Client) getJSONHeader(ctx context.Context, path string, query url.Values, v any) (http.Header, error) {
	data, h, err := c.getRaw(ctx, path, query)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return nil, jsonError(path, err)
	}
	return h, nil
}

// jsonError: the forge's answer to path is not the JSON expected.
func jsonError(path string, err error) error {
	return errcode.New(errcode.Unavailable, "the forge's answer to %s is not the JSON expected: %v", path, err)
}

// getRaw reads a bounded answer whole, with its headers.
func (c *Client) getRaw(ctx context.Context, path string, query url.Values) ([]byte, http.Header, error) {
	resp, err := c.get(ctx, path, query)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJSON+1))
	if err != nil {
		return nil, nil, c.readError(ctx, path, err)
	}
	if len(data) > maxJSON {
		return nil, nil, errcode.New(errcode.TooLarge, "the forge's answer to %s is over %d bytes", path, maxJSON)
	}
	return data, resp.Header, nil
}

func (c *Client) readError(ctx context.Context, path string, err error) error {
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
		return cause
	}
	return errcode.New(errcode.Unavailable, "reading the forge's answer to %s failed: %s", path, c.secrets.String(err.Error()))
}

// Repository is what the tools need to know of a repository on the forge.
type Repository struct {
	FullName      string `json:"full_name"`
	CloneURL      string `json:"clone_url"`
	DefaultBranch string `json:"default_branch"`
	Empty         bool   `json:"empty"`
	// HasActions: the repository has Actions on (nil: the forge does not
	// say, as before Gitea 1.19).
	HasActions *bool `json:"has_actions"`
}

// Every exported method below scrubs its error on the way out (defer
// c.secrets.clean): what the forge says may quote the request.

// Repo describes owner/repo.
func (c *Client) Repo(ctx context.Context, owner, repo string) (_ *Repository, err error) {
	defer c.secrets.clean(&err)
	var r Repository
	if err := c.getJSON(ctx, repoPath(owner, repo), nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// PullDiff streams a pull request's unified diff. The caller closes it.
func (c *Client) PullDiff(ctx context.Context, owner, repo string, index int) (_ io.ReadCloser, err error) {
	defer c.secrets.clean(&err)
	resp, err := c.get(ctx, repoPath(owner, repo)+"/pulls/"+strconv.Itoa(index)+".diff", nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// Contents returns the forge's ContentsResponse for a path at ref (an
// object for a file, an array for a directory) exactly as the forge wrote it.
func (c *Client) Contents(ctx context.Context, owner, repo, path, ref string) (_ json.RawMessage, err error) {
	defer c.secrets.clean(&err)
	q := url.Values{}
	if ref != "" {
		q.Set("ref", ref)
	}
	p := repoPath(owner, repo) + "/contents"
	if path != "" {
		if err := checkSegments("path", path); err != nil {
			return nil, err
		}
		p += "/" + EscapePath(path)
	}
	data, _, err := c.getRaw(ctx, p, q)
	return json.RawMessage(data), err
}

// Raw streams a file's bytes at ref. The caller closes it.
func (c *Client) Raw(ctx context.Context, owner, repo, path, ref string) (_ io.ReadCloser, err error) {
	defer c.secrets.clean(&err)
	if err := checkSegments("path", path); err != nil {
		return nil, err
	}
	q := url.Values{}
	if ref != "" {
		q.Set("ref", ref)
	}
	resp, err := c.get(ctx, repoPath(owner, repo)+"/raw/"+EscapePath(path), q)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// checkSegments refuses a "/"-separated name with an empty, "." or ".."
// segment before it goes into an API path, where the forge (or a proxy in
// front of it) would resolve it to another endpoint.
func checkSegments(what, name string) error {
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			code := errcode.InvalidArgument
			if what == "ref" {
				code = errcode.InvalidRef
			}
			return errcode.New(code, "%s %q has an empty, \".\" or \"..\" segment: no branch, tag or file is named so", what, name)
		}
	}
	return nil
}

// ChangedFile is one file of a pull request as the forge lists it.
type ChangedFile struct {
	Filename         string `json:"filename"`
	PreviousFilename string `json:"previous_filename"`
	Status           string `json:"status"`
	Additions        int    `json:"additions"`
	Deletions        int    `json:"deletions"`
}

// PullFiles lists one page of a pull request's files and the total count.
func (c *Client) PullFiles(ctx context.Context, owner, repo string, index, page, limit int) (_ []ChangedFile, _ int, err error) {
	defer c.secrets.clean(&err)
	q := url.Values{"page": {strconv.Itoa(page)}, "limit": {strconv.Itoa(limit)}}
	data, h, err := c.getRaw(ctx, repoPath(owner, repo)+"/pulls/"+strconv.Itoa(index)+"/files", q)
	if err != nil {
		return nil, 0, err
	}
	var files []ChangedFile
	if err := json.Unmarshal(data, &files); err != nil {
		return nil, 0, errcode.New(errcode.Unavailable, "the forge's file list is not the JSON expected: %v", err)
	}
	total, err := strconv.Atoi(h.Get("X-Total-Count"))
	if err != nil {
		total = -1
	}
	return files, total, nil
}

// Pull is what the tools need to know of a pull request.
type Pull struct {
	Head struct {
		SHA string `json:"sha"`
	} `json:"head"`
	Base struct {
		SHA string `json:"sha"`
		Ref string `json:"ref"` // the base branch's name
	} `json:"base"`
	MergeBase string `json:"merge_base"`
}

// Pull describes pull request index.
func (c *Client) Pull(ctx context.Context, owner, repo string, index int) (_ *Pull, err error) {
	defer c.secrets.clean(&err)
	var p Pull
	if err := c.getJSON(ctx, repoPath(owner, repo)+"/pulls/"+strconv.Itoa(index), nil, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// ResolveRef resolves a branch, tag or commit id to a commit id. (The raw
// endpoint falls back to the default branch for a ref it does not know,
// so refs are resolved first.) The ref is one escaped path segment; one
// with an empty, "." or ".." segment names nothing git allows and is
// refused before it reaches a URL.
func (c *Client) ResolveRef(ctx context.Context, owner, repo, ref string) (_ string, err error) {
	defer c.secrets.clean(&err)
	if err := checkSegments("ref", ref); err != nil {
		return "", err
	}
	q := url.Values{"stat": {"false"}, "verification": {"false"}, "files": {"false"}}
	var commit struct {
		SHA string `json:"sha"`
	}
	err = c.getJSON(ctx, repoPath(owner, repo)+"/git/commits/"+url.PathEscape(ref), q, &commit)
	switch code := errcode.Of(err); {
	case err == nil && commit.SHA != "":
		return commit.SHA, nil
	case err == nil, code == errcode.NotFound, code == errcode.InvalidArgument:
		return "", errcode.New(errcode.InvalidRef, "%q does not name a commit in %s/%s (the forge resolves branch and tag names and commit ids)", ref, owner, repo)
	default:
		return "", err
	}
}
