package repo

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// DefaultDeny hides files that commonly hold secrets. Configuration can add to
// it, never remove from it. A pattern without "/" is matched against every
// path segment (so ".env" hides "a/.env"); a pattern ending in "/" hides a
// directory of that name anywhere; a pattern starting with "**/" is matched
// against the path's segments at any depth (".gem/credentials" in any
// directory); any other pattern is matched against the whole path from the
// root. Each hides what it matches and everything below it ("config/prod/"
// hides "config/prod/db.yml"). Matching ignores case. Globs follow
// path.Match: "*" does not cross "/", "[^x]" is any character but x.
// ".env*" hides every dotenv variant (.env.local, .env-prod, .envrc) and, as
// a price for that, any other name starting with ".env".
var DefaultDeny = slices.Concat(
	[]string{
		".git/",
		".env*",
		// Key material, with backups and variants: binary key stores
		// with any suffix (keystore.p12.bak), text keys with the usual
		// backup suffixes only (deploy.pem.example stays visible).
		"*.pem", "*.key", "*.pem.bak", "*.key.bak",
		"*.p12*", "*.pfx*", "*.jks*", "*.keystore*", "*.kdbx*", "*.ppk*",
		// GnuPG secret keyrings and exported private keys.
		"secring.*", "*private*.asc", "*secret*.asc", "*private*.gpg",
		// Credential files of tools and clouds.
		".netrc", "_netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".htpasswd",
		".yarnrc.yml", ".vault-token", ".s3cfg", ".boto", ".dockercfg",
		"credentials.json", "secrets.yml", "secrets.yaml",
		"service-account*.json", "application_default_credentials.json",
		"*.tfstate", "*.tfstate.*",
		"**/.gem/credentials", "**/.config/gh/hosts.yml", "**/.cargo/credentials*",
		".aws/", ".ssh/", ".gnupg/", ".kube/", ".docker/",
	},
	// SSH private keys under any name that starts like one (id_rsa.bak,
	// id_ed25519_work), but not their public halves. One class for id_rsa
	// and id_dsa: every pattern costs git grep time on every file.
	namesNotEndingIn(".pub", "id_[dr]sa", "id_ecdsa", "id_ed25519"),
)

// namesNotEndingIn returns segment patterns matching each prefix followed by
// anything that does not end in suffix. Neither path.Match nor git's
// wildmatch can negate a pattern, so the name's ending is spelled out: it
// shares the last k characters of suffix and differs in the one before, or
// it is exactly the prefix and those k characters. suffix must hold no glob
// metacharacters.
func namesNotEndingIn(suffix string, prefixes ...string) []string {
	var out []string
	for _, prefix := range prefixes {
		for k := range len(suffix) {
			tail := suffix[len(suffix)-k:]
			out = append(out, prefix+tail, prefix+"*[^"+suffix[len(suffix)-k-1:len(suffix)-k]+"]"+tail)
		}
	}
	return out
}

// Policy decides which paths may be read.
type Policy struct {
	segment  []string // matched against each path segment
	dir      []string // directory names, any depth
	full     []string // matched against the whole path
	anywhere []string // several segments, matched at any depth
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
		anywhere := strings.HasPrefix(pat, "**/")
		if anywhere {
			pat = strings.TrimPrefix(pat, "**/")
		}
		switch {
		case anywhere && strings.Contains(strings.Trim(pat, "/"), "/"):
			p.anywhere = append(p.anywhere, strings.Trim(pat, "/"))
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
	for _, pat := range p.anywhere {
		n := strings.Count(pat, "/") + 1
		for i := 0; i+n <= len(segs); i++ {
			if ok, _ := path.Match(pat, strings.Join(segs[i:i+n], "/")); ok {
				return true
			}
		}
	}
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
	for _, pat := range p.anywhere {
		out = append(out, "**/"+pat, "**/"+pat+"/**")
	}
	return out
}
