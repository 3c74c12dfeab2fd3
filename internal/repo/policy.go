package repo

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

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
	// segmentGlobs are segment and dir together, ready to match fast.
	segmentGlobs []glob
	// dirs remembers whether a directory is hidden: the files of one
	// directory are checked together in every listing. files remembers
	// the answers for whole paths: a diff read part by part checks its
	// files' paths again in each part.
	dirs, files dirCache
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
		// path.Match checks only as much of a pattern as it reads: try
		// it on a name that reaches every part.
		if _, err := path.Match(pat, strings.Repeat("\uffff", len(pat))); err != nil {
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
	for _, pat := range slices.Concat(p.segment, p.dir) {
		p.segmentGlobs = append(p.segmentGlobs, newGlob(pat))
	}
	return p, nil
}

// Denied reports whether a clean repository path is hidden. A listing of
// a range checks every file: this is in the inner loop of every diff tool,
// so a directory's answer is remembered and each pattern rejects a name
// by its literal ends before path.Match runs.
func (p *Policy) Denied(clean string) bool {
	if clean == "" {
		return false // names no file: the root, or the old side of an added file
	}
	if denied, ok := p.files.get(clean); ok {
		return denied
	}
	lower := strings.ToLower(clean)
	dir, name := "", lower
	if i := strings.LastIndexByte(lower, '/'); i >= 0 {
		dir, name = lower[:i], lower[i+1:]
	}
	denied := (dir != "" && p.dirDenied(dir)) || p.segmentDenied(name) || p.fullDenied(lower) || p.anywhereDenied(lower)
	p.files.put(clean, denied)
	return denied
}

// dirDenied reports whether a directory (lower case) or one of its
// ancestors is hidden.
func (p *Policy) dirDenied(dir string) bool {
	if denied, ok := p.dirs.get(dir); ok {
		return denied
	}
	parent, name := "", dir
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		parent, name = dir[:i], dir[i+1:]
	}
	denied := (parent != "" && p.dirDenied(parent)) || p.segmentDenied(name) || p.fullDenied(dir) || p.anywhereDenied(dir)
	p.dirs.put(dir, denied)
	return denied
}

// segmentDenied matches one name against the segment and directory patterns.
func (p *Policy) segmentDenied(name string) bool {
	for _, g := range p.segmentGlobs {
		if g.match(name) {
			return true
		}
	}
	return false
}

// fullDenied matches a whole path (not its ancestors: dirDenied does) against
// the whole-path patterns.
func (p *Policy) fullDenied(lower string) bool {
	for _, pat := range p.full {
		if ok, _ := path.Match(pat, lower); ok {
			return true
		}
	}
	return false
}

// anywhereDenied matches the several-segment patterns against the path's
// last segments (windows ending earlier were checked as its directories').
func (p *Policy) anywhereDenied(lower string) bool {
	for _, pat := range p.anywhere {
		if tail, ok := lastSegments(lower, strings.Count(pat, "/")+1); ok {
			if match, _ := path.Match(pat, tail); match {
				return true
			}
		}
	}
	return false
}

// lastSegments returns the last n segments of p, or false if it has fewer.
func lastSegments(p string, n int) (string, bool) {
	end := len(p)
	for k := range n {
		i := strings.LastIndexByte(p[:end], '/')
		if i < 0 {
			return p, k == n-1
		}
		end = i
	}
	return p[end+1:], true
}

// glob is a path.Match pattern with its literal ends, which reject most
// names without running it.
type glob struct {
	pat, prefix, suffix string
	literal             bool
}

func newGlob(pat string) glob {
	const meta = "*?[\\"
	i := strings.IndexAny(pat, meta)
	if i < 0 {
		return glob{pat: pat, literal: true}
	}
	j := strings.LastIndexAny(pat, meta+"]")
	return glob{pat: pat, prefix: pat[:i], suffix: pat[j+1:]}
}

func (g glob) match(name string) bool {
	if g.literal {
		return name == g.pat
	}
	if len(name) < len(g.prefix)+len(g.suffix) || !strings.HasPrefix(name, g.prefix) || !strings.HasSuffix(name, g.suffix) {
		return false
	}
	ok, _ := path.Match(g.pat, name)
	return ok
}

// dirCache remembers, for a bounded number of directories, whether each is
// hidden; it starts over when full.
type dirCache struct {
	mu    sync.Mutex
	m     map[string]bool
	bytes int // of the keys
}

// A cache is emptied when it holds dirCacheSize answers or its keys
// dirCacheBytes: bounded however long the paths.
const (
	dirCacheSize  = 1 << 14
	dirCacheBytes = 1 << 20
)

func (c *dirCache) get(dir string) (denied, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	denied, ok = c.m[dir]
	return denied, ok
}

func (c *dirCache) put(dir string, denied bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= dirCacheSize || c.bytes+len(dir) > dirCacheBytes {
		c.m, c.bytes = make(map[string]bool), 0
	}
	c.m[dir] = denied
	c.bytes += len(dir)
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
