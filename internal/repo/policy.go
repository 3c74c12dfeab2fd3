package repo

import (
	"fmt"
	"path"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// DefaultDeny hides files that commonly hold secrets. Configuration can add to
// it, never remove from it. A pattern without "/" is matched against every
// path segment (so ".env" hides "a/.env"); a pattern ending in "/" hides a
// directory of that name anywhere; any other pattern is matched against the
// whole path from the root, and hides what it matches and everything below it
// ("config/prod/" hides "config/prod/db.yml"). Matching ignores case. Globs
// follow path.Match: "*" does not cross "/". ".env*" hides every dotenv
// variant (.env.local, .env-prod, .envrc) and, as a price for that, any other
// name starting with ".env".
var DefaultDeny = []string{
	".git/",
	".env*",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "*.ppk",
	".netrc", "_netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".htpasswd",
	".aws/", ".ssh/", ".gnupg/", ".kube/", ".docker/",
	"credentials.json", "secrets.yml", "secrets.yaml",
}

// Policy decides which paths may be read.
type Policy struct {
	segment []string // matched against each path segment
	dir     []string // directory names, any depth
	full    []string // matched against the whole path
}

// NewPolicy returns the default deny list extended by extra patterns.
func NewPolicy(extra []string) (*Policy, error) {
	p := &Policy{}
	for _, pat := range append(append([]string{}, DefaultDeny...), extra...) {
		pat = strings.ToLower(strings.TrimSpace(pat))
		if pat == "" {
			continue
		}
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("deny pattern %q: %w", pat, err)
		}
		switch {
		case strings.HasSuffix(pat, "/") && !strings.Contains(strings.TrimSuffix(pat, "/"), "/"):
			p.dir = append(p.dir, strings.TrimSuffix(pat, "/"))
		case strings.Contains(pat, "/"):
			p.full = append(p.full, strings.Trim(pat, "/"))
		default:
			p.segment = append(p.segment, pat)
		}
	}
	return p, nil
}

// Denied reports whether a clean repository path is hidden.
func (p *Policy) Denied(clean string) bool {
	lower := strings.ToLower(clean)
	// A whole-path pattern hides the path it matches and everything below
	// it ("config/prod/" hides "config/prod/db.yml"): try the path and each
	// of its ancestors.
	for sub := lower; sub != ""; {
		for _, pat := range p.full {
			if ok, _ := path.Match(pat, sub); ok {
				return true
			}
		}
		i := strings.LastIndexByte(sub, '/')
		if i < 0 {
			break
		}
		sub = sub[:i]
	}
	segs := strings.Split(lower, "/")
	for _, seg := range segs {
		for _, pat := range p.segment {
			if ok, _ := path.Match(pat, seg); ok {
				return true
			}
		}
		for _, pat := range p.dir {
			if ok, _ := path.Match(pat, seg); ok {
				return true
			}
		}
	}
	return false
}

// Check cleans a caller's path and applies the policy.
func (p *Policy) Check(raw string) (string, error) {
	clean, err := CleanPath(raw)
	if err != nil {
		return "", err
	}
	if clean != "" && p.Denied(clean) {
		return "", errcode.New(errcode.PathDenied, "path %q is hidden by the server's secrets policy", clean)
	}
	return clean, nil
}

// GrepExcludes translates the policy into git glob pathspecs (to be used
// with exclude and icase magic), so a search never opens a hidden file.
// Results are still checked with Denied: the two must agree, and Denied is
// the authority.
func (p *Policy) GrepExcludes() []string {
	var out []string
	for _, pat := range p.segment {
		out = append(out, "**/"+pat, "**/"+pat+"/**")
	}
	for _, pat := range p.dir {
		out = append(out, "**/"+pat+"/**")
	}
	for _, pat := range p.full {
		out = append(out, pat, pat+"/**")
	}
	return out
}
