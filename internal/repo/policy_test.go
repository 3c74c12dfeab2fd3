package repo

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

func mustPolicy(t *testing.T, extra ...string) *Policy {
	t.Helper()
	p, err := NewPolicy(extra)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPolicyDefaultDenyList(t *testing.T) {
	p := mustPolicy(t)
	tests := []struct {
		path   string
		denied bool
	}{
		// dotenv files and their variants with a dot
		{".env", true},
		{"a/.env", true},
		{"a/.env.local", true},
		{".env.production", true},
		{".env.example", true}, // templates too: the pattern cannot tell
		{".envrc", true},
		{".env/inner.txt", true}, // a directory of that name hides what it holds
		{".ENV", true},
		{"App/.Env.Local", true},
		// private keys and key stores
		{"id_rsa", true},
		{"home/id_ed25519", true},
		{"ID_RSA", true},
		{"deploy.pem", true},
		{"certs/server.KEY", true},
		{"store.p12", true},
		{"putty.ppk", true},
		// credential files and directories
		{".aws/credentials", true},
		{".aws", true},
		{"x/.ssh/config", true},
		{"x/.SSH/config", true},
		{".netrc", true},
		{"_netrc", true},
		{".git-credentials", true},
		{".npmrc", true},
		{"config/credentials.json", true},
		{"deploy/secrets.yml", true},
		{".kube/config", true},
		// git's own directory, at the top and nested
		{".git", true},
		{".git/config", true},
		{".git/HEAD", true},
		{"vendor/lib/.git/config", true},
		{".GIT/config", true},

		// issue 10: names the list missed, and their common variants
		{"id_rsa.bak", true},
		{"id_rsa_work", true},
		{"id_rsa-github", true}, // ends in "b", as ".pub" does
		{"id_rsa_gitlab", true},
		{"id_rsa2", true},
		{"id_rsa~", true},
		{"id_dsa.old", true},
		{"id_ecdsa_sk", true},
		{"id_ed25519_work", true},
		{"home/.ssh2/id_ed25519.bak", true},
		{"ID_ED25519_WORK", true},
		{"id_rsab", true}, // too short to end in ".pub"
		{"id_rsapub", true},
		{"id_rsa_pub", true},
		{".vault-token", true},
		{"terraform.tfstate", true},
		{"infra/terraform.tfstate.backup", true},
		{"prod.tfstate.1700000000.backup", true},
		{".s3cfg", true},
		{".boto", true},
		{"secring.gpg", true},
		{"home/.gnupg2/secring.kbx", true},
		{"private.asc", true},
		{"keys/my-private-key.asc", true},
		{"secret-key.asc", true},
		{"private.gpg", true},
		{".dockercfg", true},
		{"service-account.json", true},
		{"deploy/service-account-prod.json", true},
		{"application_default_credentials.json", true},
		{".yarnrc.yml", true},
		{".gem/credentials", true},
		{"home/.gem/credentials", true},
		{".config/gh/hosts.yml", true},
		{"dotfiles/.config/gh/hosts.yml", true},
		{".cargo/credentials.toml", true},
		{"keystore.p12.bak", true},
		{"cert.pfx.old", true},
		{"app.jks.orig", true},
		{"server.key.bak", true},
		{"deploy.pem.bak", true},
		{"vault.kdbx.bak", true},

		// ordinary files that only look related
		{"id_rsa.pub", false},
		{"id_rsa_work.pub", false},
		{"id_ed25519_sk.pub", false},
		{"ID_ECDSA.PUB", false},
		{"my_id_rsa", false},
		{"pubring.kbx", false},
		{"public.asc", false},
		{"release.asc", false},
		{"signature.gpg", false},
		{"terraform.tf", false},
		{"service.json", false},
		{".yarnrc", false},
		{"gem/credentials", false},
		{".gem/specs.yml", false},
		{".config/gh/config.yml", false},
		{"gh/hosts.yml", false},
		{"env.go", false},
		{"environment.md", false},
		{"src/env/config.go", false},
		// ".env*" (the default deny list) hides every dotenv spelling, and with them any
		// name starting with ".env".
		{".env-local", true},
		{"deploy/.env_prod", true},
		{"src/.environment", true},
		{"keys.go", false},
		{"a/b.key.txt", false},
		{"key", false},
		{"pem.go", false},
		{"deploy.pem.example", false},
		{".gitignore", false},
		{".gitattributes", false},
		{".github/workflows/ci.yml", false},
		{"git/config", false},
		{"aws/credentials.md", false},
		{"ssh/config", false},
		{"README.md", false},
	}
	for _, tt := range tests {
		if got := p.Denied(tt.path); got != tt.denied {
			t.Errorf("Denied(%q) = %v, want %v", tt.path, got, tt.denied)
		}
	}
}

func TestPolicyExtraPatterns(t *testing.T) {
	p := mustPolicy(t, "*.secret", "config/prod/", "build/*.log", "  ", "", " /Private/ ", "**/.secrets/token")
	tests := []struct {
		path   string
		denied bool
	}{
		// a pattern without "/" applies to every segment
		{"x.secret", true},
		{"a/b/x.secret", true},
		{"X.SECRET", true},
		{"x.secret/inside.txt", true},
		{"x.secret.txt", false},
		// a path pattern ending in "/" hides that directory and what it holds
		{"config/prod", true},
		{"config/prod/db.yml", true},
		{"config/prod/sub/deep.yml", true},
		{"Config/Prod/db.yml", true},
		{"config/production/db.yml", false},
		{"config/dev/db.yml", false},
		{"other/config/prod/db.yml", false}, // a path pattern is anchored at the root
		// a path pattern is matched against the whole path; "*" does not cross "/"
		{"build/x.log", true},
		{"build/x.log/inner", true},
		{"build/sub/x.log", false},
		{"x.log", false},
		{"a/build/x.log", false},
		{"build/x.txt", false},
		// a leading "/" anchors, as the full path does anyway
		{"private/notes.md", true},
		{"a/private/notes.md", false},
		// a pattern starting with "**/" matches at any depth, and what is below
		{"x/.secrets/token", true},
		{".secrets/token", true},
		{"a/b/.secrets/token/more", true},
		{".secrets/other", false},
		{"x/secrets/token", false},
		// the default list still applies
		{".env", true},
		{"a/id_rsa", true},
		{"src/main.go", false},
	}
	for _, tt := range tests {
		if got := p.Denied(tt.path); got != tt.denied {
			t.Errorf("Denied(%q) = %v, want %v", tt.path, got, tt.denied)
		}
	}
}

func TestPolicyInvalidPattern(t *testing.T) {
	for _, pat := range []string{"[", "a/[b", "*.[", "config/[/"} {
		if _, err := NewPolicy([]string{pat}); err == nil {
			t.Errorf("NewPolicy(%q) accepted a malformed pattern", pat)
		}
	}
}

func TestPolicyDoesNotChangeDefaultDeny(t *testing.T) {
	before := append([]string{}, DefaultDeny...)
	for range 3 {
		mustPolicy(t, "a", "b/", "c/d")
	}
	if len(DefaultDeny) != len(before) {
		t.Fatalf("DefaultDeny changed length: %d → %d", len(before), len(DefaultDeny))
	}
	for i := range before {
		if DefaultDeny[i] != before[i] {
			t.Fatalf("DefaultDeny[%d] changed: %q → %q", i, before[i], DefaultDeny[i])
		}
	}
}

func TestPolicyCheck(t *testing.T) {
	p := mustPolicy(t, "config/prod/")
	tests := []struct {
		in   string
		want string
		code errcode.Code
	}{
		{"", "", ""},
		{"src//main.go", "src/main.go", ""},
		{".env", "", errcode.PathDenied},
		{"./.env", "", errcode.PathDenied},
		{"a/./.env.local", "", errcode.PathDenied},
		{".git//config", "", errcode.PathDenied},
		{"config/prod/db.yml", "", errcode.PathDenied},
		{"../x", "", errcode.PathDenied},
		{"/etc/passwd", "", errcode.PathDenied},
		{"a\x00", "", errcode.InvalidArgument},
	}
	for _, tt := range tests {
		got, err := p.Check(tt.in)
		if tt.code == "" {
			if err != nil || got != tt.want {
				t.Errorf("Check(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			continue
		}
		if c := errcode.Of(err); err == nil || c != tt.code {
			t.Errorf("Check(%q) = %q, %v; want code %s", tt.in, got, err, tt.code)
		}
	}
}

// deniedByMatch is the policy applied pattern by pattern, segment by
// segment, with path.Match, as it was before Denied learned its shortcuts
// (remembered directories, literal ends): the oracle Denied must agree with.
func deniedByMatch(p *Policy, clean string) bool {
	lower := strings.ToLower(clean)
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
		for _, pat := range slices.Concat(p.segment, p.dir) {
			if ok, _ := path.Match(pat, seg); ok {
				return true
			}
		}
	}
	return false
}

// policyCorpus is paths that exercise every kind of pattern, hidden and not.
var policyCorpus = []string{
	"README.md", ".env", "a/.env.local", ".envrc", "environment.txt", "x/.git/config", ".github/ci.yml",
	"id_rsa", "keys/id_rsa.bak", "id_rsa.pub", "id_ed25519_work", "id_ed25519_work.pub", "id_ecdsa", "x/id_dsa.old",
	"server.pem", "server.pem.bak", "deploy.pem.example", "a.key", "store.p12", "keystore.p12.bak", "x.jks", "y.kdbx2",
	"secring.gpg", "my-private-key.asc", "public.asc", "signature.asc", "ops/private.gpg",
	".gem/credentials", "home/.gem/credentials", ".config/gh/hosts.yml", "a/b/.config/gh/hosts.yml", ".cargo/credentials.toml",
	"terraform.tfstate", "prod/terraform.tfstate.backup", "service-account.json", "service-account-prod.json",
	".aws/config", "x/.ssh/known_hosts", ".docker/config.json", "docker/config.json", "config/prod/db.yml", "config/production.yml",
	"naïve/café.txt", "A/B/C/.ENV", "Secrets.YAML", ".Vault-Token", "src/main.go", "vendor/x/id_rsa",
}

func TestPolicyAgreesWithPathMatch(t *testing.T) {
	for _, extra := range [][]string{nil, {"config/prod/", "*.secret", "**/deep/er/*.txt", "[^a]x?", "docs/private*"}} {
		p, err := NewPolicy(extra)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range append(policyCorpus, "docs/private-notes.md", "bx1", "ax1", "q/deep/er/f.txt", "deep/er/f.txt", "deep/er/g/f.txt") {
			if got, want := p.Denied(c), deniedByMatch(p, c); got != want {
				t.Errorf("extra %v: Denied(%q) = %v, path.Match says %v", extra, c, got, want)
			}
		}
	}
}

func FuzzPolicyFastPath(f *testing.F) {
	for _, c := range policyCorpus {
		f.Add(c, "*.secret")
	}
	f.Add("a/b", "[^/]b")
	f.Add("x/y/z", "**/y/[a-z]")
	f.Fuzz(func(t *testing.T, clean, extra string) {
		// Denied is asked about clean paths only (CleanPath refuses "/0",
		// which made the two disagree on the pattern "/"), and "" names no
		// file (TestPolicyEmptyPath).
		if c, err := CleanPath(clean); err != nil || c != clean || c == "" {
			return
		}
		p, err := NewPolicy([]string{extra})
		if err != nil {
			return
		}
		if got, want := p.Denied(clean), deniedByMatch(p, clean); got != want {
			t.Errorf("pattern %q: Denied(%q) = %v, path.Match says %v", extra, clean, got, want)
		}
	})
}

// "" names no file (the old side of an added file's section, the new side
// of a deleted one's): no pattern hides it, as none hides the root. A
// pattern that matches "" hides every file anyway, so this changes no
// reply; the fuzz target found the two answers differing there.
func TestPolicyEmptyPath(t *testing.T) {
	for _, extra := range []string{"/*", "*", "**/*", "*/", "[^a]*"} {
		p, err := NewPolicy([]string{extra})
		if err != nil {
			t.Fatal(err)
		}
		if p.Denied("") {
			t.Errorf("pattern %q hides the empty path", extra)
		}
	}
}

// The answers kept are bounded in count and in the bytes of their paths,
// and a kept answer is the one the patterns give.
func TestPolicyMemoBound(t *testing.T) {
	p, err := NewPolicy(nil)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("d/", 2000)
	for i := range 2000 {
		path := fmt.Sprintf("%sf%d.go", long, i)
		if p.Denied(path) || !p.Denied(path+"/.env") {
			t.Fatalf("%d: wrong answer", i)
		}
		if p.files.bytes > dirCacheBytes || len(p.files.m) > dirCacheSize {
			t.Fatalf("%d answers in %d bytes kept", len(p.files.m), p.files.bytes)
		}
	}
	for range 2 { // the second time from memory
		if !p.Denied(".env") || p.Denied("main.go") {
			t.Fatal("a remembered answer differs")
		}
	}
}
