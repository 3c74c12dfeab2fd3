package forge

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// scrubber removes the forge's secrets from text on its way out: every
// error, note and log line the package produces passes through one, the
// forge's own words (an API error body may echo the request, token and
// all) and git's stderr included. It is the only place that knows what a
// secret looks like.
type scrubber struct {
	words []string // the token, in every spelling a message may quote it
}

func newScrubber(token string) scrubber {
	var s scrubber
	if token == "" {
		return s
	}
	quoted, _ := json.Marshal(token) // as an echo written in JSON spells it
	for _, w := range []string{token, url.QueryEscape(token), url.PathEscape(token), strings.Trim(string(quoted), `"`)} {
		if !contains(s.words, w) {
			s.words = append(s.words, w)
		}
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// userinfo matches the credentials of a URL: scheme://USER[:PASSWORD]@.
var userinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s"'<>]*@`)

// String scrubs a message. A message cut short (git's stderr is kept up to
// a size) may end in the first bytes of the token: those go too.
func (s scrubber) String(msg string) string {
	for _, w := range s.words {
		msg = strings.ReplaceAll(msg, w, "[token]")
	}
	for _, w := range s.words {
		for k := len(w) - 1; k >= minCut; k-- {
			if strings.HasSuffix(msg, w[:k]) {
				msg = msg[:len(msg)-k] + "[token]"
				break
			}
		}
	}
	return userinfo.ReplaceAllString(msg, "${1}[credentials]@")
}

// minCut is the shortest start of the token scrubbed at a message's end.
const minCut = 6

// Err scrubs an error's message, keeping its code. An error with nothing
// to scrub is returned as it is, so errors.Is still sees what it wraps.
func (s scrubber) Err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := s.String(msg)
	if clean == msg {
		return err
	}
	if coded, ok := err.(*errcode.Error); ok {
		return &errcode.Error{Code: coded.Code, Msg: s.String(coded.Msg)}
	}
	out := &scrubbedError{msg: clean}
	if coded := (*errcode.Error)(nil); errors.As(err, &coded) {
		out.coded = &errcode.Error{Code: coded.Code, Msg: s.String(coded.Msg)}
	}
	return out
}

// scrubbedError is a scrubbed error that wrapped a coded one: it keeps the
// code (scrubbed too) for errors.As, and nothing else of the original.
type scrubbedError struct {
	msg   string
	coded *errcode.Error
}

func (e *scrubbedError) Error() string { return e.msg }

func (e *scrubbedError) Unwrap() error {
	if e.coded == nil {
		return nil
	}
	return e.coded
}

// clean scrubs *err in place: defer c.secrets.clean(&err) at the top of
// every exported function is the package's one path out.
func (s scrubber) clean(err *error) { *err = s.Err(*err) }

// Scrub removes the token and any URL credentials from a message, for
// callers that log or return what the forge said.
func (c *Client) Scrub(msg string) string { return c.secrets.String(msg) }

// CheckURL refuses a --forge URL that carries credentials, a query or a
// fragment: the token has its own flag, and nothing secret may sit in a URL
// that is logged and quoted in errors. The message never quotes them.
func CheckURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Parse quotes the URL in its error: say what is wrong without it.
		return fmt.Errorf("--forge is not a URL; want an http(s) URL such as https://codeberg.org")
	}
	switch {
	case u.User != nil:
		return fmt.Errorf("--forge %s carries credentials (user:password@): they would be logged and quoted in errors; "+
			"give the forge's URL without them and an API token with --token (or MCP_REPO_TOOLS_TOKEN, FORGEJO_TOKEN or GITEA_TOKEN)", redacted(u))
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return fmt.Errorf("--forge %s has a query or fragment: give the forge's root URL, and an API token with --token (or MCP_REPO_TOOLS_TOKEN, FORGEJO_TOKEN or GITEA_TOKEN)", redacted(u))
	case u.Scheme != "https" && u.Scheme != "http", u.Host == "":
		return fmt.Errorf("--forge %s: want an http(s) URL such as https://codeberg.org", redacted(u))
	}
	return nil
}

// redacted is a URL without its credentials, query and fragment.
func redacted(u *url.URL) string {
	r := *u
	r.User, r.RawQuery, r.ForceQuery, r.Fragment, r.RawFragment = nil, "", false, "", ""
	return r.String()
}

// sameOrigin says whether b has a's scheme, host and port (a port left out
// is the scheme's own).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// origin is scheme://host[:port] of u.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// CheckTransport refuses a token sent in clear: an http:// forge with a
// token must be on a loopback address, unless the operator says insecure.
// It returns whether the token goes in clear (to log it).
func CheckTransport(rawURL string, hasToken, insecure bool) (clear bool, err error) {
	u, err := url.Parse(rawURL)
	if err != nil || !strings.EqualFold(u.Scheme, "http") || !hasToken {
		return false, nil
	}
	if isLoopback(u.Hostname()) || insecure {
		return true, nil
	}
	return false, fmt.Errorf("--forge %s is plain http and a token is given: the token would cross the network in clear; "+
		"use https, or a loopback address, or say --insecure-forge to send it anyway", redacted(u))
}

// isLoopback: "localhost" or a loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
